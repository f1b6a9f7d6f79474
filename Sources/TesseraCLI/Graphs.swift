import ArgumentParser
import Foundation
import Tessera

/// What every command that reads graph files shares: `--set` overrides, loading, and error reporting.
struct GraphOptions: ParsableArguments {
    @Option(
        name: .customLong("set"),
        help: ArgumentHelp(
            "Override a parameter: NODE.PARAMETER=VALUE (repeatable). The value is read as in the file; "
                + "relative paths are relative to the current folder.", valueName: "node.param=value"))
    var overrides: [String] = []

    /// The validated graph at `path`; problems go to stderr and end the command with status 2.
    func load(_ path: String, catalog: Catalog) throws -> Graph {
        do {
            let overrides = try self.overrides.map { text throws(GraphErrors) in try ParameterOverride(parsing: text) }
            let graph = try Graph.load(path: path, catalog: catalog, overrides: overrides)
            report(graph.warnings)
            return graph
        } catch {
            report(error.diagnostics)
            throw ExitCode(2)
        }
    }
}

/// Prints diagnostics to stderr, one per line.
func report(_ diagnostics: [Diagnostic]) {
    for diagnostic in diagnostics { FileHandle.standardError.write(Data("\(diagnostic)\n".utf8)) }
}

struct Validate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check graph files: syntax, node kinds, parameters, connections and cycles.",
        discussion: """
            Every problem is reported as FILE:LINE:COLUMN: error: MESSAGE, with the valid names or the allowed \
            range. Exits with status 2 if any graph has an error; warnings do not fail.
            """)

    @Argument(help: "Graph files (.yaml, .yml or .json).")
    var graphs: [String]

    @OptionGroup var options: GraphOptions

    func run() throws {
        let catalog = Catalog.builtin()
        var failed = false
        for path in graphs {
            do {
                let graph = try options.load(path, catalog: catalog)
                print("\(path): ok (\(graph.nodes.count) nodes)")
            } catch {
                failed = true
            }
        }
        if failed { throw ExitCode(2) }
    }
}

struct Run: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run a graph file.",
        discussion: """
            The graph is validated first (status 2 on errors). Nodes run in dependency order; a node that \
            fails stops the run with status 1, and no file is left half-written.
            """)

    @Argument(help: "The graph file (.yaml, .yml or .json).")
    var graph: String

    @OptionGroup var options: GraphOptions

    func run() throws {
        let graph = try options.load(graph, catalog: Catalog.builtin())
        do {
            try graph.run()
        } catch {
            FileHandle.standardError.write(Data("\(error)\n".utf8))
            throw ExitCode(1)
        }
        for node in graph.nodes {
            for parameter in node.declaration.parameters where parameter.type == .path(isOutput: true) {
                if case .value(let path as OutputPath) = node.parameters[parameter.name]?.source {
                    print("Wrote \(path.resolved)")
                }
            }
        }
    }
}

struct Dot: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print a graph in Graphviz's dot language (tessera dot g.yaml | dot -Tsvg > g.svg).")

    @Argument(help: "The graph file.")
    var graph: String

    @OptionGroup var options: GraphOptions

    func run() throws {
        print(try options.load(graph, catalog: Catalog.builtin()).dot, terminator: "")
    }
}

struct Nodes: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the nodes, or show one: ports, parameters (type, default, range, doc) and an example.")

    @Argument(help: "A node's name, as gaussianBlur.")
    var name: String?

    @Flag(help: "Print the catalog as JSON.")
    var json = false

    @Flag(help: "Print the node reference as Markdown (Docs/Nodes.md).")
    var markdown = false

    func run() throws {
        let catalog = Catalog.builtin()
        guard let name else {
            print(json ? catalog.json : markdown ? catalog.markdown : catalog.table, terminator: "")
            return
        }
        guard let declaration = catalog.declaration(op: name) else {
            let hint = catalog.suggestion(for: name).map { "; did you mean '\($0)'?" } ?? ""
            FileHandle.standardError.write(Data("Error: no node named '\(name)'\(hint)\n".utf8))
            throw ExitCode(1)
        }
        print(json ? declaration.json : markdown ? declaration.markdown : declaration.text, terminator: "")
    }
}

struct Schema: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the JSON Schema (2020-12) of graph files, with every node's parameters.",
        discussion: "The repository commits it as tessera.schema.json, for editors that complete and check YAML.")

    func run() throws {
        print(Catalog.builtin().jsonSchema, terminator: "")
    }
}
