import TesseraCore

/// `resize`: scales an image to a size, by a factor, or to another image's size, as Pillow's
/// `Image.resize` does (and libvips' `resize` close to it).
///
///     small: { op: resize, input: photo, width: 512 }              # height follows the aspect ratio
///     half:  { op: resize, input: photo, factor: 0.5 }
///     big:   { op: resize, input: heat, like: photo }              # a 64x64 heat map to the photo's size
///
/// Give the size exactly one way: `width` and/or `height`, or `factor`, or connect `like`. Width or
/// height alone keeps the aspect ratio (the other side rounds to the nearest pixel, at least 1).
///
/// The whole input maps onto the whole output, with pixel centers aligned: output pixel `x` samples
/// the input at `(x + 0.5) * scale - 0.5`, `scale = inputWidth / outputWidth` (the same vertically).
/// A factor only chooses the output size; the scale is then the sizes' ratio, as in Pillow (libvips
/// keeps the exact factor, which moves the far edge by under a pixel).
///
/// Shrinking is antialiased: the filter is stretched by the scale, so every input pixel contributes
/// (a 4K photo shrunk to 512 does not alias). Near the borders, weights that would fall outside the
/// image are dropped and the rest renormalized, as Pillow does, so the node never reads outside the
/// image. Values are not clamped: bicubic and lanczos3 overshoot a little at sharp edges, as in
/// Pillow's float images.
///
/// Alpha never darkens edges: colors are premultiplied by alpha before filtering and divided by the
/// filtered alpha after (color 0 where it is 0 or less), and alpha is clamped to 0...1. `nearest`
/// copies pixels and needs none of this. The output keeps the input's layout and depth.
///
/// Shrink-on-load: when every node that reads a JPEG's pixels is a resize shrinking it 32 times or
/// more (a 27 MP photo to 200 px), the run decodes it at 1/4 or 1/8 by libjpeg's DCT scaling and
/// the resize maps that smaller decode onto the same output: the size and the geometry are those of
/// the full image (`width`, `factor` and `like` mean what they mean without), and the pixels are within
/// 2/255 of a full decode resized on the photos measured (`RenderPlan.shrinkOnLoad` gives the rule and the figures).
/// The `load` node's `shrink: 1` turns it off.
///
/// - Cost: one pass over the needed input rows into the output's columns, then one down the
///   output's rows; per output pixel about `2 * support * max(1, scale)` multiply-adds per axis
///   (support 1 bilinear, 2 bicubic, 3 lanczos3). Weights are computed once per run. Memory: a tile
///   reads an input region `scale` times its size plus the filter's reach, all at once, so a large
///   shrink reads a large region per tile (8K to 1080p: about 1036x1036 pixels, 17 MB, per 256-pixel
///   tile; 8K to 240 pixels wide: the whole image for its one tile).
struct Resize: Node {
    static let info = NodeInfo(
        op: "resize",
        summary:
            "Scales an image to a width and/or height, by a factor, or to another image's size, as Pillow's resize.",
        access: .geometry,
        outputs: [
            .init(
                "output", .image,
                doc: "The resized image, with the input's layout and depth; values are not clamped.")
        ],
        example: """
            photo: { op: load, path: photo.jpg }
            small: { op: resize, input: photo, width: 512 }
            out: { op: save, input: small, path: small.png }
            """)

    /// The filter that weighs input pixels, with Pillow's kernels.
    enum Interpolation: String, ParameterChoice {
        /// The input pixel whose area holds the sample point (Pillow's NEAREST).
        case nearest
        /// The triangle filter, support 1.
        case bilinear
        /// Keys' cubic convolution with a = -0.5, support 2 (Pillow's BICUBIC).
        case bicubic
        /// A sinc windowed by a sinc, support 3 (Pillow's LANCZOS, libvips' default).
        case lanczos3
    }

    /// The largest output side any way of sizing may give: the range of `width` and `height`.
    static let maximumSide = 1_000_000

    @Input(doc: "The image to resize.")
    var input: Image

    @Input(
        doc: "Resize to this image's width and height, instead of giving them; its pixels are never read.",
        readsPixels: false)
    var like: Image?

    @Parameter(
        doc: "Output width; alone, the height follows the input's aspect ratio.",
        range: 1...Double(maximumSide), suggested: 16...8192, unit: "px")
    var width: Int? = nil

    @Parameter(
        doc: "Output height; alone, the width follows the input's aspect ratio.",
        range: 1...Double(maximumSide), suggested: 16...8192, unit: "px")
    var height: Int? = nil

    @Parameter(
        doc: "Scale both sides by this (0.5 halves them); sizes round to the nearest pixel.",
        range: 0.0001...10000, suggested: 0.05...8)
    var factor: Double? = nil

    @Parameter(
        doc: "Pillow's kernels: bicubic (Pillow's default) is sharp and rings less than lanczos3 (libvips' default) "
            + "when a small map is enlarged a lot; nearest copies pixels.")
    var interpolation = Interpolation.bicubic

    func validate() throws(NodeProblem) {
        if factor != nil, width != nil || height != nil {
            throw NodeProblem(
                parameter: "factor",
                "give either factor or width/height, not both: they size the output two ways")
        }
    }

    func run() throws -> NodeOutputs {
        let size = try outputSize(input: ImageShape(of: input), like: like.map(ImageShape.init(of:)))
        if size.width == input.width && size.height == input.height { return NodeOutputs(.image(input)) }
        // A smaller decode of the input (shrink-on-load): the part the file covers maps onto the output,
        // as the whole input does otherwise.
        let smaller = interpolation == .nearest ? nil : input.smallerDecode
        let read = smaller?.image ?? input
        let stages = Kernel(
            input: (read.width, read.height), output: (size.width, size.height), layout: input.layout,
            interpolation: interpolation, part: smaller?.part
        ).stages
        let intermediate = stages.rows.intermediateSize
        let rows = Image(
            width: intermediate.width, height: intermediate.height, layout: input.layout, depth: input.depth,
            kernel: stages.rows, inputs: [KernelInput(read)])
        return NodeOutputs(
            .image(
                Image(
                    width: size.width, height: size.height, layout: input.layout, depth: input.depth,
                    kernel: stages.columns, inputs: [KernelInput(rows)])))
    }

    /// Before any pixel: the output's size, and how much it shrinks the input (nil for `nearest`, which
    /// picks input pixels): a resize reads its input only to make it smaller, so a file it shrinks
    /// enough may be decoded smaller (shrink-on-load).
    func prepare(_ inputs: [String: ImageShape]) -> Preparation {
        guard let input = inputs["input"], let size = try? outputSize(input: input, like: inputs["like"]) else {
            return Preparation()
        }
        let shrink = Swift.min(Double(input.width) / Double(size.width), Double(input.height) / Double(size.height))
        return Preparation(
            outputSizes: ["output": size], inputShrinks: interpolation == .nearest ? [:] : ["input": shrink])
    }

    /// The output size the parameters, or `like`, ask for from an `input` of its shape; a problem naming
    /// the parameter at fault when they ask for none or for two at once (`like` is only known here, not
    /// in ``validate()``).
    func outputSize(input: ImageShape, like: ImageShape?) throws(NodeProblem) -> Preparation.Size {
        try validate()
        if let like {
            let given = [("width", width != nil), ("height", height != nil), ("factor", factor != nil)]
            if let (name, _) = given.first(where: \.1) {
                throw NodeProblem(
                    parameter: name,
                    "give either '\(name)' or the 'like' input, not both: they size the output two ways")
            }
            return .init(width: like.width, height: like.height)
        }
        let size: Preparation.Size
        let fault: String
        switch (width, height, factor) {
        case (let width?, let height?, _):
            return .init(width: width, height: height)
        case (let width?, nil, _):
            size = .init(width: width, height: Self.scaled(input.height, by: Double(width) / Double(input.width)))
            fault = "width"
        case (nil, let height?, _):
            size = .init(width: Self.scaled(input.width, by: Double(height) / Double(input.height)), height: height)
            fault = "height"
        case (nil, nil, let factor?):
            size = .init(width: Self.scaled(input.width, by: factor), height: Self.scaled(input.height, by: factor))
            fault = "factor"
        case (nil, nil, nil):
            throw NodeProblem(
                parameter: "width", "the output size is missing: give width and/or height, or factor, or connect 'like'"
            )
        }
        guard size.width <= Self.maximumSide, size.height <= Self.maximumSide else {
            throw NodeProblem(
                parameter: fault,
                "gives a \(size) output from \(input.width)x\(input.height); sides are at most \(Self.maximumSide) px")
        }
        return size
    }

    /// `side * ratio` rounded to the nearest pixel, at least 1 (and capped so the conversion never traps).
    static func scaled(_ side: Int, by ratio: Double) -> Int {
        Int(Swift.min(Swift.max((Double(side) * ratio).rounded(), 1), 1e15))
    }
}
