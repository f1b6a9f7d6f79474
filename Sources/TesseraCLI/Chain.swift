import ArgumentParser
import Foundation
import Tessera

/// `tessera chain IN "contrast amount=1.5 | gaussianBlur sigma=2" OUT`: a graph in one line, as `vips`
/// and ImageMagick take a job, with the nodes, parameters and checks of graph files.
struct ChainCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "chain",
        abstract: "Run a one-line chain of nodes on an image: tessera chain IN \"STEP | STEP ...\" OUT.",
        discussion: """
            Each step is an op and its parameters as name=value, written as in a graph file \
            (rect=[0,0,100,80], aspectRatio=4:3); steps are separated by |, and each reads the one before. \
            name=@step connects another input to an earlier step (@in is the image read). The chain is the \
            graph `--emit-graph` prints (a load of IN, the steps, a save to OUT), checked by the same \
            validator: an error points at its column in the chain. Paths are relative to the current folder. \
            OUT takes the save node's options in brackets, as vips does: out.jpg[Q=82,strip] (vips' Q, \
            compression, interlace, lossless, bitdepth, strip, tile, profile, or the save node's own names); \
            --set out.quality=82 sets them too, and --set sets any step's parameter (in, out, or the step's \
            op, numbered from the second of the same op: contrast2).
            """)

    @Argument(help: "The image to read.")
    var input: String

    @Argument(help: ArgumentHelp("The steps, as \"contrast amount=1.5 | gaussianBlur sigma=2\".", valueName: "chain"))
    var chain: String

    @Argument(
        help: ArgumentHelp(
            "The image to write (its extension names the format), its save options in brackets if any: "
                + "out.jpg[Q=82].", valueName: "output"))
    var output: String

    @Option(
        name: .customLong("set"),
        help: ArgumentHelp(
            "Set a parameter of a node of the chain: NODE.PARAMETER=VALUE (repeatable), as out.quality=82 for the "
                + "save of OUT, in.maxPixels=1000000 for the load of IN.", valueName: "node.param=value"))
    var overrides: [String] = []

    @Flag(help: "Print the equivalent graph file (YAML) to start a graph from, and stop.")
    var emitGraph = false

    @OptionGroup var plugins: PluginOptions
    @OptionGroup var running: RunArguments

    func run() throws {
        let parsed: Chain
        do {
            parsed = try Chain(parsing: chain)
        } catch {
            show(error.message, at: error.column)
            throw ExitCode(2)
        }
        // The chain ends in a save of OUT: a save step could only be a second one, with nothing after it.
        if let save = parsed.steps.first(where: { $0.op.text == "save" }) {
            show(
                "the chain saves to \(output) already: set its options with --set out.quality=82 or "
                    + "\(output)[Q=82] (vips' way), not a save step; to write more files, start a graph from "
                    + "--emit-graph", at: save.op.column)
            throw ExitCode(2)
        }
        let catalog = try plugins.catalog()
        let written: OutputOptions
        do {
            let parameters = catalog.declaration(op: "save")?.parameters.map(\.name) ?? []
            written = try OutputOptions(parsing: output, parameters: parameters)
        } catch {
            StandardError.line("error: \(error)")
            throw ExitCode(2)
        }
        let saving = written.settings.map { (name: $0.name, value: $0.value) }
        let text = parsed.graphText(reading: input, writing: written.path, saving: saving, catalog: catalog)
        if emitGraph {
            StandardOutput.print(
                "# tessera chain \(shellQuoted(input)) \(shellQuoted(chain)) \(shellQuoted(output))\n" + text,
                terminator: "")
            return
        }
        let limits = running.loadLimits.map { "\(Chain.inputNode).\($0.key)=\($0.value)" }
        let graph: Graph
        do {
            let settings = try (limits.sorted() + overrides).map { text throws(GraphErrors) in
                try ParameterOverride(parsing: text)
            }
            graph = try Graph.parse(
                text, file: "chain", baseFolder: FileManager.default.currentDirectoryPath, catalog: catalog,
                overrides: settings, maxOutputPixels: running.maxOutputPixels)
        } catch {
            for diagnostic in error.diagnostics {
                report(diagnostic.message, at: diagnostic.location, in: parsed, catalog)
            }
            throw ExitCode(2)
        }
        try running.execute(graph) { error in
            report(error.statement, at: error.location, in: parsed, catalog, plainly: error.message)
        }
    }

    /// An error of the graph the chain stands for, at its column in the chain. One of the load or the save
    /// the chain adds is about the file: it is named instead (`plainly` is the message without the node).
    private func report(
        _ message: String, at location: SourceLocation, in parsed: Chain, _ catalog: Catalog, plainly: String? = nil
    ) {
        let path = OutputOptions.path(of: output)
        if let column = parsed.column(of: location, reading: input, writing: path, catalog: catalog) {
            show(message, at: column)
            return
        }
        var text = plainly ?? message
        for (node, path, written) in [(Chain.inputNode, input, input), (Chain.outputNode, path, output)] {
            if text.hasPrefix(node + ".path: ") {
                text = path + ": " + text.dropFirst(node.count + 7)
            } else if text.hasPrefix(node + ".") {
                // Another setting of the load or the save (a --set, or OUT's brackets): named by its file.
                text = written + ": " + text.dropFirst(node.count + 1)
            }
        }
        StandardError.line("error: \(text)")
    }

    /// `chain:1:COLUMN: error: MESSAGE`, the chain, and a caret under the column.
    private func show(_ message: String, at column: Int) {
        let caret = String(repeating: " ", count: max(column - 1, 0)) + "^"
        StandardError.write("chain:1:\(column): error: \(message)\n  \(chain)\n  \(caret)\n")
    }

    private func shellQuoted(_ text: String) -> String {
        text.allSatisfy { $0.isLetter || $0.isNumber || "._-/".contains($0) }
            ? text : "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
