import Dispatch
import Synchronization
import TesseraCore

#if canImport(Glibc)
    import Glibc
#endif

/// How a graph runs: how many workers, which tile size, and what to watch.
public struct RunOptions: Sendable {
    /// Workers rendering tiles at once; by default one per core. Held to 1...``maximumThreads``.
    public var threads: Int {
        didSet { threads = Self.clamp(threads, to: 1...Self.maximumThreads) }
    }
    /// The side of the square tiles the scheduler renders and caches, in pixels. Held to ``tileSizes``.
    public var tileSize: Int {
        didSet { tileSize = Self.clamp(tileSize, to: Self.tileSizes) }
    }
    /// Record one span per node per tile, for ``RunReport/traceJSON()``.
    public var tracing: Bool
    /// Called as the run advances, with the fraction done (0...1), from any thread but one call at a
    /// time, each fraction larger than the last.
    public var progress: (@Sendable (Double) -> Void)?
    /// Set it to stop a run from another thread (a signal handler, a user interface).
    public var cancellation: Cancellation
    /// Also run the nodes whose results nothing reads (``Graph/unreadValues``: an analysis whose boxes
    /// nothing draws), so that ``RunReport/values`` holds them; otherwise such nodes do not run.
    public var collectsValues: Bool
    /// The most pixels an image a sink writes may have: checked before the file is opened, so a graph
    /// asking for a huge image fails at once instead of filling the disk.
    public var maxOutputPixels: Int
    /// An image the plan keeps whole (a decoded source read in several passes) that
    /// takes more bytes than this is kept in a temporary file instead of memory, as libvips' disc
    /// threshold; the file is unlinked as soon as it is made, so no exit leaves it behind.
    public var diskThreshold: Int
    /// The tests' reference: every tile rendered as Float32 RGBA (or gray), no packed path taken, so
    /// that each example graph and the sample-format tests can check the packed paths give the same
    /// bytes. Not an option of the program: one pixel path runs.
    package var floatTiles = false

    public static let defaultTileSize = 256
    /// 512 MiB: a 40-megapixel 8-bit RGBA photo stays in memory.
    public static let defaultDiskThreshold = 512 << 20
    /// The tile sides a run takes: a tile's buffers are allocated per worker, so a huge side (a
    /// mistyped 2147483647) would try to allocate terabytes.
    public static let tileSizes = 16...4096
    /// The most workers a run starts: more than the cores gains nothing, and each worker holds tiles.
    public static let maximumThreads = 256
    /// 2^32 pixels (65536 x 65536; 64 GB as 8-bit RGBA): beyond any photo or scan, well short of a
    /// graph that would fill a disk by mistake (a 1000000 x 1000000 constant).
    public static let defaultMaxOutputPixels = OutputLimit.defaultPixels

    /// Values outside the ranges above are brought into them (threads into 1...``maximumThreads``, the
    /// tile size into ``tileSizes``); `tessera run` and the C API refuse such values instead.
    public init(
        threads: Int = RunOptions.cores, tileSize: Int = RunOptions.defaultTileSize, tracing: Bool = false,
        progress: (@Sendable (Double) -> Void)? = nil, cancellation: Cancellation = Cancellation(),
        collectsValues: Bool = false, maxOutputPixels: Int = RunOptions.defaultMaxOutputPixels,
        diskThreshold: Int = RunOptions.defaultDiskThreshold
    ) {
        self.diskThreshold = Swift.max(0, diskThreshold)
        self.collectsValues = collectsValues
        self.threads = Self.clamp(threads, to: 1...Self.maximumThreads)
        self.tileSize = Self.clamp(tileSize, to: Self.tileSizes)
        self.tracing = tracing
        self.progress = progress
        self.cancellation = cancellation
        self.maxOutputPixels = Swift.max(1, maxOutputPixels)
    }

    private static func clamp(_ value: Int, to range: ClosedRange<Int>) -> Int {
        Swift.min(Swift.max(range.lowerBound, value), range.upperBound)
    }

    /// What is wrong with these settings, as the command line names them (`--threads`, `--tile-size`,
    /// `--max-output-pixels`), or nil: what `tessera run` and the C API refuse.
    package static func problem(threads: Int, tileSize: Int, maxOutputPixels: Int = defaultMaxOutputPixels)
        -> String?
    {
        if !(1...maximumThreads).contains(threads) {
            return "--threads must be from 1 to \(maximumThreads), not \(threads)"
        }
        if !tileSizes.contains(tileSize) {
            return "--tile-size must be from \(tileSizes.lowerBound) to \(tileSizes.upperBound), not \(tileSize)"
        }
        if maxOutputPixels < 1 { return "--max-output-pixels must be positive, not \(maxOutputPixels)" }
        return nil
    }

    /// The cores this process may use.
    public static var cores: Int { Swift.max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))) }
}

/// A flag that stops a run: workers check it before each tile, and the run ends with a `RunError`
/// whose cause is Swift's `CancellationError` (its `isCancellation` is true), leaving no partial
/// output file.
///
/// Set it from any thread: a user interface's stop button, a timer, the caller's own signal handling.
public final class Cancellation: Sendable {
    private let flag = Atomic<Bool>(false)
    public init() {}
    /// Asks the run to stop; it does at the next tile or node.
    public func cancel() { flag.store(true, ordering: .relaxed) }
    /// Whether ``cancel()`` was called.
    public var isCancelled: Bool { flag.load(ordering: .relaxed) }
}

/// What one node cost during a run.
public struct NodeStats: Sendable {
    public var node: String
    public var op: String
    /// Time spent in the node's own rendering (not its inputs'), summed over workers.
    public var seconds: Double
    /// Pixels the node rendered (more than its output's when margins or re-renders overlap).
    public var pixels: Int
    /// Regions rendered.
    public var tiles: Int
    /// The most bytes its tile cache held at once (0 without a cache).
    public var peakCacheBytes: Int
}

/// One rendered region of one node, as Chrome's trace-event format records it.
struct TraceSpan: Sendable {
    var node: String
    var op: String
    var region: Rect
    var worker: Int
    var start: UInt64
    var duration: UInt64
}

/// Collects what a run did: per-node time and pixels, trace spans, progress. Shared by every source
/// the scheduler wraps; each worker records its own statistics, merged when the run ends.
///
/// It owns the run's ``WorkerPool``: made on the thread that starts the run, which becomes worker 0
/// until ``finish()``.
package final class RunMonitor: Sendable {
    package let options: RunOptions
    let start = DispatchTime.now().uptimeNanoseconds
    /// What each worker recorded, by worker number: written by that worker alone, read once the
    /// workers are joined.
    private let recorded: [WorkerRecord]
    /// What threads that are not this run's workers recorded (none, unless a program renders a run's
    /// image from its own threads).
    private let stray = Locked(WorkerRecord())
    /// The passes planned, in order (``PassPlan``).
    private let passes = Locked<[PassPlan]>([])
    private let progress = Locked(Progress())
    private let finished = Atomic<Bool>(false)
    let pool: WorkerPool
    /// The starting thread's worker settings before the run, given back by ``finish()``.
    private let callerBefore: Locked<(id: Int, record: WorkerRecord?, allocations: Int)>

    package init(options: RunOptions) {
        self.options = options
        let recorded = (0..<options.threads).map { _ in WorkerRecord() }
        self.recorded = recorded
        let caller = Worker.current
        callerBefore = Locked((caller.id, caller.record, PixelBuffer.allocationsOnThisThread))
        caller.id = 0
        caller.record = recorded[0]
        pool = WorkerPool(threads: options.threads) { worker, loop in
            let record = recorded[worker.id]
            worker.record = record
            loop()
            record.allocations = PixelBuffer.allocationsOnThisThread
        }
    }

    /// The run is over: its sets stop handing out work, the workers finish the pieces they are on
    /// and are joined. The starting thread gets its settings back and drops its spare buffers.
    /// Called again, it does nothing.
    package func finish() {
        guard !finished.exchange(true, ordering: .acquiringAndReleasing) else { return }
        pool.stop()
        let caller = Worker.current
        let before = callerBefore.withLock { $0 }
        recorded[0].allocations = PixelBuffer.allocationsOnThisThread - before.allocations
        (caller.id, caller.record) = (before.id, before.record)
        SpareSamples.dropCurrent()
    }

    var isFinished: Bool { finished.load(ordering: .relaxed) }

    package var cancellation: Cancellation { options.cancellation }

    /// How far a run is: its stages (the plan's passes: the nodes that read whole images, sinks and
    /// global nodes, and the outputs it keeps), each weighing what it renders, each from 0 to 1 by the
    /// pixels it has read of those it reads.
    private struct Progress {
        /// Each stage's weight, in running order.
        var weights: [Double] = [1]
        var completed = 0
        var total = 0
        var done = 0
        /// The last fraction handed to the callback.
        var reported = 0.0

        var fraction: Double {
            let current = total > 0 ? Swift.min(1, Double(done) / Double(total)) : 0
            let all = weights.reduce(0, +)
            guard all > 0 else { return 0 }
            let finished = weights.prefix(completed).reduce(0, +)
            let weight = completed < weights.count ? weights[completed] : 0
            return Swift.min(1, (finished + current * weight) / all)
        }
    }

    /// Sets the stages the run has, by weight (the pixels each is estimated to render), before the
    /// first begins.
    package func planStages(_ weights: [Double]) {
        progress.withLock { $0.weights = weights.isEmpty ? [1] : weights.map { Swift.max($0, 0) } }
    }

    /// A stage starts that will read `pixels` (its inputs' pixels, all read once).
    package func beginStage(pixels: Int) {
        progress.withLock {
            $0.total = pixels
            $0.done = 0
        }
    }

    /// The stage is over, however much of its input it read.
    package func endStage() {
        progress.withLock { state in
            state.completed += 1
            state.total = 0
            state.done = 0
            report(&state)
        }
    }

    /// The current stage read `pixels` more.
    func advance(pixels: Int) {
        guard options.progress != nil else { return }
        progress.withLock { state in
            state.done += pixels
            report(&state)
        }
    }

    /// Calls the progress callback under the lock, so that its calls come one at a time and in order:
    /// two workers finishing tiles at once never report 100% before 99%.
    private func report(_ state: inout Progress) {
        guard let callback = options.progress else { return }
        let fraction = state.fraction
        guard fraction > state.reported else { return }
        state.reported = fraction
        callback(fraction)
    }

    /// Times `body` as node `node`'s rendering of `region`, excluding the time spent in the nodes it
    /// reads (which time themselves).
    package func measure<T>(node: String, op: String, region: Rect, _ body: () throws -> T) throws -> T {
        let worker = Worker.current
        let outerChildren = worker.childNanos
        worker.childNanos = 0
        let begin = DispatchTime.now().uptimeNanoseconds
        defer {
            let elapsed = DispatchTime.now().uptimeNanoseconds - begin
            let own = elapsed - Swift.min(elapsed, worker.childNanos)
            worker.childNanos = outerChildren + elapsed
            let span =
                options.tracing
                ? TraceSpan(
                    node: node, op: op, region: region, worker: worker.id, start: begin - start, duration: elapsed)
                : nil
            record(worker) { $0.add(node: node, op: op, seconds: Double(own) / 1e9, pixels: region.area, span: span) }
        }
        return try body()
    }

    package func recordCache(node: String, op: String, bytes: Int) {
        record(Worker.current) { $0.addCache(node: node, op: op, bytes: bytes) }
    }

    /// Runs `body` on the calling worker's record, taking no lock when it is one of this run's.
    private func record(_ worker: Worker, _ body: (WorkerRecord) -> Void) {
        if let own = worker.record, recorded.indices.contains(worker.id), recorded[worker.id] === own {
            body(own)
        } else {
            stray.withLock { body($0) }
        }
    }

    /// What the run did; ends the run first (``finish()``), so every worker's record is complete.
    /// Records the plan of a pass about to run, for the report.
    package func recordPass(_ plan: PassPlan) { passes.withLock { $0.append(plan) } }

    package func report(order: [String]) -> RunReport {
        finish()
        var stats: [String: NodeStats] = [:]
        var spans: [TraceSpan] = []
        for record in recorded + [stray.withLock { $0 }] {
            for (node, entry) in record.nodes { stats[node, default: entry.empty].merge(entry) }
            spans += record.spans
        }
        return RunReport(
            seconds: Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9, nodes: order.compactMap { stats[$0] },
            spans: spans, threads: options.threads, bufferAllocations: recorded.reduce(0) { $0 + $1.allocations },
            passes: passes.withLock { $0 })
    }
}

/// What one worker recorded during a run: touched only by that worker while the run goes on.
final class WorkerRecord: @unchecked Sendable {
    var nodes: [String: NodeStats] = [:]
    var spans: [TraceSpan] = []
    /// Pixel buffers the worker allocated storage for during the run.
    var allocations = 0

    func add(node: String, op: String, seconds: Double, pixels: Int, span: TraceSpan?) {
        nodes[node, default: NodeStats(node: node, op: op, seconds: 0, pixels: 0, tiles: 0, peakCacheBytes: 0)]
            .add(seconds: seconds, pixels: pixels)
        if let span { spans.append(span) }
    }

    /// A cache's size as seen by this worker: the largest counts, over all workers.
    func addCache(node: String, op: String, bytes: Int) {
        var entry = nodes[node] ?? NodeStats(node: node, op: op, seconds: 0, pixels: 0, tiles: 0, peakCacheBytes: 0)
        entry.peakCacheBytes = Swift.max(entry.peakCacheBytes, bytes)
        nodes[node] = entry
    }
}

extension NodeStats {
    fileprivate mutating func add(seconds: Double, pixels: Int) {
        self.seconds += seconds
        self.pixels += pixels
        tiles += 1
    }

    /// Nothing recorded yet, for the same node.
    fileprivate var empty: NodeStats {
        NodeStats(node: node, op: op, seconds: 0, pixels: 0, tiles: 0, peakCacheBytes: 0)
    }

    fileprivate mutating func merge(_ other: NodeStats) {
        seconds += other.seconds
        pixels += other.pixels
        tiles += other.tiles
        peakCacheBytes = Swift.max(peakCacheBytes, other.peakCacheBytes)
    }
}

/// What a run did, for `--stats` and `--trace`.
public struct RunReport: Sendable {
    /// Wall-clock time of the whole run.
    public var seconds: Double
    /// The nodes that rendered pixels, in graph order.
    public var nodes: [NodeStats]
    var spans: [TraceSpan]
    var threads: Int
    /// Pixel buffers the run's workers allocated sample storage for: tiles, kernels' input regions,
    /// cached cells. Each worker keeps the buffers it is done with for its next tiles, so this does
    /// not grow with the number of tiles a run renders.
    package var bufferAllocations = 0
    /// The outputs of the nodes a run was asked to keep, by `node.port`, and the first output also by
    /// `node`; images rendered in full.
    public var outputs: [String: NodeValue] = [:]
    /// Every value that is not an image (boxes, numbers, contours) made by the nodes that ran, by
    /// `node.port`.
    public var values: [String: NodeValue] = [:]
    /// What the run decided for each image before it began.
    package var plan: RenderPlan?
    /// How each pass served the images it read, as planned when it began.
    package var passes: [PassPlan] = []

    /// The trace in Chrome's trace-event format (JSON): one complete event per node per region, the
    /// worker as the thread. It opens in Perfetto (ui.perfetto.dev) and chrome://tracing.
    public func traceJSON() -> String {
        var events: [String] = []
        events.append(#"{"name":"process_name","ph":"M","pid":1,"args":{"name":"tessera"}}"#)
        let workers = Set(spans.map(\.worker)).sorted()
        for worker in workers {
            let name = worker == 0 ? "main" : "worker \(worker)"
            events.append(#"{"name":"thread_name","ph":"M","pid":1,"tid":\#(worker),"args":{"name":"\#(name)"}}"#)
        }
        for span in spans.sorted(by: { ($0.start, $0.worker) < ($1.start, $1.worker) }) {
            let start = Double(span.start) / 1000
            let duration = Double(span.duration) / 1000
            events.append(
                #"{"name":"\#(JSONText.escape(span.node))","cat":"\#(span.op)","ph":"X","pid":1,"tid":\#(span.worker),"#
                    + #""ts":\#(start),"dur":\#(duration),"args":{"region":"\#(span.region)","pixels":\#(span.region.area)}}"#
            )
        }
        return "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n" + events.joined(separator: ",\n") + "\n]}\n"
    }

    /// A table of the nodes' time, pixels and cache memory, and the run's totals.
    package func statsTable() -> String {
        var rows = [["node", "op", "time (ms)", "megapixels", "regions", "cache peak (MB)"]]
        for node in nodes {
            rows.append([
                node.node, node.op, format3(node.seconds * 1000), format3(Double(node.pixels) / 1e6),
                "\(node.tiles)", format3(Double(node.peakCacheBytes) / 1_048_576),
            ])
        }
        let widths = rows[0].indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
        var lines = rows.map { row in
            row.enumerated().map { column, text in
                column < 2
                    ? text + String(repeating: " ", count: widths[column] - text.count)
                    : String(repeating: " ", count: widths[column] - text.count) + text
            }.joined(separator: "  ")
        }
        lines.append(
            "total \(format3(seconds)) s on \(threads) thread\(threads == 1 ? "" : "s"), peak memory "
                + "\(format3(Double(RunReport.peakResidentBytes) / 1_048_576)) MB, \(bufferAllocations) pixel "
                + "buffers allocated")
        return lines.joined(separator: "\n") + "\n"
    }

    /// The most memory this process has held resident, in bytes.
    package static var peakResidentBytes: Int {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return usage.ru_maxrss * 1024
    }
}

private func format3(_ value: Double) -> String {
    let rounded = (value * 1000).rounded() / 1000
    var text = "\(rounded)"
    if text.hasSuffix(".0") { text.removeLast(2) }
    return text
}

/// The worker a piece of rendering runs on, and the time its nested renders took: kept per thread.
final class Worker {
    /// 0 for the thread that started the run; 1... for the run's other workers.
    var id = 0
    /// Time spent in nested (upstream) renders during the current measured render.
    var childNanos: UInt64 = 0
    /// Where this thread records statistics for the run it works for.
    var record: WorkerRecord?

    /// Runs `body`, whose whole time is not the measured node's own: waiting for cells or bands and
    /// rendering them for the node. Renders measured inside it are counted once, with the rest.
    func outsideOwnTime<T>(_ body: () throws -> T) rethrows -> T {
        let childrenBefore = childNanos
        let begin = DispatchTime.now().uptimeNanoseconds
        defer { childNanos = childrenBefore + (DispatchTime.now().uptimeNanoseconds - begin) }
        return try body()
    }

    private static let perThread = PerThread { Worker() }

    static var current: Worker { perThread.current }
}
