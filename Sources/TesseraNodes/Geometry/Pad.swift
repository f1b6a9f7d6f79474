import TesseraCore

/// `pad`: extends an image to a size or an aspect ratio (a letterbox), placing it by `position` and
/// filling the new canvas with a color or from the image's edges.
///
///     boxed:  { op: pad, input: photo, aspectRatio: 16:9 }                 # black bars, centered
///     square: { op: pad, input: photo, aspectRatio: 1, fill: mirror }
///     banner: { op: pad, input: logo, width: 1200, height: 300, position: left, color: [1, 1, 1, 0] }
///
/// The output is `width` x `height`, then grown on its short side to `aspectRatio` if one is given
/// (rounded to the nearest pixel). Pad never crops (use crop for that): a side not given, or given
/// smaller than the image's, keeps the image's, so a batch of mixed sizes pads each to at least the size. The image sits centered (an odd spare pixel goes right
/// or below), or against the side or corner `position` names.
///
/// `fill`: `color` paints the new canvas (numpy's `pad` with `constant`, OpenCV's `BORDER_CONSTANT`);
/// `extend` repeats the edge pixels outward (`edge`, `BORDER_REPLICATE`); `mirror` reflects the image
/// about its edges, the edge pixel repeated (`symmetric`, `BORDER_REFLECT`), and keeps reflecting when
/// the padding is wider than the image.
struct Pad: Node {
    static let info = NodeInfo(
        op: "pad",
        summary:
            "Extends an image to a size or an aspect ratio (letterbox), placed by position, filling with a color or "
            + "by extending or mirroring its edges.",
        access: .geometry,
        outputs: [
            .init(
                "output", .image,
                doc: "The padded image; with a color fill, RGBA when the color is not opaque, gray over a gray color.")
        ],
        example: """
            photo: { op: load, path: photo.png }
            wide: { op: pad, input: photo, aspectRatio: 16:9 }
            out: { op: save, input: wide, path: wide.png }
            """)

    /// Where the image sits on the larger canvas.
    enum Position: String, ParameterChoice {
        case center, top, bottom, left, right, topLeft, topRight, bottomLeft, bottomRight

        /// How much of the spare width and height goes before the image: 0, a half or all of it.
        var fractions: (x: Int, y: Int) {
            switch self {
            case .center: (1, 1)
            case .top: (1, 0)
            case .bottom: (1, 2)
            case .left: (0, 1)
            case .right: (2, 1)
            case .topLeft: (0, 0)
            case .topRight: (2, 0)
            case .bottomLeft: (0, 2)
            case .bottomRight: (2, 2)
            }
        }
    }

    /// What fills the new canvas.
    enum Fill: String, ParameterChoice {
        /// The `color` parameter.
        case color
        /// The nearest edge pixel, repeated outward.
        case extend
        /// The image reflected about its edges (edge pixels repeated), again and again if needed.
        case mirror
    }

    @Input(doc: "The image.")
    var input: Image

    @Parameter(
        doc: "The output width; the image's when unset or smaller (pad never crops).", range: 1...1_000_000,
        suggested: 16...4096, unit: "px")
    var width: Int? = nil

    @Parameter(
        doc: "The output height; the image's when unset or smaller (pad never crops).", range: 1...1_000_000,
        suggested: 16...4096, unit: "px")
    var height: Int? = nil

    @Parameter(
        doc: "Width over height, as 16:9 or 1 (a number works too): the short side grows to it.", range: 0.001...1000,
        suggested: 0.25...4)
    var aspectRatio: Ratio? = nil

    @Parameter(doc: "Where the image sits: center, a side (top, left, ...) or a corner (topLeft, ...).")
    var position = Position.center

    @Parameter(doc: "What fills the new canvas: color, the edge pixels extended, or the image mirrored.")
    var fill = Fill.color

    @Parameter(doc: "Red, green, blue and alpha, 0...1, of the new canvas when fill is color.", range: 0...1)
    var color = [0.0, 0, 0, 1]

    func validate() throws(NodeProblem) {
        if width == nil, height == nil, aspectRatio == nil {
            throw NodeProblem(parameter: "width", "give width, height or aspectRatio: the size to pad to is missing")
        }
    }

    func prepare(_ inputs: [String: ImageShape]) -> Preparation {
        guard let input = inputs["input"], (try? validate()) != nil,
            let size = try? outputSize(input: input)
        else { return Preparation() }
        return Preparation(outputSizes: ["output": .init(width: size.width, height: size.height)])
    }

    func run() throws -> NodeOutputs {
        try validate()
        let size = try outputSize(input: ImageShape(of: input))
        let spare = (x: size.width - input.width, y: size.height - input.height)
        let fractions = position.fractions
        let offset = (x: spare.x * fractions.x / 2, y: spare.y * fractions.y / 2)
        let value = Background.color(color)
        let layout = fill == .color ? Background.layout(of: input.layout, over: value) : input.layout
        let kernel = Kernel(
            width: input.width, height: input.height, left: offset.x, top: offset.y, fill: fill, color: value)
        return NodeOutputs(
            .image(
                Image(
                    width: size.width, height: size.height, layout: layout, depth: input.depth, kernel: kernel,
                    inputs: [KernelInput(input)])))
    }

    /// The output size for an `input` of its shape; a problem naming the parameter when a side would
    /// grow past the limit.
    func outputSize(input: ImageShape) throws(NodeProblem) -> (width: Int, height: Int) {
        var outWidth = Swift.max(width ?? input.width, input.width)
        var outHeight = Swift.max(height ?? input.height, input.height)
        if let ratio = aspectRatio?.value {
            if Double(outWidth) / Double(outHeight) < ratio {
                outWidth = Swift.max(outWidth, Int(Swift.min((Double(outHeight) * ratio).rounded(), 1e15)))
            } else {
                outHeight = Swift.max(outHeight, Int(Swift.min((Double(outWidth) / ratio).rounded(), 1e15)))
            }
        }
        let limit = 1_000_000
        guard outWidth <= limit, outHeight <= limit else {
            throw NodeProblem(
                parameter: aspectRatio == nil ? "width" : "aspectRatio",
                "gives a \(outWidth)x\(outHeight) output; sides are at most \(limit) px")
        }
        return (outWidth, outHeight)
    }

    struct Kernel: ImageKernel {
        var width: Int
        var height: Int
        var left: Int
        var top: Int
        var fill: Fill
        var color: SIMD4<Float>

        /// The input coordinate an output coordinate reads along an axis of `size` pixels, or nil for the
        /// color fill outside the image.
        @inline(__always)
        static func source(_ coordinate: Int, size: Int, fill: Fill) -> Int? {
            if coordinate >= 0 && coordinate < size { return coordinate }
            switch fill {
            case .color:
                return nil
            case .extend:
                return Swift.min(Swift.max(coordinate, 0), size - 1)
            case .mirror:
                let period = 2 * size
                let m = ((coordinate % period) + period) % period
                return m < size ? m : period - 1 - m
            }
        }

        /// The input range an output range `[start, end)` (already shifted to input coordinates) reads.
        static func span(_ start: Int, _ end: Int, size: Int, fill: Fill) -> (Int, Int)? {
            switch fill {
            case .color:
                let (a, b) = (Swift.max(start, 0), Swift.min(end, size))
                return a < b ? (a, b) : nil
            case .extend:
                return (Swift.min(Swift.max(start, 0), size - 1), Swift.min(Swift.max(end - 1, 0), size - 1) + 1)
            case .mirror:
                if end - start >= 2 * size { return (0, size) }
                var (low, high) = (size, -1)
                for c in start..<end {
                    let s = source(c, size: size, fill: fill) ?? 0
                    low = Swift.min(low, s)
                    high = Swift.max(high, s)
                }
                return (low, high + 1)
            }
        }

        func inputRegion(for output: Rect, input index: Int) -> Rect {
            guard
                let xs = Self.span(output.minX - left, output.maxX - left, size: width, fill: fill),
                let ys = Self.span(output.minY - top, output.maxY - top, size: height, fill: fill)
            else { return .empty }
            return Rect(x: xs.0, y: ys.0, width: xs.1 - xs.0, height: ys.1 - ys.0)
        }

        func render(into output: inout PixelBuffer, from inputs: [PixelBuffer]) {
            let input = inputs[0]
            let region = output.region
            let channels = output.channels
            let inChannels = input.channels
            let outRow = output.rowLength
            let (width, height, left, top, fill, color) = (width, height, left, top, fill, color)
            input.samples.withUnsafeBufferPointer { source in
                output.samples.withUnsafeMutableBufferPointer { target in
                    guard let to = target.baseAddress else { return }
                    let from = source.baseAddress
                    for row in 0..<region.height {
                        let o = to + row &* outRow
                        let sy = Self.source(region.minY + row - top, size: height, fill: fill)
                        for column in 0..<region.width {
                            let sx = Self.source(region.minX + column - left, size: width, fill: fill)
                            var value = color
                            if let sx, let sy, let from {
                                value = PointLoop.load(from + input.index(x: sx, y: sy), channels: inChannels)
                            }
                            PointLoop.store(value, o + column &* channels, channels: channels)
                        }
                    }
                }
            }
        }
    }
}
