import TesseraCore

/// `crop`: a rectangle of the input, given in pixels, taken from an upstream box, or the largest
/// rectangle of an aspect ratio (`aspectRatio: 4:3`), centered; always clamped to the image.
struct Crop: Node {
    static let info = NodeInfo(
        op: "crop",
        summary:
            "Cuts out a rectangle: given in pixels, from an upstream box, or of an aspect ratio; clamped to the image.",
        access: .geometry,
        outputs: [.init("output", .image, doc: "The rectangle's pixels; its top-left is the output's origin.")],
        example: """
            photo: { op: load, path: photo.png }
            face: { op: crop, input: photo, rect: [100, 40, 200, 150] }
            passport: { op: crop, input: photo, aspectRatio: 3:4 }
            a: { op: save, input: face, path: face.png }
            b: { op: save, input: passport, path: passport.png }
            """)

    @Input(doc: "The image.")
    var input: Image

    @Parameter(doc: "The rectangle [x, y, width, height] in pixels, or an upstream box; the whole image if unset.")
    var rect: Rect? = nil

    @Parameter(
        doc: "Grow the rectangle by this much on every side (shrink if negative), before the aspect ratio.",
        range: -Double(Rect.limit)...Double(Rect.limit), suggested: -1000...1000, unit: "px")
    var margin = 0

    @Parameter(
        doc: "Width over height, as 4:3, 16:9 or 3:4 (or a number: 1.333): the rectangle grows around its center "
            + "to this ratio, staying inside the image, or shrinks when the image is too small.",
        range: 0.001...1000, suggested: 0.25...4)
    var aspectRatio: Ratio? = nil

    func prepare(_ inputs: [String: ImageShape]) -> Preparation {
        guard let input = inputs["input"],
            let region = try? Self.region(
                rect: rect, margin: margin, aspectRatio: aspectRatio?.value,
                in: Rect(width: input.width, height: input.height))
        else { return Preparation() }
        return Preparation(outputSizes: ["output": .init(width: region.width, height: region.height)])
    }

    func run() throws -> NodeOutputs {
        let region = try Self.region(rect: rect, margin: margin, aspectRatio: aspectRatio?.value, in: input.extent)
        return NodeOutputs(
            .image(
                Image(
                    width: region.width, height: region.height, layout: input.layout, depth: input.depth,
                    kernel: Kernel(x: region.minX, y: region.minY), inputs: [KernelInput(input)])))
    }

    /// The pixels to keep: the rectangle grown by the margin, fitted to the aspect ratio around its center,
    /// and clamped to `extent`.
    static func region(rect: Rect?, margin: Int, aspectRatio: Double?, in extent: Rect) throws -> Rect {
        var chosen = (rect ?? extent).insetBy(dx: -margin, dy: -margin)
        guard !chosen.isEmpty else {
            throw NodeProblem(parameter: "margin", "the margin leaves nothing of the rectangle")
        }
        if let ratio = aspectRatio {
            // Grow the short side around the center; then fit inside the image, shrinking if needed.
            var width = Double(chosen.width)
            var height = Double(chosen.height)
            if width / height < ratio { width = height * ratio } else { height = width / ratio }
            let fit = Swift.min(1, Double(extent.width) / width, Double(extent.height) / height)
            width = Swift.max(1, (width * fit).rounded())
            height = Swift.max(1, (height * fit).rounded())
            let centerX = Double(chosen.minX) + Double(chosen.width) / 2
            let centerY = Double(chosen.minY) + Double(chosen.height) / 2
            var x = Int((centerX - width / 2).rounded())
            var y = Int((centerY - height / 2).rounded())
            x = Swift.min(Swift.max(x, extent.minX), extent.maxX - Int(width))
            y = Swift.min(Swift.max(y, extent.minY), extent.maxY - Int(height))
            chosen = Rect(x: x, y: y, width: Int(width), height: Int(height))
        }
        let clamped = chosen.intersection(extent)
        guard !clamped.isEmpty else {
            throw NodeProblem(parameter: "rect", "\(chosen) lies outside the \(extent.width)x\(extent.height) image")
        }
        return clamped
    }

    /// A translation: samples are moved in whatever format they are in.
    struct Kernel: TranslationKernel {
        var x: Int
        var y: Int

        var offset: (x: Int, y: Int) { (x, y) }

        func render(into output: inout PixelBuffer, from inputs: [PixelBuffer]) {
            let moved = inputs[0].region.offsetBy(dx: -x, dy: -y)
            output.copy(from: PixelBuffer(region: moved, channels: inputs[0].channels, samples: inputs[0].samples))
        }
    }
}
