import Dispatch
import Foundation

/// How a batch runs.
package struct BatchOptions: Sendable {
    /// Threads for the whole batch, shared by the items running at once and their tiles: while more
    /// items wait than threads are free, each item runs on one; the last items get the threads left.
    package var threads = RunOptions.cores
    package var tileSize = RunOptions.defaultTileSize
    /// Bytes the items running at once may hold together, as their render plans estimate them
    /// (``RenderPlan/estimatedBytes(threads:tileSize:)``); an item that needs more than is free waits
    /// for others to finish, and runs alone when it needs more than all of it. Also the most an item
    /// keeps in memory before it keeps images in temporary files (``RunOptions/diskThreshold``).
    package var memory = Batch.defaultMemory
    /// Stop at the first failed item: running items are cancelled, no other starts.
    package var failFast = false
    /// Skip items whose outputs exist and are newer than their input and the graph (``Batch/isDone(_:outputs:)``).
    package var resume = false
    /// Run the nodes whose results nothing reads and keep their values (``BatchResult/values``).
    package var collectsValues = false
    package var maxOutputPixels = RunOptions.defaultMaxOutputPixels
    package var cancellation = Cancellation()
    /// Called as the batch advances, one call at a time, from any thread.
    package var progress: (@Sendable (BatchProgress) -> Void)?
    /// Called as each item ends (done, failed, skipped or cancelled), one call at a time, from any thread.
    package var itemEnded: (@Sendable (BatchResult) -> Void)?

    package init() {}
}

/// How far a batch is.
package struct BatchProgress: Sendable {
    package var total: Int
    /// Items ended, whatever their status.
    package var ended: Int
    package var failed: Int
    package var skipped: Int
    /// Items running now.
    package var running: Int
    /// The items ended and the parts of the running ones done, over the total (0...1).
    package var fraction: Double
    package var elapsed: Double

    /// Seconds left at the pace of the items run so far (skipped ones do not count), or nil before there
    /// is a pace.
    package var remaining: Double? {
        let run = fraction * Double(total) - Double(skipped)
        guard run > 0.05, elapsed > 0.5 else { return nil }
        return elapsed / run * (Double(total) * (1 - fraction))
    }
}

/// What one item of a batch did.
package struct BatchResult: Sendable {
    package enum Status: String, Sendable {
        case ok, failed, skipped, cancelled
    }
    package var item: BatchItem
    package var status: Status
    /// The files it wrote (or, skipped, had written).
    package var outputs: [String]
    package var seconds: Double
    /// Why it failed, in one line.
    package var error: String?
    /// Its results (the graph's unread values), each as its kind's JSON.
    package var values: [(name: String, json: String)] = []

    /// The item as one line of JSON: `index`, `input` (null for a manifest row without one), `settings`
    /// (a manifest row's), `status`, `outputs`, `seconds`, `error` (when failed) and `values`.
    package var jsonLine: String {
        var fields = ["\"index\": \(item.index)", "\"input\": " + (item.input.map(JSONText.quoted) ?? "null")]
        if item.settings.first?.origin != item.input {
            let settings = item.settings.map {
                JSONText.quoted("\($0.node).\($0.parameter)") + ": " + JSONText.quoted($0.value)
            }
            fields.append("\"settings\": {" + settings.joined(separator: ", ") + "}")
        }
        fields.append("\"status\": \"\(status.rawValue)\"")
        fields.append("\"outputs\": [" + outputs.map(JSONText.quoted).joined(separator: ", ") + "]")
        fields.append("\"seconds\": " + String(format: "%.3f", seconds))
        if let error { fields.append("\"error\": " + JSONText.quoted(error)) }
        let entries = values.map { JSONText.quoted($0.name) + ": " + Self.oneLine($0.json) }
        fields.append("\"values\": {" + entries.joined(separator: ", ") + "}")
        return "{" + fields.joined(separator: ", ") + "}"
    }

    /// JSON on one line: a JSON string holds no raw line break, so every break is between tokens.
    static func oneLine(_ json: String) -> String {
        json.split(separator: "\n").map { $0.drop { $0 == " " } }.joined(separator: " ")
    }
}

extension Batch {
    /// A quarter of the physical memory, as `maxMemory`'s default.
    package static var defaultMemory: Int { Int(clamping: ProcessInfo.processInfo.physicalMemory / 4) }

    /// Runs `items` (all of ``items``, or a shard's slice), several at once, and gives each one's result
    /// in the order given. An item that fails does not stop the others unless ``BatchOptions/failFast``.
    /// After a cancellation, running items end as cancelled and no other starts.
    package func run(_ items: [BatchItem], options: BatchOptions) -> [BatchResult] {
        let batch = BatchState(total: items.count, options: options)
        for (position, item) in items.enumerated() {
            if options.cancellation.isCancelled { break }
            let start = DispatchTime.now().uptimeNanoseconds
            let written = (try? outputs(of: item)) ?? []
            for output in written { FileSystem.removeStaleTemporaries(of: output) }
            if options.resume, isDone(item, outputs: written) {
                batch.end(BatchResult(item: item, status: .skipped, outputs: written, seconds: 0))
                continue
            }
            // Read on this thread while the admitted items run: the item's graph and its plan (the
            // sources' headers), which says what it needs.
            let graph: Graph
            let bytes: Int
            do {
                graph = try self.graph(for: item)
                try graph.createOutputFolders(templatesOnly: false)
                bytes = try graph.plan(options: RunOptions(threads: 1, tileSize: options.tileSize))
                    .estimatedBytes(threads: 1, tileSize: options.tileSize)
            } catch {
                batch.end(
                    BatchResult(
                        item: item, status: .failed, outputs: [], seconds: Self.seconds(since: start),
                        error: Self.oneLineMessage(error)))
                continue
            }
            // The item's time is its reading and its run, not its wait for a free thread.
            let preparing = Self.seconds(since: start)
            guard let threads = batch.admit(bytes: bytes, waiting: items.count - position) else { break }
            let admitted = DispatchTime.now().uptimeNanoseconds
            let thread = Thread {
                var run = RunOptions(
                    threads: threads, tileSize: options.tileSize, cancellation: options.cancellation,
                    collectsValues: options.collectsValues, maxOutputPixels: options.maxOutputPixels,
                    diskThreshold: Swift.min(RunOptions.defaultDiskThreshold, options.memory))
                run.progress = { batch.advance(item.index, to: $0) }
                var result = BatchResult(item: item, status: .ok, outputs: graph.writtenFiles, seconds: 0)
                do {
                    let report = try graph.run(options: run)
                    result.values = graph.resultValues(of: report)
                } catch {
                    result.outputs = []
                    if (error as? RunError)?.isCancellation == true || options.cancellation.isCancelled {
                        result.status = .cancelled
                    } else {
                        result.status = .failed
                        result.error = Self.oneLineMessage(error)
                    }
                }
                result.seconds = preparing + Self.seconds(since: admitted)
                batch.end(result, releasing: (threads, bytes))
            }
            // Room for the decoders and the nodes' own recursion, as the run's workers have.
            thread.stackSize = 8 << 20
            thread.start()
        }
        return batch.results(of: items)
    }

    static func seconds(since start: UInt64) -> Double { Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9 }

    /// An item's error in one line: a graph's first problem (and how many more), a run's message.
    static func oneLineMessage(_ error: any Error) -> String {
        if let errors = error as? GraphErrors {
            let problems = errors.diagnostics.filter { $0.severity == .error }
            let first = problems.first.map { "\($0)" } ?? "\(errors)"
            return problems.count > 1 ? "\(first) (and \(problems.count - 1) more)" : first
        }
        return "\(error)".split(separator: "\n").joined(separator: "; ")
    }
}

/// The shared state of a running batch: free threads and memory, items running, their progress, and
/// the results so far.
private final class BatchState: Sendable {
    private struct State {
        var freeThreads: Int
        var bytesInUse = 0
        var running = 0
        var partial: [Int: Double] = [:]
        var ended = 0
        var failed = 0
        var skipped = 0
        var results: [Int: BatchResult] = [:]
        var stopped = false
    }

    private let state: Locked<State>
    private let options: BatchOptions
    private let total: Int
    private let start = DispatchTime.now().uptimeNanoseconds

    init(total: Int, options: BatchOptions) {
        self.options = options
        self.total = total
        state = Locked(State(freeThreads: Swift.max(1, options.threads)))
    }

    /// Waits until a thread is free and `bytes` fit in the memory left (or nothing runs), and takes
    /// them: the threads the item gets (all free ones shared among the `waiting` items, one each while
    /// they outnumber the free threads). Nil once the batch stops.
    func admit(bytes: Int, waiting: Int) -> Int? {
        let memory = options.memory
        let cancellation = options.cancellation
        return state.wait(until: { state in
            state.stopped || cancellation.isCancelled
                || (state.freeThreads > 0 && (state.running == 0 || state.bytesInUse + bytes <= memory))
        }) { state in
            guard !state.stopped, !cancellation.isCancelled else { return nil }
            let threads = waiting >= state.freeThreads ? 1 : Swift.max(1, state.freeThreads / waiting)
            state.freeThreads -= threads
            state.bytesInUse += bytes
            state.running += 1
            return threads
        }
    }

    func advance(_ index: Int, to fraction: Double) {
        state.withLock { state in
            state.partial[index] = fraction
            report(state)
        }
    }

    /// Records an item's result; a running item gives back the threads and bytes it was admitted with.
    func end(_ result: BatchResult, releasing taken: (threads: Int, bytes: Int)? = nil) {
        state.withLockNotifying { state in
            if let taken {
                state.freeThreads += taken.threads
                state.bytesInUse -= taken.bytes
                state.running -= 1
            }
            state.partial[result.item.index] = nil
            state.results[result.item.index] = result
            state.ended += 1
            if result.status == .failed { state.failed += 1 }
            if result.status == .skipped { state.skipped += 1 }
            if result.status == .failed && options.failFast {
                state.stopped = true
                options.cancellation.cancel()
            }
            options.itemEnded?(result)
            report(state)
        }
    }

    private func report(_ state: State) {
        guard let progress = options.progress else { return }
        let done = Double(state.ended) + state.partial.values.reduce(0, +)
        progress(
            BatchProgress(
                total: total, ended: state.ended, failed: state.failed, skipped: state.skipped, running: state.running,
                fraction: total > 0 ? Swift.min(1, done / Double(total)) : 1,
                elapsed: Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9))
    }

    /// Waits for the running items, then gives the results of `items` that ended, in their order.
    func results(of items: [BatchItem]) -> [BatchResult] {
        state.wait(until: { $0.running == 0 }) { state in items.compactMap { state.results[$0.index] } }
    }
}
