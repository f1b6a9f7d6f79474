@_exported import TesseraScheduler
import TesseraCatalog
import TesseraCore
import TesseraGraph

/// A node failed while the graph ran, or the run was cancelled: where the node is written, which node,
/// and the error itself.
///
///     do {
///         try graph.run()
///     } catch {
///         print(error)  // graph.yaml:7:3: error: save node 'out': out/a.png: cannot write: ...
///         if error.isCancellation { ... }  // stopped by its Cancellation, not failed
///         if let imageError = error.cause as? ImageError { ... }  // the file, and what went wrong
///     }
public struct RunError: Error, Sendable, CustomStringConvertible {
    /// Where the failing node is written (or the graph's file, when no node is at fault).
    public var location: SourceLocation
    /// The failing node's name.
    public var node: String
    /// The failing node's op.
    public var op: String
    /// What went wrong, as it was thrown: an ``ImageError`` (a file, with its path), a ``NodeProblem``
    /// (a parameter), a ``PluginError``, Swift's `CancellationError` for a cancelled run, or the error a
    /// node's own code threw. Errors of the run itself (no such node, an image over the output limit)
    /// are ``RunError/Problem``.
    public var cause: any Error

    /// An error of the run itself rather than of a node's code: its message says it all.
    public struct Problem: Error, Sendable, CustomStringConvertible {
        public var description: String
        public init(_ description: String) { self.description = description }
    }

    /// The cause in words, as ``description`` shows it after the node: `interrupted` for a cancelled run.
    public var message: String { Graph.describe(cause) }

    /// The run was stopped (``Cancellation``), not failed.
    public var isCancellation: Bool { cause is CancellationError }

    public init(location: SourceLocation, node: String, op: String, cause: any Error) {
        self.location = location
        self.node = node
        self.op = op
        self.cause = cause
    }

    package init(location: SourceLocation, node: String, op: String, message: String) {
        self.init(location: location, node: node, op: op, cause: Problem(message))
    }

    /// `FILE:LINE:COLUMN: error: save node 'out': MESSAGE`; without the node when there is none (`op`
    /// empty: a name the graph does not have).
    public var description: String { Diagnostic.error(location, statement).description }

    /// `save node 'out': MESSAGE`: what went wrong and at which node, without the place.
    package var statement: String { op.isEmpty ? message : "\(op) node '\(node)': \(message)" }
}

extension Graph {
    /// The nodes a run needs: the sinks (nodes without outputs) and every node they read, directly or
    /// not. A node whose output nothing reads does not run, as in any demand-driven pipeline.
    package var neededNodes: [GraphNode] { neededNodes(keeping: [], supplied: []) }

    /// The outputs that are results rather than intermediate values: every output that is not an image
    /// and that no node's input reads, as `node.port` (an analysis whose boxes nothing draws). A parameter
    /// that takes its value from such an output (`rect: {from: heat.boxes}`) uses a setting from it and
    /// leaves it a result. `tessera run --json` prints these.
    public var unreadValues: [String] {
        let read = Set(nodes.flatMap { $0.inputs.values.map { "\($0.node).\($0.port)" } })
        return nodes.flatMap { node in
            node.declaration.outputs.filter { $0.type != .image }.map { "\(node.name).\($0.name)" }
                .filter { !read.contains($0) }
        }
    }

    /// The files the graph's nodes write (their output paths, resolved), in running order.
    public var writtenFiles: [String] {
        nodes.flatMap { node in
            node.declaration.parameters.filter { $0.type == .path(isOutput: true) }.compactMap { parameter in
                if case .value(let path as OutputPath) = node.parameters[parameter.name]?.source {
                    return path.resolved
                }
                return nil
            }
        }
    }

    /// The nodes a run needs to feed the sinks and the nodes named in `keeping`, when the nodes named
    /// in `supplied` have their values given (so what they read is not needed for them).
    func neededNodes(keeping: Set<String>, supplied: Set<String>) -> [GraphNode] {
        var needed = Set(nodes.filter { $0.declaration.outputs.isEmpty }.map(\.name)).union(keeping)
        for node in nodes.reversed() where needed.contains(node.name) && !supplied.contains(node.name) {
            for reference in node.references { needed.insert(reference.node) }
        }
        return nodes.filter { needed.contains($0.name) }
    }

    /// Runs the needed nodes once each, in order, passing outputs along; a value is dropped once its
    /// last reader ran.
    ///
    /// Nodes run on this thread and return lazy images; the pixels are rendered when a sink (or a
    /// global node) reads them: the scheduler splits each such read into tiles, renders them on
    /// `options.threads` workers, and pulls each tile through the chain of kernels, caching cells where
    /// readers overlap. See Docs/HowItWorks.md.
    ///
    /// - Parameters:
    ///   - supplied: values that stand for nodes' first outputs, by node name: the node does not run
    ///     (a program feeds an image it holds in memory in place of a `load`).
    ///   - keeping: nodes whose outputs the report keeps (``RunReport/outputs``); their images are
    ///     rendered in full by the scheduler, like a sink's.
    @discardableResult
    public func run(
        options: RunOptions = RunOptions(), supplying supplied: [String: NodeValue] = [:], keeping: [String] = []
    ) throws(RunError) -> RunReport {
        try RunSession(graph: self, options: options, keeping: keeping).perform(supplying: supplied, planOnly: false)
    }

    /// The plan for a run with these arguments (see ``run(options:supplying:keeping:)``), made as the
    /// run makes it: the sources are opened (their headers read, no pixels), the nodes that read no
    /// pixels in `run()` build their kernels, and each pass whose images are known is planned from the
    /// requests it will make, exactly as the run plans it (``PassPlan``). A pass reading what a global
    /// node computes is planned when the run gets there. `tessera run --plan` prints it.
    package func plan(
        options: RunOptions = RunOptions(), supplying supplied: [String: NodeValue] = [:], keeping: [String] = []
    ) throws(RunError) -> RenderPlan {
        let report = try RunSession(graph: self, options: options, keeping: keeping)
            .perform(supplying: supplied, planOnly: true)
        guard var plan = report.plan else { return RenderPlan(nodes: [], diskThreshold: options.diskThreshold) }
        for pass in report.passes { plan.passPlans[pass.reader] = pass }
        return plan
    }

    /// Checks values to supply to a run (``run(options:supplying:keeping:)``) without running anything:
    /// each must name a node, and an `input` takes only an image of its declared size and channels. The
    /// error is at the node's parameter at fault.
    public func check(supplying supplied: [String: NodeValue]) throws(RunError) {
        for (name, value) in supplied.sorted(by: { $0.key < $1.key }) {
            guard let node = node(named: name) else {
                throw RunError(
                    location: SourceLocation(file: file), node: name, op: "",
                    message: "the graph has no node '\(name)'" + Suggestion.didYouMean(name, in: nodes.map(\.name)))
            }
            try node.check(supplied: value)
        }
    }

    /// The nodes a run with these arguments runs, in order; the names supplied and kept must exist.
    func nodesToRun(
        options: RunOptions, supplying supplied: [String: NodeValue], keeping: [String]
    ) throws(RunError) -> [GraphNode] {
        try check(supplying: supplied)
        for name in keeping where node(named: name) == nil {
            throw RunError(
                location: SourceLocation(file: file), node: name, op: "", message: "the graph has no node '\(name)'")
        }
        let results = options.collectsValues ? unreadValues.map { String($0.prefix { $0 != "." }) } : []
        return neededNodes(keeping: Set(keeping).union(results), supplied: Set(supplied.keys))
    }

    /// Opens the source nodes that read nothing upstream (a `load` reads its header), then plans the
    /// run; returns the plan and the sources' outputs, which the run uses instead of running them again.
    /// A missing or broken input file fails here, before any output is written.
    func makePlan(
        nodes: [GraphNode], keeping: [String], supplied: [String: NodeValue], monitor: RunMonitor
    ) throws(RunError) -> (plan: RenderPlan, opened: [String: [String: NodeValue]]) {
        var opened: [String: [String: NodeValue]] = [:]
        var facts: [String: RenderPlan.SourceFacts] = [:]
        for node in nodes
        where supplied[node.name] == nil && node.declaration.access == .source && node.references.isEmpty {
            do {
                let outputs = try node.execute(reading: [:], monitor: monitor)
                opened[node.name] = outputs
                if let first = node.declaration.outputs.first, case .image(let image)? = outputs[first.name] {
                    facts[node.name] = RenderPlan.SourceFacts(image)
                }
            } catch {
                throw Self.runError(error, at: node, in: nodes)
            }
        }
        let plan = RenderPlan(
            nodes: nodes, keeping: Set(keeping), supplied: Set(supplied.keys), sources: facts,
            diskThreshold: monitor.options.diskThreshold)
        try Self.decodeSmaller(&opened, as: plan, nodes: nodes)
        return (plan, opened)
    }

    /// `value` with an image rendered in full (by the workers, as a sink reads it), so it outlives the run.
    ///
    /// An image of 8- or 16-bit depth is kept as its samples in that depth, the bytes `save` would write
    /// (3 bytes a pixel for 8-bit RGB): the workers encode them as they render, where a point node over
    /// 8-bit samples is a table lookup; a float image keeps its Float32 samples.
    static func materialize(_ value: NodeValue, kept node: String, monitor: RunMonitor) throws -> NodeValue {
        guard case .image(let image) = value else { return value }
        monitor.beginStage(pixels: image.extent.area)
        let (progress, tile) = try planAndServe(
            reader: node, images: [image], role: .sink, sparse: false, monitor: monitor)
        defer { PassPlan.end(roots: [image]) }
        let kept: any PixelSource
        if image.depth == .float32 {
            let parallel = ParallelSource(image: image, monitor: monitor, role: .sink, progress: progress, tile: tile)
            kept = BufferSource(buffer: try image.withSource(parallel).pixels())
        } else {
            let format = SampleFormat(depth: image.depth, bands: image.layout.fileChannels)
            let rowBytes = image.width * format.bytesPerPixel
            var scratch = PixelBuffer(region: .empty, channels: image.channels)
            defer { scratch.recycle() }
            var failure: (any Error)?
            let bytes = [UInt8](unsafeUninitializedCapacity: rowBytes * image.height) { target, count in
                count = rowBytes * image.height
                guard let base = target.baseAddress else { return }
                // The workers encode the bands straight into the kept bytes.
                let parallel = ParallelSource(
                    image: image, monitor: monitor, progress: progress, into: base, rowBytes: rowBytes, tile: tile)
                do {
                    try image.withSource(parallel).encode(
                        image.extent, with: image.encoder(for: format), scratch: &scratch, into: base,
                        rowBytes: rowBytes)
                } catch {
                    // Every byte was counted as initialized: zero them, so none is read uninitialized.
                    base.initialize(repeating: 0, count: count)
                    failure = error
                }
            }
            if let failure { throw failure }
            kept = PackedBufferSource(format: format, width: image.width, bytes: bytes)
        }
        monitor.endStage()
        return .image(image.withSource(kept))
    }

    /// Plans the pass in which `reader` reads `images` whole without running it, for ``plan(options:supplying:keeping:)``.
    static func planPass(
        reader: String, images: [Image], role: ParallelSource.Role, sparse: Bool = false, monitor: RunMonitor
    ) throws {
        let options = monitor.options
        monitor.recordPass(
            try PassPlan.make(
                reader: reader, roots: images, tileSize: options.tileSize,
                ahead: ParallelSource.ahead(role: role, threads: options.threads),
                diskThreshold: options.diskThreshold, sparse: sparse))
    }

    /// Plans the pass in which `reader` reads `images` whole (``PassPlan``), sets their images up to serve
    /// it as planned, and returns what the reader reads them through, one for each.
    static func beginPass(
        reader: String, images: [Image], role: ParallelSource.Role, sparse: Bool, monitor: RunMonitor
    ) throws -> [ParallelSource] {
        guard !images.isEmpty else { return [] }
        let (progress, tile) = try planAndServe(
            reader: reader, images: images, role: role, sparse: sparse, monitor: monitor)
        return images.enumerated().map { root, image in
            ParallelSource(image: image, monitor: monitor, role: role, progress: progress, root: root, tile: tile)
        }
    }

    /// Plans the pass and sets the images up, returning the progress the pass's readers report to and
    /// the side of the pass's tiles.
    static func planAndServe(
        reader: String, images: [Image], role: ParallelSource.Role, sparse: Bool, monitor: RunMonitor
    ) throws -> (progress: PassProgress, tile: Int) {
        let progress = PassProgress(roots: images.count)
        let options = monitor.options
        let plan = try PassPlan.make(
            reader: reader, roots: images, tileSize: options.tileSize,
            ahead: ParallelSource.ahead(role: role, threads: options.threads), diskThreshold: options.diskThreshold,
            sparse: sparse, apply: progress)
        monitor.recordPass(plan)
        return (progress, plan.tileSize)
    }

    /// A failure while `node` ran, named after the node whose pixels failed.
    static func runError(_ error: any Error, at node: GraphNode, in nodes: [GraphNode]) -> RunError {
        if let error = error as? RunError { return error }
        if let failure = error as? RenderFailure {
            let source = nodes.first { $0.name == failure.node } ?? node
            return RunError(
                location: source.location, node: source.name, op: source.declaration.op, cause: failure.error)
        }
        return RunError(location: node.location, node: node.name, op: node.declaration.op, cause: error)
    }

    /// A node may return a chain of kernels (resize: a rows pass, then a columns pass). Every image in
    /// the chain that is not another node's output is scheduled like a node's output, under the node's
    /// name, so that each pass's plan (``PassPlan``) decides how it is served: a stage whose reader asks
    /// for a tall region (a big shrink's columns pass) is then rendered a cell at a time, each cell
    /// reading only its own part of the input.
    static func scheduleStages(of image: Image, node: String, op: String, link: RunLink) -> Image {
        guard let kernelSource = image.source as? KernelSource else { return image }
        var staged = false
        let inputs = kernelSource.inputs.map { input -> KernelInput in
            guard input.image.source is KernelSource else { return input }
            staged = true
            let inner = scheduleStages(of: input.image, node: node, op: op, link: link)
            let source = ScheduledSource(node: node, op: op, image: inner, link: link, isStage: true)
            return KernelInput(inner.withSource(source), edge: input.edge)
        }
        guard staged else { return image }
        return image.withSource(KernelSource(kernel: kernelSource.kernel, inputs: inputs, channels: image.channels))
    }

    static func describe(_ error: any Error) -> String {
        if error is CancellationError { return "interrupted" }
        if let error = error as? ImageError { return error.description }
        if let error = error as? NodeProblem { return "\(error.parameter): \(error.message)" }
        return "\(error)"
    }
}

extension GraphNode {
    /// Sinks and global nodes: they read their input images whole, split into tiles for the workers.
    var readsWholeImages: Bool { declaration.access == .sink || declaration.access == .global }

    /// Configures this node from its settings and upstream values, runs it, and names its outputs.
    func execute(reading values: [String: NodeValue], monitor: RunMonitor) throws -> [String: NodeValue] {
        var parameterValues: [String: any ParameterValue] = [:]
        var takesUpstream = false
        for (name, setting) in parameters {
            switch setting.source {
            case .value(let value):
                parameterValues[name] = value
            case .upstream(let reference):
                takesUpstream = true
                guard let upstream = values[reference.node + "." + reference.port],
                    let field = declaration.parameterFields[name]
                else { throw NodeConfigurationError("\(name): '\(reference.text)' produced no value") }
                do {
                    parameterValues[name] = try field.typed(upstream: upstream)
                } catch {
                    throw RunError(
                        location: setting.location, node: self.name, op: declaration.op,
                        message: "\(name) from '\(reference.text)': \(error.message)")
                }
            }
        }
        var inputValues: [String: NodeValue] = [:]
        var wholeReads: [(name: String, image: Image)] = []
        for (name, reference) in inputs.sorted(by: { $0.key < $1.key }) {
            guard let value = values[reference.node + "." + reference.port] else {
                throw NodeConfigurationError("\(name): '\(reference.text)' produced no value")
            }
            if case .image(let image) = value, declaration.access == .sink {
                try checkOutputSize(image, limit: monitor.options.maxOutputPixels)
            }
            if case .image(let image) = value, readsWholeImages, declaration.input(named: name)?.readsPixels != false {
                wholeReads.append((name, image))
            } else {
                inputValues[name] = value
            }
        }
        // Sinks and global nodes read whole images: a pass, planned from the requests it will make, whose
        // reads are split into tiles for the workers.
        let role: ParallelSource.Role = declaration.access == .sink ? .sink : .global
        let roots = wholeReads.map(\.image)
        let barriers = try Graph.beginPass(
            reader: self.name, images: roots, role: role, sparse: declaration.info.readsRegions, monitor: monitor)
        defer { PassPlan.end(roots: roots) }
        for (read, parallel) in zip(wholeReads, barriers) {
            inputValues[read.name] = .image(read.image.withSource(parallel))
        }
        let node = try declaration.instantiate(parameters: parameterValues, inputs: inputValues)
        if takesUpstream {
            let context = ValidationContext(
                inputTypes: inputValues.mapValues(\.type), setParameters: Set(parameters.keys))
            if let problem = node.validate(in: context).first { throw problem }
        }
        // Jobs the node hands out (a sweep's settings) run on the run's workers.
        let produced = try Jobs.$current.withValue(monitor.jobs) { try node.run().values }
        // The barrier is passed: an image the node returns may still read its input (normalize's
        // stretch), tile by tile on the workers, and those reads go straight to the input.
        for parallel in barriers { parallel.passThrough() }
        var outputs: [String: NodeValue] = [:]
        for (port, value) in produced {
            let name = port.isEmpty ? declaration.outputs.first?.name ?? "" : port
            guard let output = declaration.output(named: name), output.type == value.type else {
                throw NodeConfigurationError("produced \(value.type.phrase) as '\(name)', which it does not declare")
            }
            outputs[name] = value
        }
        for output in declaration.outputs where outputs[output.name] == nil {
            throw NodeConfigurationError("did not produce its output '\(output.name)'")
        }
        return outputs
    }
}

extension GraphNode {
    /// Plans the pass in which this node (a sink or a global node) reads its image inputs, without running.
    func planPass(reading values: [String: NodeValue], monitor: RunMonitor) throws {
        let images = inputs.sorted(by: { $0.key < $1.key }).compactMap { name, reference -> Image? in
            guard declaration.input(named: name)?.readsPixels != false,
                case .image(let image)? = values[reference.node + "." + reference.port]
            else { return nil }
            return image
        }
        guard !images.isEmpty else { return }
        try Graph.planPass(
            reader: self.name, images: images, role: declaration.access == .sink ? .sink : .global,
            sparse: declaration.info.readsRegions, monitor: monitor)
    }
}

extension GraphNode {
    /// Holds a value a program supplies for this node to what the node declares (an `input`'s size and
    /// channels, ``ConfiguredNode/check(supplied:)``), at the parameter at fault. A node that reads
    /// others is not asked: what it reads does not run.
    func check(supplied value: NodeValue) throws(RunError) {
        guard references.isEmpty else { return }
        var parameterValues: [String: any ParameterValue] = [:]
        for (name, setting) in parameters {
            guard case .value(let value) = setting.source else { return }
            parameterValues[name] = value
        }
        do {
            try declaration.instantiate(parameters: parameterValues, inputs: [:]).check(supplied: value)
        } catch let problem as NodeProblem {
            throw RunError(
                location: parameters[problem.parameter]?.location ?? location, node: name, op: declaration.op,
                message: problem.message)
        } catch {
            return  // a node that cannot be made without its inputs takes what it is given
        }
    }

    /// Refuses an image too large to write (``RunOptions/maxOutputPixels``), before the sink opens its
    /// file: a graph asking for a huge image must not write until the disk is full.
    func checkOutputSize(_ image: Image, limit: Int) throws(RunError) {
        let pixels = image.extent.area
        guard pixels > limit else { return }
        throw RunError(
            location: location, node: name, op: declaration.op,
            message: "the image to write is \(image.width)x\(image.height) (\(pixels) pixels), more than the "
                + "output limit of \(limit) pixels; raise it with --max-output-pixels N "
                + "(RunOptions.maxOutputPixels)")
    }
}

extension GraphNode {
    /// `output` with the metadata (profile, EXIF, XMP) of this node's first connected image input, in
    /// the order the node declares its inputs, when the node set none of its own: as each libvips
    /// operation copies its first input's header fields, so a photo's profile and camera data reach
    /// `save` through any chain of filters.
    func inheritingMetadata(_ output: Image, reading values: [String: NodeValue]) -> Image {
        guard output.metadata.isEmpty else { return output }
        for input in declaration.inputs {
            guard let reference = inputs[input.name],
                case .image(let image)? = values[reference.node + "." + reference.port]
            else { continue }
            return output.withMetadata(image.metadata)
        }
        return output
    }
}
