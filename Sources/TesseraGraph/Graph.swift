import TesseraCatalog
import Foundation
import TesseraCore

/// A validated graph: every node typed and connected, in an order where each node comes after the nodes
/// it reads (file order where the connections allow).
public struct Graph: Sendable {
    /// The graph file as the user named it.
    public var file: String
    public var nodes: [GraphNode] {
        didSet { nodeIndex = Self.index(of: nodes) }
    }
    /// Problems that do not stop the graph from running (an output nobody uses).
    public var warnings: [Diagnostic]
    /// Each node's position in ``nodes`` by name: the runner and the preview look nodes up by name for
    /// every node, which a scan made quadratic (12,000 nodes took a minute and a half before a run began).
    private var nodeIndex: [String: Int]

    init(file: String, nodes: [GraphNode], warnings: [Diagnostic]) {
        self.file = file
        self.nodes = nodes
        self.warnings = warnings
        nodeIndex = Self.index(of: nodes)
    }

    /// - Complexity: O(1).
    public func node(named name: String) -> GraphNode? { nodeIndex[name].map { nodes[$0] } }

    private static func index(of nodes: [GraphNode]) -> [String: Int] {
        Dictionary(nodes.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { first, _ in first })
    }
}

/// One node of a validated graph.
public struct GraphNode: Sendable {
    public var name: String
    /// Where the node's name is written.
    public var location: SourceLocation
    public var declaration: NodeDeclaration
    /// Connected inputs, by input name.
    package var inputs: [String: PortReference]
    /// The parameters the graph or the command line sets, by name; the others keep their defaults.
    package var parameters: [String: ParameterSetting]

    /// Every reference this node reads: its inputs, then parameters taken from upstream outputs.
    package var references: [PortReference] {
        let fromParameters = parameters.keys.sorted().compactMap { name -> PortReference? in
            if case .upstream(let reference) = parameters[name]?.source { return reference }
            return nil
        }
        return inputs.keys.sorted().compactMap { inputs[$0] } + fromParameters
    }
}

/// An output of another node: `photo` (its first output) or `heat.boxes`.
package struct PortReference: Sendable, Equatable {
    package var node: String
    /// The output's name, filled in when the reference names only the node.
    package var port: String
    /// True when the file names the port (`heat.boxes`), false for a bare node name.
    package var namesPort: Bool
    package var location: SourceLocation

    /// `node` or `node.port`, as written.
    package var text: String { namesPort ? "\(node).\(port)" : node }
}

/// A parameter's value in a graph: written there (or with `--set`), or taken from an upstream output.
package struct ParameterSetting: Sendable {
    package enum Source: Sendable {
        case value(any ParameterValue)
        case upstream(PortReference)
    }

    package var source: Source
    /// Where the value is written (for `--set`, the option).
    package var location: SourceLocation

    /// The value as written, for `tessera dot`.
    package var text: String {
        switch source {
        case .value(let value): value.literal.text
        case .upstream(let reference): "from \(reference.text)"
        }
    }
}

/// `--set NODE.PARAM=VALUE`: a parameter value given on the command line, read like one in the file
/// but with relative paths resolved against the current folder.
public struct ParameterOverride: Sendable {
    public var node: String
    public var parameter: String
    public var value: String
    /// The option as given, which messages name.
    public var text: String
    /// Where the value comes from when not from `--set` (a batch manifest's file and line), for messages.
    public var origin: String?

    /// Reads `NODE.PARAM=VALUE`.
    public init(parsing text: String) throws(GraphErrors) {
        self.text = text
        let location = SourceLocation(file: "--set \(text)")
        guard let equals = text.firstIndex(of: "="), let dot = text[..<equals].firstIndex(of: "."),
            dot > text.startIndex, text.index(after: dot) < equals
        else {
            throw GraphErrors(diagnostics: [.error(location, "expected NODE.PARAMETER=VALUE, as in soft.sigma=8")])
        }
        node = String(text[..<dot])
        parameter = String(text[text.index(after: dot)..<equals])
        value = String(text[text.index(after: equals)...])
    }

    /// `NODE.PARAM` set to `value`, from `origin` (a manifest's `FILE:LINE`), as a batch item's setting.
    public init(node: String, parameter: String, value: String, origin: String) {
        (self.node, self.parameter, self.value, self.origin) = (node, parameter, value, origin)
        text = "\(node).\(parameter)=\(value)"
    }

    var location: SourceLocation { SourceLocation(file: origin.map { "\($0): \(text)" } ?? "--set \(text)") }
}

extension Graph {
    /// Reads and validates the graph file at `path` (YAML, or JSON when it ends in `.json`).
    /// `maxOutputPixels` is the run's output limit, checked here where the parameters fix a size;
    /// `outputPaths` rewrites the paths of the files nodes write (``ParameterContext/outputPaths``).
    ///
    /// - Throws: ``GraphErrors`` with every problem found (warnings included) when there is an error.
    public static func load(
        path: String, catalog: Catalog, overrides: [ParameterOverride] = [],
        maxOutputPixels: Int = OutputLimit.defaultPixels,
        outputPaths: (@Sendable (String) throws(ParameterProblem) -> String)? = nil
    ) throws(GraphErrors) -> Graph {
        try parse(
            text(ofFile: path), file: path, baseFolder: (path as NSString).deletingLastPathComponent,
            catalog: catalog, overrides: overrides, maxOutputPixels: maxOutputPixels, outputPaths: outputPaths)
    }

    /// The text of the graph file at `path`, or the error naming it.
    package static func text(ofFile path: String) throws(GraphErrors) -> String {
        if let problem = SpecialFile.problem(path) {
            throw GraphErrors(diagnostics: [.error(SourceLocation(file: path), problem)])
        }
        do {
            return try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            let reason = FileManager.default.fileExists(atPath: path) ? "cannot read the file" : "no such file"
            throw GraphErrors(diagnostics: [.error(SourceLocation(file: path), reason)])
        }
    }

    /// Validates graph text: strict JSON when `file` ends in `.json`, YAML (1.2) otherwise. Relative paths
    /// in it resolve against `baseFolder`; `file` names it in messages.
    public static func parse(
        _ text: String, file: String, baseFolder: String, catalog: Catalog, overrides: [ParameterOverride] = [],
        maxOutputPixels: Int = OutputLimit.defaultPixels,
        outputPaths: (@Sendable (String) throws(ParameterProblem) -> String)? = nil
    ) throws(GraphErrors) -> Graph {
        let (document, parseDiagnostics) = DocumentParser.parse(text, file: file)
        var validator = GraphValidator(
            file: file, catalog: catalog, context: ParameterContext(baseFolder: baseFolder, outputPaths: outputPaths),
            diagnostics: parseDiagnostics, maxOutputPixels: maxOutputPixels)
        let nodes = document.flatMap { validator.validate($0, overrides: overrides) }
        let diagnostics = validator.diagnostics.enumerated().sorted {
            ($0.element.location, $0.offset) < ($1.element.location, $1.offset)
        }.map(\.element)
        guard let nodes, !diagnostics.contains(where: { $0.severity == .error }) else {
            throw GraphErrors(diagnostics: diagnostics)
        }
        return Graph(file: file, nodes: nodes, warnings: diagnostics)
    }
}
