import Dispatch
import Synchronization
import TesseraCore

/// A node failed while the graph ran.
public struct RunError: Error, Sendable, CustomStringConvertible {
    /// Where the failing node is written.
    public var location: SourceLocation
    public var node: String
    public var op: String
    public var message: String
    /// The run was stopped (``Cancellation``), not failed.
    public var isCancellation = false

    /// `FILE:LINE:COLUMN: error: save node 'out': MESSAGE`.
    public var description: String {
        Diagnostic.error(location, "\(op) node '\(node)': \(message)").description
    }
}

extension Graph {
    /// The nodes a run needs: the sinks (nodes without outputs) and every node they read, directly or
    /// not. A node whose output nothing reads does not run, as in any demand-driven pipeline.
    public var neededNodes: [GraphNode] {
        var needed = Set(nodes.filter { $0.declaration.outputs.isEmpty }.map(\.name))
        for node in nodes.reversed() where needed.contains(node.name) {
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
    @discardableResult
    public func run(options: RunOptions = RunOptions()) throws(RunError) -> RunReport {
        let nodes = neededNodes
        let monitor = RunMonitor(options: options)
        defer { monitor.finish() }
        var remainingReaders: [String: Int] = [:]
        for node in nodes { for reference in node.references { remainingReaders[reference.node, default: 0] += 1 } }
        let readers = remainingReaders
        var values: [String: NodeValue] = [:]  // "node.port"
        for node in nodes {
            if node.declaration.access == .sink {
                for reference in node.inputs.values {
                    if case .image(let image)? = values[reference.node + "." + reference.port] {
                        monitor.expect(pixels: image.extent.area)
                    }
                }
            }
        }
        for node in nodes {
            do {
                if options.cancellation.isCancelled { throw CancellationError() }
                let outputs: [String: NodeValue]
                if node.declaration.access == .sink || node.declaration.access == .global {
                    // Their own time (encoding, a global node's work on what it read) is measured here;
                    // waiting for the bands they read is their inputs' time, not theirs.
                    let read = node.inputs.values.lazy.compactMap { reference -> Rect? in
                        guard case .image(let image)? = values[reference.node + "." + reference.port] else {
                            return nil
                        }
                        return image.extent
                    }
                    outputs = try monitor.measure(
                        node: node.name, op: node.declaration.op, region: read.first ?? .empty
                    ) {
                        try node.execute(reading: values, monitor: monitor)
                    }
                } else {
                    outputs = try node.execute(reading: values, monitor: monitor)
                }
                for (port, value) in outputs {
                    guard case .image(let image) = value else {
                        values["\(node.name).\(port)"] = value
                        continue
                    }
                    let staged = Self.scheduleStages(
                        of: image, node: node.name, op: node.declaration.op, monitor: monitor)
                    Self.enableCaches(for: staged, tileSize: options.tileSize)
                    let source = ScheduledSource(
                        node: node.name, op: node.declaration.op, image: staged, monitor: monitor)
                    if readers[node.name, default: 0] > 1 { source.enableCache(rows: 2) }
                    values["\(node.name).\(port)"] = .image(
                        Image(
                            width: image.width, height: image.height, layout: image.layout, depth: image.depth,
                            source: source))
                }
            } catch let error as RunError {
                throw error
            } catch let failure as RenderFailure {
                let source = nodes.first { $0.name == failure.node } ?? node
                throw RunError(
                    location: source.location, node: source.name, op: source.declaration.op,
                    message: Self.describe(failure.error))
            } catch {
                throw RunError(
                    location: node.location, node: node.name, op: node.declaration.op, message: Self.describe(error),
                    isCancellation: error is CancellationError)
            }
            for reference in node.references {
                remainingReaders[reference.node, default: 1] -= 1
                if remainingReaders[reference.node] == 0 {
                    values = values.filter { !$0.key.hasPrefix(reference.node + ".") }
                }
            }
        }
        return monitor.report(order: nodes.map(\.name))
    }

    /// Turns on the caches of the scheduled images `image`'s kernel reads with a margin, so that
    /// neighbouring tiles share the rows they both read instead of rendering them twice.
    static func enableCaches(for image: Image, tileSize: Int) {
        guard let kernelSource = image.source as? KernelSource else { return }
        // A tile in the middle of the output stands for all: away from the edges, where kernels clamp.
        // Its neighbours to the right and below tell whether tiles read overlapping input regions;
        // where they do not (a shrink's rows pass, whose tiles read disjoint rows) nothing is reused.
        let probe = Rect(
            x: image.width / 2 / tileSize * tileSize, y: image.height / 2 / tileSize * tileSize, width: tileSize,
            height: tileSize
        ).intersection(image.extent)
        let neighbours = [probe.offsetBy(dx: tileSize, dy: 0), probe.offsetBy(dx: 0, dy: tileSize)]
            .map { $0.intersection(image.extent) }.filter { !$0.isEmpty }
        for (index, input) in kernelSource.inputs.enumerated() {
            guard let source = input.image.source as? ScheduledSource else { continue }
            let region = kernelSource.kernel.inputRegion(for: probe, input: index)
            let shared = neighbours.contains {
                !kernelSource.kernel.inputRegion(for: $0, input: index).intersection(region).isEmpty
            }
            if shared && (region.width > probe.width || region.height > probe.height) {
                source.enableCache(rows: (region.height + tileSize - 1) / tileSize + 1)
            }
        }
    }

    /// A node may return a chain of kernels (resize: a rows pass, then a columns pass). Every image in
    /// the chain that is not another node's output is scheduled like a node's output, under the
    /// node's name: its requests go through cells (cached where its readers overlap), so a stage
    /// whose reader asks for a tall region (a big shrink's columns pass) renders it a cell at a time,
    /// each cell reading only its own part of the input.
    static func scheduleStages(of image: Image, node: String, op: String, monitor: RunMonitor) -> Image {
        guard let kernelSource = image.source as? KernelSource else { return image }
        let tileSize = monitor.options.tileSize
        let probe = Rect(x: 0, y: 0, width: tileSize, height: tileSize).intersection(image.extent)
        var staged = false
        let inputs = kernelSource.inputs.enumerated().map { index, input -> KernelInput in
            guard input.image.source is KernelSource else { return input }
            staged = true
            let inner = scheduleStages(of: input.image, node: node, op: op, monitor: monitor)
            enableCaches(for: inner, tileSize: tileSize)
            let source = ScheduledSource(node: node, op: op, image: inner, monitor: monitor)
            // Cells even where tiles share nothing: they are what splits a tall request into pieces.
            let region = kernelSource.kernel.inputRegion(for: probe, input: index)
            if region.width > probe.width || region.height > probe.height {
                source.enableCache(rows: (region.height + tileSize - 1) / tileSize + 1)
            }
            return KernelInput(
                Image(
                    width: inner.width, height: inner.height, layout: inner.layout, depth: inner.depth, source: source),
                edge: input.edge)
        }
        guard staged else { return image }
        return Image(
            width: image.width, height: image.height, layout: image.layout, depth: image.depth,
            kernel: kernelSource.kernel, inputs: inputs)
    }

    static func describe(_ error: any Error) -> String {
        if let error = error as? ImageError { return error.description }
        if let error = error as? NodeProblem { return "\(error.parameter): \(error.message)" }
        return "\(error)"
    }
}

extension GraphNode {
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
        for (name, reference) in inputs {
            guard let value = values[reference.node + "." + reference.port] else {
                throw NodeConfigurationError("\(name): '\(reference.text)' produced no value")
            }
            // Sinks and global nodes read whole images: those reads are split into tiles for the workers.
            if case .image(let image) = value, declaration.access == .sink || declaration.access == .global {
                inputValues[name] = .image(
                    Image(
                        width: image.width, height: image.height, layout: image.layout, depth: image.depth,
                        source: ParallelSource(
                            image: image, monitor: monitor, countsProgress: declaration.access == .sink)))
            } else {
                inputValues[name] = value
            }
        }
        let node = try declaration.instantiate(parameters: parameterValues, inputs: inputValues)
        if takesUpstream { try node.validate() }
        // Jobs the node hands out (a sweep's settings) run on the run's workers.
        let produced = try Jobs.$current.withValue(.workers(monitor.options.threads)) { try node.run().values }
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

extension Jobs {
    /// Jobs spread over up to `threads` Dispatch workers, each taking the next index until none is left.
    static func workers(_ threads: Int) -> Jobs {
        Jobs { count, body in
            let workers = Swift.min(threads, count)
            guard workers > 1 else {
                for index in 0..<count { body(index) }
                return
            }
            let next = Atomic<Int>(0)
            DispatchQueue.concurrentPerform(iterations: workers) { _ in
                while true {
                    let index = next.add(1, ordering: .relaxed).oldValue
                    if index >= count { break }
                    body(index)
                }
            }
        }
    }
}
