import ArgumentParser
import Foundation
import Tessera

struct BatchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "batch",
        abstract: "Run a graph over many images: files, folders, globs or a manifest; resumable and sharded.",
        discussion: """
            Each input sets the graph's bound parameter (by default the path of its only file-reading node, \
            as photo.path) and the graph runs once for it. Output paths may name the input's fields: {stem}, \
            {name}, {ext}, {dir} (its folder under the folder given, so trees are mirrored) and {index}, as in \
            --set out.path='thumbs/{dir}/{stem}.jpg'. With --output-dir every output goes into that folder \
            under {dir} (never above it: a manifest's .. does not climb), named by its template's file name \
            ({stem}- is put before a name without a field). \
            Two items that would write the same file, or an output over an input, are refused before anything \
            runs. Items run several at once on --threads threads; a failed item is reported on one line and \
            the others go on (status 1 at the end). Sharding: --shard i/n, or Slurm's SLURM_ARRAY_TASK_ID and \
            SLURM_ARRAY_TASK_COUNT, or Kubernetes' JOB_COMPLETION_INDEX with --shards n (Docs/Cluster.md).
            """)

    @Argument(help: "The graph file (.yaml, .yml or .json).")
    var graph: String

    @Argument(help: "Image files, folders (searched at any depth) or quoted globs.")
    var inputs: [String] = []

    @Option(
        help: ArgumentHelp(
            "Items from a file instead: CSV with a header row of NODE.PARAM names, or JSON Lines (.jsonl) of "
                + "{\"NODE.PARAM\": value} objects; one item a row.", valueName: "file"))
    var manifest: String?

    @Option(
        help: ArgumentHelp(
            "The parameter each input sets (default: the graph's only file to read).", valueName: "node.param"))
    var bind: String?

    @Option(
        help: ArgumentHelp("Write every output into this folder, mirroring the inputs' folders.", valueName: "folder"))
    var outputDir: String?

    @OptionGroup var options: GraphOptions
    @OptionGroup var plugins: PluginOptions

    @Option(
        help:
            "Threads for the whole batch, shared by the items running at once and their tiles (default: one per core).")
    var threads: Int = RunOptions.cores

    @Option(help: ArgumentHelp("The side of the square tiles rendered, in pixels."))
    var tileSize: Int = RunOptions.defaultTileSize

    @Option(
        help: ArgumentHelp(
            "The memory the items running at once may hold together, as their plans estimate it (bytes, or with "
                + "K, M, G). Default: a quarter of the physical memory.", valueName: "bytes"))
    var memory: String?

    @Option(help: "Refuse to write an image of more pixels than this (2^32 by default).")
    var maxOutputPixels: Int = RunOptions.defaultMaxOutputPixels

    @Option(help: ArgumentHelp("Set failOn on every load node. " + failOnHelp, valueName: "level"))
    var failOn: FailOn?

    @Flag(help: "Stop at the first failed item (running items are cancelled; their outputs are not written).")
    var failFast = false

    @Flag(help: "Skip items whose outputs exist and are newer than their input and the graph.")
    var resume = false

    @Option(
        help: ArgumentHelp(
            "Write one JSON line per item: input, outputs, seconds, status, error, and the values of the graph's "
                + "results (boxes, faces, ...).", valueName: "file.jsonl"))
    var report: String?

    @Option(
        help: ArgumentHelp(
            "Run only shard I of N (I from 0): every N-th item of the sorted list from the I-th.", valueName: "i/n"))
    var shard: String?

    @Option(
        help: ArgumentHelp(
            "The number of shards, with Kubernetes' JOB_COMPLETION_INDEX (the Job's completions) or a Slurm task id "
                + "taken as the shard (to redo one shard, or with an array that is not 0-N)."))
    var shards: Int?

    @Flag(name: .shortAndLong, help: "Print nothing but errors: no progress bar and no summary.")
    var quiet = false

    func validate() throws {
        if let problem = RunOptions.problem(threads: threads, tileSize: tileSize, maxOutputPixels: maxOutputPixels) {
            throw ValidationError(problem)
        }
        try checkBytes("--memory", memory)
        if let shard, Self.parseShard(shard) == nil {
            throw ValidationError("--shard must be I/N with 0 <= I < N, as 0/4, not '\(shard)'")
        }
        if let shards, shards < 1 { throw ValidationError("--shards must be positive, not \(shards)") }
        if inputs.isEmpty && manifest == nil {
            throw ValidationError("no inputs: give files, folders or globs after the graph, or --manifest")
        }
    }

    static func parseShard(_ text: String) -> (index: Int, count: Int)? {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]), count > 0,
            (0..<count).contains(index)
        else { return nil }
        return (index, count)
    }

    /// The shard to run: `--shard`, else Slurm's array task, else Kubernetes' completion index; nil for
    /// all items. With `--shards N`, a Slurm task's id is its shard (so `--array=3` redoes shard 3 of N);
    /// without it, the array must be one range with step 1 (`--array=0-9` or `1-10`), and its tasks are
    /// counted from its first.
    func chosenShard(_ environment: [String: String]) throws -> (index: Int, count: Int)? {
        if let shard { return Self.parseShard(shard) }
        if let id = environment["SLURM_ARRAY_TASK_ID"].flatMap(Int.init) {
            if let shards {
                guard (0..<shards).contains(id) else {
                    throw BatchError(
                        "SLURM_ARRAY_TASK_ID \(id) is not a shard from 0 to \(shards - 1) (--shards \(shards))")
                }
                return (id, shards)
            }
            let number = { (name: String) in environment[name].flatMap(Int.init) }
            guard let count = number("SLURM_ARRAY_TASK_COUNT"), let first = number("SLURM_ARRAY_TASK_MIN"),
                let last = number("SLURM_ARRAY_TASK_MAX"), count > 0, last - first + 1 == count,
                (first...last).contains(id)
            else {
                throw BatchError(
                    "this Slurm array is not one range with step 1 (as --array=0-9): give --shards N, and "
                        + "task ids from 0 to N-1")
            }
            return (id - first, count)
        }
        if let text = environment["JOB_COMPLETION_INDEX"] {
            guard let shards else {
                throw BatchError("JOB_COMPLETION_INDEX is set: give --shards N, the Job's completions")
            }
            guard let index = Int(text), (0..<shards).contains(index) else {
                throw BatchError("JOB_COMPLETION_INDEX \(text) is not from 0 to \(shards - 1) (--shards \(shards))")
            }
            return (index, shards)
        }
        if shards != nil {
            throw BatchError("--shards needs SLURM_ARRAY_TASK_ID or JOB_COMPLETION_INDEX; or give --shard I/N")
        }
        return nil
    }

    func run() throws {
        let catalog = try plugins.catalog()
        var overrides: [ParameterOverride]
        do {
            overrides = try options.overrides.map { text throws(GraphErrors) in try ParameterOverride(parsing: text) }
            if let failOn {
                // Set on every node that reads files with it, before the user's own --set (which wins).
                let sample = try Graph.load(
                    path: graph, catalog: catalog, overrides: overrides, maxOutputPixels: maxOutputPixels,
                    outputPaths: nil)
                let settings = try sample.nodes.filter { node in
                    node.declaration.parameters.contains { $0.name == "failOn" }
                }.map { node throws(GraphErrors) in
                    try ParameterOverride(parsing: "\(node.name).failOn=\(failOn.rawValue)")
                }
                overrides = settings + overrides
            }
        } catch {
            TesseraCLI.report(error.diagnostics)
            throw ExitCode(2)
        }
        let batch: Batch
        let shard: (index: Int, count: Int)?
        do {
            batch = try Batch(
                graph: graph, catalog: catalog, overrides: overrides, bind: bind, inputs: inputs, manifest: manifest,
                outputFolder: outputDir, maxOutputPixels: maxOutputPixels)
            shard = try chosenShard(ProcessInfo.processInfo.environment)
        } catch let errors as GraphErrors {
            TesseraCLI.report(errors.diagnostics)
            throw ExitCode(2)
        } catch {
            StandardError.line("Error: \(error)")
            throw ExitCode(2)
        }
        if let outputDir {
            do {
                try Graph.createFolder(outputDir)
            } catch {
                StandardError.line("Error: --output-dir \(error)")
                throw ExitCode(2)
            }
        }
        if let report, let problem = FileSystem.writeProblem(report) {
            StandardError.write("\(problem) (the --report file)\n")
            throw ExitCode(2)
        }
        let items = shard.map { BatchInputs.shard(batch.items, index: $0.index, of: $0.count) } ?? batch.items
        let previous = resume ? report.map(PreviousReport.init(path:)) : nil

        let cancellation = Cancellation()
        let interrupt = Interrupt(cancelling: cancellation)
        defer { interrupt.stop() }
        let bar = quiet || isatty(STDERR_FILENO) == 0 ? nil : BatchProgressBar()
        var batchOptions = BatchOptions()
        batchOptions.threads = threads
        batchOptions.tileSize = tileSize
        batchOptions.memory = memory.flatMap(DecodeOptions.parseBytes) ?? Batch.defaultMemory
        batchOptions.failFast = failFast
        batchOptions.resume = resume
        batchOptions.collectsValues = report != nil
        batchOptions.maxOutputPixels = maxOutputPixels
        batchOptions.cancellation = cancellation
        if let bar { batchOptions.progress = { bar.show($0) } }
        batchOptions.itemEnded = { result in
            guard result.status == .failed, let error = result.error else { return }
            bar?.clear()
            let named =
                result.item.input.map { error.contains($0) ? error : "\($0): \(error)" }
                ?? "item \(result.item.index): \(error)"
            StandardError.line("\(named)")
        }
        let start = Date()
        let results = batch.run(items, options: batchOptions)
        bar?.clear()
        let interrupted = cancellation.isCancelled && !results.contains { $0.status == .failed }

        if let report {
            let lines = results.map { result in
                result.status == .skipped ? previous?.line(for: result) ?? result.jsonLine : result.jsonLine
            }
            do {
                try FileSystem.write(lines.map { $0 + "\n" }.joined(), atomicallyTo: report)
            } catch {
                StandardError.line("\(error) (the --report file)")
                throw ExitCode(1)
            }
        }
        let failed = results.filter { $0.status == .failed }.count
        if interrupted {
            StandardError.write(
                "tessera: interrupted; no output was left half-written (--resume goes on from here)\n")
            throw ExitCode(130)
        }
        if !quiet {
            let count = { (status: BatchResult.Status) in results.filter { $0.status == status }.count }
            var parts = ["\(count(.ok)) done"]
            if count(.skipped) > 0 { parts.append("\(count(.skipped)) skipped (already done)") }
            if failed > 0 { parts.append("\(failed) failed") }
            if count(.cancelled) > 0 { parts.append("\(count(.cancelled)) cancelled") }
            let notRun = items.count - results.count
            if notRun > 0 { parts.append("\(notRun) not run") }
            let scope = shard.map { " (shard \($0.index)/\($0.count) of \(batch.items.count))" } ?? ""
            StandardOutput.print(
                "\(items.count) items\(scope): " + parts.joined(separator: ", ")
                    + String(format: " in %.1f s", Date().timeIntervalSince(start)))
        }
        if failed > 0 { throw ExitCode(1) }
    }
}

/// A report from an earlier run, for `--resume`: the lines of the items done then, whose values a
/// skipped item keeps.
struct PreviousReport {
    private var lines: [String: String] = [:]

    init(path: String) {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return }
        for line in text.split(separator: "\n") {
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                object["status"] as? String == "ok" || object["status"] as? String == "skipped"
            else { continue }
            lines[Self.key(input: object["input"] as? String, index: object["index"] as? Int)] = String(line)
        }
    }

    static func key(input: String?, index: Int?) -> String { input.map { "input " + $0 } ?? "index \(index ?? -1)" }

    /// The earlier line of `result`'s item, marked skipped, or nil.
    func line(for result: BatchResult) -> String? {
        guard let line = lines[Self.key(input: result.item.input, index: result.item.index)] else { return nil }
        return line.replacingOccurrences(of: "\"status\": \"ok\"", with: "\"status\": \"skipped\"")
            .replacingOccurrences(
                of: #"^\{"index": \d+"#, with: "{\"index\": \(result.item.index)", options: .regularExpression)
    }
}

/// A one-line progress bar for a batch on stderr: items ended, failures, and the time left; redrawn at
/// most ten times a second.
final class BatchProgressBar: Sendable {
    private let last = Locked((time: 0.0, drawn: false))

    func show(_ progress: BatchProgress) {
        let due = last.withLock { last in
            guard progress.elapsed - last.time >= 0.1 || progress.ended == progress.total else { return false }
            last = (progress.elapsed, true)
            return true
        }
        guard due else { return }
        let width = 30
        let filled = Int(Double(width) * progress.fraction)
        var line =
            "\r[" + String(repeating: "#", count: filled) + String(repeating: " ", count: width - filled) + "] "
            + "\(progress.ended)/\(progress.total) items"
        if progress.failed > 0 { line += ", \(progress.failed) failed" }
        if let remaining = progress.remaining {
            let seconds = Int(remaining.rounded())
            line += String(format: ", %d:%02d left", seconds / 60, seconds % 60)
        }
        StandardError.write(line + "\u{1B}[K")
    }

    /// Clears the bar's line (before a message, and at the end).
    func clear() {
        if last.withLock({ $0.drawn }) { StandardError.write("\r\u{1B}[K") }
    }
}
