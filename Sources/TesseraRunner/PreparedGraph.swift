import Foundation
import TesseraCatalog
import TesseraCore
import TesseraGraph
import TesseraScheduler

/// A graph made ready to run again and again on new inputs of the same shape: a video's frames, a
/// program's stream of buffers.
///
/// The first run does what ``Graph/run(options:supplying:keeping:)`` does. It also keeps what does not
/// depend on the pixels supplied: which nodes run, the files' headers (and an image a file keeps whole
/// for the run, such as a logo read in two passes), the plan, and every node that only builds kernels
/// from its inputs (point, area and geometry nodes, whose parameters are set in the graph), with the
/// scheduler's wrappers around their images. A later run with values of the same shape (an image of the
/// same size, layout and depth for each node supplied) swaps the new pixels in and renders: only the
/// passes, the global nodes (their results depend on the pixels) and the nodes after them run again.
/// Anything else (another size, other nodes supplied) prepares again, as a first run does.
///
///     let prepared = try graph.prepared(keeping: ["lit"])
///     for frame in frames {
///         let report = try prepared.run(supplying: ["frame": .image(frame)])
///         ...  // report.outputs["lit"]
///     }
///
/// Runs of one prepared graph take turns; the files a graph reads must not change between runs.
public final class PreparedGraph: @unchecked Sendable {
    public let graph: Graph
    public let options: RunOptions
    public let keeping: [String]
    private let session: Locked<RunSession>

    /// Prepares `graph` to run with `options` (its progress and cancellation too), keeping the outputs of
    /// the nodes in `keeping` (``RunReport/outputs``). Nothing runs until ``run(supplying:)``.
    public init(_ graph: Graph, options: RunOptions = RunOptions(), keeping: [String] = []) {
        self.graph = graph
        self.options = options
        self.keeping = keeping
        session = Locked(RunSession(graph: graph, options: options, keeping: keeping))
    }

    /// Runs the graph with `supplied` values standing for nodes' first outputs, as
    /// ``Graph/run(options:supplying:keeping:)`` does, reusing what the last run prepared when the values
    /// have the same shapes. `options`, when given, replace the prepared ones for this run: a new
    /// cancellation or progress callback keeps what was prepared; other threads, tiles or limits prepare
    /// again.
    @discardableResult
    public func run(supplying supplied: [String: NodeValue] = [:], options: RunOptions? = nil) throws(RunError)
        -> RunReport
    {
        try session.withLock { (session: inout RunSession) throws(RunError) -> RunReport in
            try session.perform(supplying: supplied, options: options, planOnly: false)
        }
    }

    /// Whether the last run reused what an earlier one prepared (for tests and `--stats`).
    package var lastRunReused: Bool { session.withLock { $0.lastRunReused } }
}

extension Graph {
    /// This graph made ready to run many times (``PreparedGraph``).
    public func prepared(options: RunOptions = RunOptions(), keeping: [String] = []) -> PreparedGraph {
        PreparedGraph(self, options: options, keeping: keeping)
    }
}

/// The scheduler's link to the run in progress, shared by the images a prepared graph keeps between
/// runs: each run points it at its own monitor before anything renders.
final class RunSession {
    let graph: Graph
    private(set) var options: RunOptions
    let keeping: [String]
    /// What the last run prepared, for the next run with values of the same shapes.
    private var prepared: Prepared?
    private(set) var lastRunReused = false

    /// The part of a run that does not depend on the supplied pixels.
    private struct Prepared {
        /// The shape of each value supplied: a run with others prepares again.
        var shapes: [String: SuppliedShape]
        var nodes: [GraphNode]
        var plan: RenderPlan
        var opened: [String: [String: NodeValue]]
        /// The nodes whose outputs are kept, and those outputs by `node.port`.
        var reusable: Set<String>
        var values: [String: NodeValue]
        /// Where each supplied image's pixels come from, swapped for each run.
        var slots: [String: SuppliedPixels]
        let link: RunLink
    }

    init(graph: Graph, options: RunOptions, keeping: [String]) {
        self.graph = graph
        self.options = options
        self.keeping = keeping
    }

    /// Runs (or with `planOnly`, plans without reading a pixel: nodes that read images whole only plan
    /// their passes, and the nodes that depend on what they make are left out).
    func perform(supplying supplied: [String: NodeValue], options given: RunOptions? = nil, planOnly: Bool)
        throws(RunError) -> RunReport
    {
        let shapes = supplied.mapValues(SuppliedShape.init)
        var reuse = !planOnly && prepared.map { $0.shapes == shapes } == true
        if let given {
            reuse = reuse && given.preparesAlike(options)
            options = given
        }
        lastRunReused = reuse
        let monitor = RunMonitor(options: options)
        defer { monitor.finish() }
        var state: Prepared
        if reuse, let kept = prepared {
            state = kept
            state.link.monitor = monitor
            for (name, slot) in state.slots {
                if case .image(let image)? = supplied[name] { slot.source = image.source }
            }
        } else {
            let nodes = try graph.nodesToRun(options: options, supplying: supplied, keeping: keeping)
            let (plan, opened) = try graph.makePlan(
                nodes: nodes, keeping: keeping, supplied: supplied, monitor: monitor)
            state = Prepared(
                shapes: shapes, nodes: nodes, plan: plan, opened: opened, reusable: [], values: [:], slots: [:],
                link: RunLink(monitor))
        }
        let report = try run(&state, supplying: supplied, reusing: reuse, planOnly: planOnly, monitor: monitor)
        if !planOnly { prepared = state }
        return report
    }

    private func run(
        _ state: inout Prepared, supplying supplied: [String: NodeValue], reusing reuse: Bool, planOnly: Bool,
        monitor: RunMonitor
    ) throws(RunError) -> RunReport {
        let nodes = state.nodes
        let plan = state.plan
        let byName = Dictionary(nodes.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        var remainingReaders: [String: Int] = [:]
        for node in nodes where supplied[node.name] == nil {
            for reference in node.references { remainingReaders[reference.node, default: 0] += 1 }
        }
        for name in keeping { remainingReaders[name, default: 0] += 1 }  // never dropped
        // "node.port": what the last run prepared, when it is reused.
        var values: [String: NodeValue] = reuse ? state.values : [:]
        // Progress stages: the plan's passes, each weighing the pixels it is estimated to render.
        if !planOnly { monitor.planStages(plan.passes.map { Double($0.estimatedPixels) }) }
        var kept: [String: NodeValue] = [:]
        var collected: [String: NodeValue] = [:]
        for node in nodes {
            do {
                if options.cancellation.isCancelled { throw CancellationError() }
                let outputs: [String: NodeValue]
                if reuse && state.reusable.contains(node.name) {
                    outputs = [:]  // its outputs are in `values` already
                } else if let sourceOutputs = state.opened[node.name] {
                    outputs = sourceOutputs
                } else if let value = supplied[node.name] {
                    guard let port = node.declaration.outputs.first, port.type == value.type else {
                        throw NodeConfigurationError(
                            "the value supplied is \(value.type.phrase), but the node's output is "
                                + (node.declaration.outputs.first?.type.phrase ?? "nothing"))
                    }
                    // An image's pixels come through a slot, which the next run with the same shapes fills
                    // with its own.
                    if case .image(let image) = value, !planOnly {
                        let slot = SuppliedPixels(image.source)
                        state.slots[node.name] = slot
                        outputs = [port.name: .image(image.withSource(slot))]
                    } else {
                        outputs = [port.name: value]
                    }
                } else if planOnly {
                    // Without pixels: a node whose inputs or settings come from a pass not run is left out.
                    guard node.references.allSatisfy({ values["\($0.node).\($0.port)"] != nil }) else { continue }
                    if node.readsWholeImages {
                        try node.planPass(reading: values, monitor: monitor)
                        continue
                    }
                    outputs = try node.execute(reading: values, monitor: monitor)
                } else if node.readsWholeImages {
                    // Their own time (encoding, a global node's work on what it read) is measured here;
                    // waiting for the bands they read is their inputs' time, not theirs.
                    let read = node.inputs.values.compactMap { reference -> Rect? in
                        guard case .image(let image)? = values[reference.node + "." + reference.port] else {
                            return nil
                        }
                        return image.extent
                    }
                    monitor.beginStage(pixels: read.reduce(0) { $0 + $1.area })
                    outputs = try monitor.measure(
                        node: node.name, op: node.declaration.op, region: read.first ?? .empty
                    ) {
                        try node.execute(reading: values, monitor: monitor)
                    }
                    monitor.endStage()
                } else {
                    outputs = try node.execute(reading: values, monitor: monitor)
                }
                for (port, value) in outputs {
                    guard case .image(let made) = value else {
                        values["\(node.name).\(port)"] = value
                        collected["\(node.name).\(port)"] = value
                        continue
                    }
                    let output = node.inheritingMetadata(made, reading: values)
                    // A source decoded smaller (shrink-on-load): that decode is what is scheduled and counted.
                    let image = output.smallerDecode?.image ?? output
                    let staged = Graph.scheduleStages(
                        of: image, node: node.name, op: node.declaration.op, link: state.link)
                    let source = ScheduledSource(
                        node: node.name, op: node.declaration.op, image: staged, link: state.link)
                    if case .materialize(_, let inFile)? = plan.image("\(node.name).\(port)")?.decision {
                        try source.materialize(RenderPlan.SourceFacts(image), inFile: inFile, allocate: !planOnly)
                    }
                    values["\(node.name).\(port)"] = .image(Graph.serving(output, from: image.withSource(source)))
                }
                // What only builds kernels from what is itself kept, is kept for the next run.
                if !reuse, Self.isReusable(node, supplied: supplied, reusable: state.reusable) {
                    state.reusable.insert(node.name)
                    for port in node.declaration.outputs {
                        state.values["\(node.name).\(port.name)"] = values["\(node.name).\(port.name)"]
                    }
                }
                if keeping.contains(node.name) {
                    for port in node.declaration.outputs {
                        guard let value = values["\(node.name).\(port.name)"] else { continue }
                        if planOnly {
                            if case .image(let image) = value {
                                try Graph.planPass(reader: node.name, images: [image], role: .sink, monitor: monitor)
                            }
                            continue
                        }
                        kept["\(node.name).\(port.name)"] = try Graph.materialize(
                            value, kept: node.name, monitor: monitor)
                    }
                    if let first = node.declaration.outputs.first {
                        kept[node.name] = kept["\(node.name).\(first.name)"]
                    }
                }
            } catch {
                throw Graph.runError(error, at: node, in: nodes)
            }
            // A value is dropped once its last reader ran (unless the next run reuses it).
            for reference in node.references where supplied[node.name] == nil {
                remainingReaders[reference.node, default: 1] -= 1
                if remainingReaders[reference.node] == 0, let upstream = byName[reference.node] {
                    for port in upstream.declaration.outputs { values["\(reference.node).\(port.name)"] = nil }
                }
            }
        }
        var report = monitor.report(order: nodes.map(\.name))
        report.outputs = kept
        report.values = collected
        report.plan = plan
        return report
    }

    /// Whether `node`'s outputs can serve the next run with values of the same shapes: it reads no pixels
    /// in `run()` (not a sink or a global node), and all it reads (inputs, and settings from upstream) is
    /// a supplied image, a file, or another such node's output.
    private static func isReusable(_ node: GraphNode, supplied: [String: NodeValue], reusable: Set<String>) -> Bool {
        guard !node.readsWholeImages else { return false }
        if let value = supplied[node.name] {
            if case .image = value { return true }
            return false
        }
        if node.declaration.access == .source && node.references.isEmpty { return true }
        return node.references.allSatisfy { reusable.contains($0.node) }
    }
}

extension RunOptions {
    /// Whether a run with these options can reuse what a run with `other` prepared: all but the
    /// cancellation and the progress callback are the same.
    func preparesAlike(_ other: RunOptions) -> Bool {
        threads == other.threads && tileSize == other.tileSize && tracing == other.tracing
            && collectsValues == other.collectsValues && maxOutputPixels == other.maxOutputPixels
            && diskThreshold == other.diskThreshold && floatTiles == other.floatTiles
    }
}

/// The shape of a value supplied to a run: what a prepared graph's kernels depend on.
struct SuppliedShape: Equatable {
    var type: PortType
    var width = 0
    var height = 0
    var layout: PixelLayout?
    var depth: SampleDepth?
    var format: SampleFormat?
    var metadata: ImageMetadata?

    init(_ value: NodeValue) {
        type = value.type
        guard case .image(let image) = value else { return }
        (width, height, layout, depth) = (image.width, image.height, image.layout, image.depth)
        format = image.nativeFormat
        metadata = image.metadata
    }
}

/// A supplied image's pixels, swapped for each run of a prepared graph.
final class SuppliedPixels: PixelSource, @unchecked Sendable {
    /// Set between runs, before any worker starts.
    var source: any PixelSource

    init(_ source: any PixelSource) { self.source = source }

    func render(into buffer: inout PixelBuffer) throws { try source.render(into: &buffer) }
    var preferredTileSize: (width: Int, height: Int)? { source.preferredTileSize }
    var keptChunkCount: Int { source.keptChunkCount }
    var prefersSequentialRows: Bool { source.prefersSequentialRows }
    var givesFileSamples: Bool { source.givesFileSamples }

    func encode(
        _ region: Rect, with encoder: SampleEncoder, scratch: inout PixelBuffer, into bytes: UnsafeMutableRawPointer,
        rowBytes: Int
    ) throws {
        try source.encode(region, with: encoder, scratch: &scratch, into: bytes, rowBytes: rowBytes)
    }
}
