import ArgumentParser
import Dispatch
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
    ///
    /// `defaults` sets a parameter (by name, as `maxMemory`) on every node that declares it, as a `--set`
    /// written before the user's, so an explicit `--set` still wins.
    func load(
        _ path: String, catalog: Catalog, defaults: [String: String] = [:],
        maxOutputPixels: Int = RunOptions.defaultMaxOutputPixels
    ) throws -> Graph {
        do {
            var overrides = try self.overrides.map { text throws(GraphErrors) in try ParameterOverride(parsing: text) }
            if !defaults.isEmpty {
                var settings: [ParameterOverride] = []
                for node in try Graph.loadFillingTemplates(
                    path: path, catalog: catalog, overrides: overrides, maxOutputPixels: maxOutputPixels
                ).nodes {
                    for parameter in node.declaration.parameters {
                        guard let value = defaults[parameter.name] else { continue }
                        settings.append(try ParameterOverride(parsing: "\(node.name).\(parameter.name)=\(value)"))
                    }
                }
                overrides = settings + overrides
            }
            let graph = try Graph.loadFillingTemplates(
                path: path, catalog: catalog, overrides: overrides, maxOutputPixels: maxOutputPixels)
            report(graph.warnings)
            return graph
        } catch {
            report(error.diagnostics)
            throw ExitCode(2)
        }
    }
}

/// Where the nodes come from: the built-ins, the plugins found in `TESSERA_PLUGIN_PATH`'s folders and in
/// a `plugins` folder beside the executable, and those named with `--plugin`.
struct PluginOptions: ParsableArguments {
    @Option(
        name: .customLong("plugin"),
        help: ArgumentHelp(
            "Load the nodes of a plugin shared library (repeatable), after those found in TESSERA_PLUGIN_PATH's "
                + "folders and in a plugins folder beside the executable.", valueName: "path"))
    var plugins: [String] = []

    /// The catalog; a plugin that cannot be used ends the command with status 1, naming the file.
    func catalog() throws -> Catalog {
        var catalog = Catalog.builtin()
        do {
            try catalog.loadPlugins(Plugin.searchPath() + plugins)
        } catch {
            StandardError.line("Error: \(error)")
            throw ExitCode(1)
        }
        return catalog
    }
}

/// Prints diagnostics to stderr, one per line.
func report(_ diagnostics: [Diagnostic]) {
    for diagnostic in diagnostics { StandardError.line("\(diagnostic)") }
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
    @OptionGroup var plugins: PluginOptions

    @Option(help: "The output limit `run` will have (2^32 by default), checked where the parameters fix a size.")
    var maxOutputPixels: Int = RunOptions.defaultMaxOutputPixels

    func run() throws {
        let catalog = try plugins.catalog()
        var failed = false
        for path in graphs {
            do {
                let graph = try options.load(path, catalog: catalog, maxOutputPixels: maxOutputPixels)
                StandardOutput.print("\(path): ok (\(graph.nodes.count) nodes)")
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
            The graph is validated first (status 2 on errors). Sinks pull their pixels through the graph tile \
            by tile, on all cores; the result is the same for every thread count and tile size. A node that \
            fails stops the run with status 1; Ctrl-C stops it with status 130. Either way no output file is \
            left half-written.
            """)

    @Argument(help: "The graph file (.yaml, .yml or .json).")
    var graph: String

    @OptionGroup var options: GraphOptions
    @OptionGroup var plugins: PluginOptions
    @OptionGroup var running: RunArguments

    @Option(
        name: .customLong("input"),
        help: ArgumentHelp(
            "Supply an `input` node's image from a file: NODE=FILE (repeatable). It must have the size and "
                + "channels the node declares.", valueName: "node=file"))
    var inputs: [String] = []

    func validate() throws {
        for input in inputs where !input.contains("=") || input.hasPrefix("=") || input.hasSuffix("=") {
            throw ValidationError("--input takes NODE=FILE, as photo=photo.png, not '\(input)'")
        }
    }

    /// The images of `--input NODE=FILE`, read from their files (headers now, pixels as the run reads
    /// them) and held to what their nodes declare; problems end the command with status 2.
    func suppliedImages(for graph: Graph) throws -> [String: NodeValue] {
        var supplied: [String: NodeValue] = [:]
        do {
            for input in inputs {
                let (node, path) = (String(input.prefix { $0 != "=" }), String(input.drop { $0 != "=" }.dropFirst()))
                supplied[node] = .image(try ImageFile.load(path: path, options: running.decodeOptions).1)
            }
            try graph.check(supplying: supplied)
        } catch {
            StandardError.report(error)
            throw ExitCode(2)
        }
        return supplied
    }

    func run() throws {
        let graph = try options.load(
            graph, catalog: plugins.catalog(), defaults: running.loadLimits, maxOutputPixels: running.maxOutputPixels)
        try running.execute(graph, supplying: suppliedImages(for: graph))
    }
}

/// How `run` and `chain` run a graph: threads, tiles, limits, progress, trace, stats, plan and JSON.
struct RunArguments: ParsableArguments {
    @Option(help: "Worker threads rendering tiles, 1 to \(RunOptions.maximumThreads) (default: one per core).")
    var threads: Int = RunOptions.cores

    @Option(
        help: ArgumentHelp(
            "The side of the square tiles rendered and cached, in pixels, \(RunOptions.tileSizes.lowerBound) to "
                + "\(RunOptions.tileSizes.upperBound)."))
    var tileSize: Int = RunOptions.defaultTileSize

    @Option(
        help: ArgumentHelp(
            "Refuse to write an image of more pixels than this (2^32 by default), before its file is opened; "
                + "raise it for larger outputs."))
    var maxOutputPixels: Int = RunOptions.defaultMaxOutputPixels

    @Flag(name: .shortAndLong, help: "Print nothing but errors: no progress bar and no list of written files.")
    var quiet = false

    @Option(
        help:
            "Set maxPixels on every load node (and run --input files): refuse images whose header claims more pixels than this."
    )
    var maxPixels: Int?

    @Option(
        help: ArgumentHelp(
            "Set maxMemory on every load node (and run --input files): refuse images whose decoding needs more "
                + "memory than this at once "
                + "(bytes, or with K, M, G). Default: sized to each file, 128M or 1032 bytes a byte of it, at "
                + "most a quarter of the physical memory.", valueName: "bytes"))
    var maxMemory: String?

    @Option(
        help: ArgumentHelp("Set failOn on every load node (and run --input files). " + failOnHelp, valueName: "level"))
    var failOn: FailOn?

    @Option(help: "Write a Chrome trace-event JSON file (one span per node per tile; open it in ui.perfetto.dev).")
    var trace: String?

    @Flag(help: "Print each node's time, pixels and cache memory to stderr when done.")
    var stats = false

    @Flag(help: "Print the render plan (the passes, and how each image is served) and stop before running.")
    var plan = false

    @Option(
        help: ArgumentHelp(
            "Keep an image the plan keeps whole (a source read in several passes) in a temporary file when it "
                + "takes more than this (bytes, or with K, M, G; default 512M), as libvips' disc threshold.",
            valueName: "bytes"))
    var diskThreshold: String?

    @Flag(
        help: ArgumentHelp(
            "Print one JSON object on stdout when done: the files written and the value of every result "
                + "(an output that is not an image and that no node's input reads), as Docs/schemas/ describe."))
    var json = false

    func validate() throws {
        if let problem = RunOptions.problem(threads: threads, tileSize: tileSize, maxOutputPixels: maxOutputPixels) {
            throw ValidationError(problem)
        }
        if let maxPixels, maxPixels <= 0 { throw ValidationError("--max-pixels must be positive") }
        try checkBytes("--max-memory", maxMemory)
        try checkBytes("--disk-threshold", diskThreshold)
    }

    /// `--max-pixels` and `--max-memory` as the limits of a file the command reads itself (`--input`).
    var decodeOptions: DecodeOptions {
        DecodeOptions(
            maxPixels: maxPixels ?? DecodeOptions().maxPixels, maxMemory: maxMemory.flatMap(DecodeOptions.parseBytes),
            failOn: failOn ?? .none)
    }

    /// `--max-pixels` and `--max-memory` as settings of every load node, by parameter name.
    var loadLimits: [String: String] {
        var limits: [String: String] = [:]
        if let maxPixels { limits["maxPixels"] = "\(maxPixels)" }
        if let bytes = maxMemory.flatMap(DecodeOptions.parseBytes) { limits["maxMemory"] = "\(bytes)" }
        if let failOn { limits["failOn"] = failOn.rawValue }
        return limits
    }

    /// Runs a validated graph as these arguments say, with `supplied` images for its input nodes: a bar
    /// on a terminal, Ctrl-C and SIGTERM stopping it cleanly (status 130), a failure with status 1.
    ///
    /// `reporting` shows a failure of a node at its place (`chain` points into its line); by default the
    /// error is printed as `FILE:LINE:COLUMN: error: ...`.
    func execute(
        _ graph: Graph, supplying supplied: [String: NodeValue] = [:], reporting: ((RunError) -> Void)? = nil
    ) throws {
        func fail(_ error: any Error) {
            if let reporting, let error = error as? RunError {
                reporting(error)
            } else {
                StandardError.report(error)
            }
        }
        // A trace that cannot be written is found now, not after a long run.
        if let trace, let problem = FileSystem.writeProblem(trace) {
            StandardError.write("\(problem) (the --trace file)\n")
            throw ExitCode(1)
        }
        let cancellation = Cancellation()
        let interrupt = Interrupt(cancelling: cancellation)
        defer { interrupt.stop() }
        let bar = quiet || isatty(STDERR_FILENO) == 0 ? nil : ProgressBar()
        var progress: (@Sendable (Double) -> Void)?
        if let bar { progress = { bar.show($0) } }
        var runOptions = RunOptions(
            threads: threads, tileSize: tileSize, tracing: trace != nil, progress: progress, cancellation: cancellation,
            collectsValues: json, maxOutputPixels: maxOutputPixels,
            diskThreshold: diskThreshold.flatMap(DecodeOptions.parseBytes) ?? RunOptions.defaultDiskThreshold)
        if plan {
            do {
                StandardOutput.print(
                    try graph.plan(options: runOptions, supplying: supplied).description, terminator: "")
            } catch {
                fail(error)
                throw ExitCode(1)
            }
            return
        }
        do {
            try graph.createOutputFolders(templatesOnly: true)
        } catch {
            fail(error)
            throw ExitCode(1)
        }
        let report: RunReport
        do {
            report = try graph.run(options: runOptions, supplying: supplied)
            bar?.finish()
        } catch {
            bar?.finish()
            if error.isCancellation || cancellation.isCancelled {
                StandardError.write("tessera: interrupted; no output was left half-written\n")
                throw ExitCode(130)
            }
            fail(error)
            throw ExitCode(1)
        }
        if let trace {
            do {
                try FileSystem.write(report.traceJSON(), atomicallyTo: trace)
            } catch {
                StandardError.line("\(error) (the --trace file)")
                throw ExitCode(1)
            }
        }
        if stats { StandardError.write(report.statsTable()) }
        if json {
            StandardOutput.print(graph.resultJSON(of: report), terminator: "")
            return
        }
        if quiet { return }
        for file in graph.writtenFiles { StandardOutput.print("Wrote \(file)") }
    }
}

/// Turns the first Ctrl-C into a cancellation, so workers stop and the run unwinds cleanly; a second
/// one ends the process at once (temporary files are still removed). The signal handler only sets a
/// flag (a plain handler works whichever thread the signal lands on); a timer passes it on.
final class Interrupt {
    private let timer: any DispatchSourceTimer

    init(cancelling cancellation: Cancellation) {
        Signals.catchInterrupts()
        timer = DispatchSource.makeTimerSource(queue: .global())
        timer.schedule(deadline: .now(), repeating: .milliseconds(20))
        timer.setEventHandler {
            if Signals.interrupted { cancellation.cancel() }
        }
        timer.resume()
    }

    func stop() {
        timer.cancel()
        Signals.removeTemporaryFilesOnInterrupt()
    }
}

/// A one-line progress bar on stderr, redrawn when the shown percentage changes.
final class ProgressBar: Sendable {
    private let shown = Locked(-1)

    func show(_ fraction: Double) {
        let percent = Int(fraction * 100)
        let changed = shown.withLock { shown in
            guard percent != shown else { return false }
            shown = percent
            return true
        }
        guard changed else { return }
        let width = 40
        let filled = width * percent / 100
        let line =
            "\r[" + String(repeating: "#", count: filled) + String(repeating: " ", count: width - filled)
            + "] \(percent)%"
        StandardError.write(line)
    }

    func finish() {
        if shown.withLock({ $0 }) >= 0 { StandardError.write("\r\u{1B}[K") }
    }
}

struct Dot: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print a graph in Graphviz's dot language (tessera dot g.yaml | dot -Tsvg > g.svg).")

    @Argument(help: "The graph file.")
    var graph: String

    @OptionGroup var options: GraphOptions
    @OptionGroup var plugins: PluginOptions

    @Flag(
        help:
            "Show the render plan on the graph: each pass, and how each image is served (the sources' headers are read)."
    )
    var plan = false

    func run() throws {
        let loaded = try options.load(graph, catalog: plugins.catalog())
        guard plan else {
            StandardOutput.print(loaded.dot, terminator: "")
            return
        }
        do {
            StandardOutput.print(loaded.dot(plan: try loaded.plan()), terminator: "")
        } catch {
            StandardError.report(error)
            throw ExitCode(1)
        }
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

    @OptionGroup var plugins: PluginOptions

    func run() throws {
        let catalog = try plugins.catalog()
        guard let name else {
            StandardOutput.print(json ? catalog.json : markdown ? catalog.markdown : catalog.table, terminator: "")
            return
        }
        guard let declaration = catalog.declaration(op: name) else {
            let hint = catalog.suggestion(for: name).map { "; did you mean '\($0)'?" } ?? ""
            StandardError.write("Error: no node named '\(name)'\(hint)\n")
            throw ExitCode(1)
        }
        StandardOutput.print(
            json ? declaration.json : markdown ? declaration.markdown : declaration.text, terminator: "")
    }
}

struct Schema: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the JSON Schema (2020-12) of graph files, with every node's parameters.",
        discussion: "The repository commits it as tessera.schema.json, for editors that complete and check YAML.")

    @OptionGroup var plugins: PluginOptions

    func run() throws {
        StandardOutput.print(try plugins.catalog().jsonSchema, terminator: "")
    }
}
