/// The pixel math of an image-producing node: which input pixels an output region needs, and how to
/// compute it from them. This is all a node says about its pixels; which regions are asked for, in
/// which order, on which thread, and what is cached is the scheduler's business.
///
/// A kernel must be a pure function of its inputs: the pixels it writes for a point may not depend on
/// the region being rendered. That is what makes the output the same for every tile size and thread
/// count, and the shared node verifier checks it.
///
///     struct Invert: ImageKernel {
///         func render(into output: inout PixelBuffer, from inputs: [PixelBuffer]) {
///             // output.region == inputs[0].region here: a point kernel reads the same region.
///         }
///     }
public protocol ImageKernel: Sendable {
    /// The region of input `index` that rendering `output` reads, in that input's coordinates. It may
    /// reach past the input's extent (pixels there follow the input's ``EdgeMode``); `.empty` means
    /// this output region needs nothing from that input. The default is `output` itself: a point
    /// operation.
    func inputRegion(for output: Rect, input index: Int) -> Rect

    /// Renders `output.region`. Each `inputs[i]` covers at least `inputRegion(for: output.region,
    /// input: i)`, and may cover more: index through each buffer's own region.
    func render(into output: inout PixelBuffer, from inputs: [PixelBuffer]) throws
}

extension ImageKernel {
    public func inputRegion(for output: Rect, input index: Int) -> Rect { output }
}

/// What an input reads like outside its extent.
public enum EdgeMode: Sendable {
    /// The nearest edge pixel (Core Image's `clampedToExtent`).
    case clamp
    /// Zero in every channel: transparent black.
    case transparent
}

/// One input of a kernel: an image and how it reads outside its extent.
public struct KernelInput: Sendable {
    public var image: Image
    public var edge: EdgeMode

    public init(_ image: Image, edge: EdgeMode = .clamp) {
        self.image = image
        self.edge = edge
    }
}

/// The source of a node's output image: a kernel over input images. Rendering a region renders the
/// input regions the kernel declares (padded by their edge modes), then the kernel.
///
/// A class, so the scheduler can tell images apart and walk from an output back through its inputs.
package final class KernelSource: PixelSource {
    package let kernel: any ImageKernel
    package let inputs: [KernelInput]
    package let channels: Int

    package init(kernel: any ImageKernel, inputs: [KernelInput], channels: Int) {
        self.kernel = kernel
        self.inputs = inputs
        self.channels = channels
    }

    package func render(into output: inout PixelBuffer) throws {
        // The input buffers come from this thread's spares and go back to them: a worker rendering tile
        // after tile allocates nothing per tile.
        var buffers = SpareSamples.current.takeFrame()
        defer {
            for buffer in buffers { buffer.recycle() }
            SpareSamples.current.giveFrame(buffers)
        }
        for (index, input) in inputs.enumerated() {
            let region = kernel.inputRegion(for: output.region, input: index)
            var buffer = PixelBuffer.scratch(region: region, channels: input.image.channels)
            do {
                try input.image.render(region, edge: input.edge, into: &buffer)
            } catch {
                buffer.recycle()
                throw error
            }
            buffers.append(buffer)
        }
        try kernel.render(into: &output, from: buffers)
    }
}

extension Image {
    /// An image computed by `kernel` from `inputs`.
    public init(
        width: Int, height: Int, layout: PixelLayout, depth: SampleDepth, kernel: some ImageKernel,
        inputs: [KernelInput]
    ) {
        self.init(
            width: width, height: height, layout: layout, depth: depth,
            source: KernelSource(kernel: kernel, inputs: inputs, channels: layout.channels))
    }

    /// An image of `input`'s size, layout and depth computed by `kernel` from `input` alone, read
    /// without a margin: what a point node (and a flip) returns.
    public init(mapping input: Image, with kernel: some ImageKernel) {
        self.init(
            width: input.width, height: input.height, layout: input.layout, depth: input.depth, kernel: kernel,
            inputs: [KernelInput(input)])
    }

    /// The pixels of `region`, which may reach past the extent: pixels outside follow `edge`.
    /// An empty region gives an empty buffer.
    public func pixels(in region: Rect, edge: EdgeMode) throws -> PixelBuffer {
        var buffer = PixelBuffer(region: .empty, channels: channels)
        try render(region, edge: edge, into: &buffer)
        return buffer
    }

    /// Renders `region`, which may reach past the extent (pixels outside follow `edge`), into `buffer`,
    /// reshaped to it.
    func render(_ region: Rect, edge: EdgeMode, into buffer: inout PixelBuffer) throws {
        buffer.reshape(to: region)
        if region.isEmpty { return }
        if extent.contains(region) { return try render(into: &buffer) }
        let inside: Rect
        switch edge {
        case .transparent:
            inside = region.intersection(extent)
            buffer.samples.withUnsafeMutableBufferPointer { $0.update(repeating: 0) }
            if inside.isEmpty { return }
        case .clamp:
            // The pixels the clamped coordinates land on, then each row and column replicated outward.
            let x0 = Swift.min(Swift.max(region.minX, 0), width - 1)
            let x1 = Swift.min(Swift.max(region.maxX - 1, 0), width - 1)
            let y0 = Swift.min(Swift.max(region.minY, 0), height - 1)
            let y1 = Swift.min(Swift.max(region.maxY - 1, 0), height - 1)
            inside = Rect(x: x0, y: y0, width: x1 - x0 + 1, height: y1 - y0 + 1)
        }
        var part = PixelBuffer.scratch(region: inside, channels: channels)
        defer { part.recycle() }
        try render(into: &part)
        switch edge {
        case .transparent: buffer.copy(from: part)
        case .clamp: part.clampExtend(into: &buffer)
        }
    }
}

extension PixelBuffer {
    /// Fills `result` (whose region must overlap or touch this buffer's in each axis) with this
    /// buffer's pixels at the nearest coordinates inside it.
    func clampExtend(into result: inout PixelBuffer) {
        let target = result.region
        let channels = self.channels
        let sourceRegion = region
        let targetRowLength = result.rowLength
        let sourceRowLength = rowLength
        samples.withUnsafeBufferPointer { source in
            result.samples.withUnsafeMutableBufferPointer { out in
                guard let from = source.baseAddress, let to = out.baseAddress else { return }
                let inner0 = Swift.max(target.minX, sourceRegion.minX)
                let inner1 = Swift.min(target.maxX, sourceRegion.maxX)
                for row in 0..<target.height {
                    let sy = Swift.min(Swift.max(target.minY + row, sourceRegion.minY), sourceRegion.maxY - 1)
                    let sourceRow = from + (sy - sourceRegion.minY) * sourceRowLength
                    let targetRow = to + row * targetRowLength
                    if inner1 > inner0 {
                        (targetRow + (inner0 - target.minX) * channels).update(
                            from: sourceRow + (inner0 - sourceRegion.minX) * channels,
                            count: (inner1 - inner0) * channels)
                    }
                    let first = sourceRow
                    let last = sourceRow + (sourceRegion.width - 1) * channels
                    for x in target.minX..<Swift.min(inner0, target.maxX) {
                        (targetRow + (x - target.minX) * channels).update(from: first, count: channels)
                    }
                    for x in Swift.max(inner1, target.minX)..<target.maxX {
                        (targetRow + (x - target.minX) * channels).update(from: last, count: channels)
                    }
                }
            }
        }
    }
}
