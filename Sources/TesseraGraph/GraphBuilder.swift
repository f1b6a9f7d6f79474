import TesseraCatalog
import Foundation
import TesseraCore

/// A graph written in code instead of a file: the same nodes, keys and values as a graph file, checked
/// by the same validator (a mistake gives the same message, pointing into the JSON the builder wrote).
///
///     var builder = GraphBuilder()
///     builder.add("photo", op: "load", ["path": "photo.png"])
///     builder.add("soft", op: "gaussianBlur", ["input": "photo", "sigma": 4])
///     let graph = try builder.build(catalog: .builtin())
public struct GraphBuilder: Sendable {
    private var nodes: [(name: String, op: String, settings: [String: Literal])] = []

    public init() {}

    /// Adds node `name` of kind `op`; `settings` holds its inputs (node names, or `node.port`) and
    /// parameters, as a graph file writes them.
    public mutating func add(_ name: String, op: String, _ settings: [String: Literal] = [:]) {
        nodes.append((name, op, settings))
    }

    /// The graph as JSON text, a graph file's content.
    public var json: String {
        // Nodes keep the order they were added in: the validator breaks ties in file order.
        let entries = nodes.map { node -> String in
            var object = node.settings.mapValues(\.jsonObject)
            object["op"] = node.op
            let body = JSON.text(object).trimmingCharacters(in: .whitespacesAndNewlines)
            return "    \"\(JSONText.escape(node.name))\": " + body.replacingOccurrences(of: "\n", with: "\n    ")
        }
        return "{\n  \"version\": 1,\n  \"nodes\": {\n" + entries.joined(separator: ",\n") + "\n  }\n}\n"
    }

    /// The validated graph; relative paths resolve against `baseFolder` (the current folder by default).
    ///
    /// - Throws: ``GraphErrors`` with every problem, as for a file named `file`.
    public func build(
        catalog: Catalog, baseFolder: String = FileManager.default.currentDirectoryPath, file: String = "graph in code",
        overrides: [ParameterOverride] = []
    ) throws(GraphErrors) -> Graph {
        try Graph.parse(json, file: file, baseFolder: baseFolder, catalog: catalog, overrides: overrides)
    }
}
