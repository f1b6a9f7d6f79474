import TesseraCore

/// `colorControls`: Core Image's `CIColorControls`: saturation, then brightness, then contrast, on the
/// color values (alpha is kept):
///
///     gray = 0.2126 r + 0.7152 g + 0.0722 b          (Rec. 709 luma weights)
///     c    = gray + (c - gray) * saturation         (0 gray, 1 unchanged, above 1 more vivid)
///     c    = c + brightness
///     c    = (c - 0.5) * contrast + 0.5
///
/// Apple documents each step (saturation "linearly interpolates between a grayscale image and the
/// original image" and extrapolates above 1; brightness adds a bias; contrast is `(color - 0.5) *
/// contrast + 0.5`) but neither the luma weights nor the order; these are the Rec. 709 weights of sRGB's
/// primaries and the order of Apple's parameter list. Values are not clamped, as in Core Image's float
/// working space; saving clamps them. They apply to the stored (gamma-encoded) values, where Core Image
/// works in linear light unless told otherwise.
struct ColorControls: Node {
    static let info = NodeInfo(
        op: "colorControls",
        summary: "Adjusts saturation, brightness and contrast, as Core Image's CIColorControls; alpha is kept.",
        access: .point,
        outputs: [.init("output", .image, doc: "The image with the same layout; values are not clamped.")],
        example: """
            photo: { op: load, path: photo.png }
            vivid: { op: colorControls, input: photo, saturation: 1.3, contrast: 1.1 }
            out: { op: save, input: vivid, path: vivid.png }
            """)

    @Input(doc: "The image; gray images only take brightness and contrast.")
    var input: Image

    @Parameter(
        doc: "0 turns the image gray (Rec. 709 luma), 1 keeps it, 2 doubles each color's distance from its gray.",
        range: 0...100, suggested: 0...2)
    var saturation = 1.0

    @Parameter(
        doc: "Added to every color value: 0.1 lifts everything by a tenth of full scale.", range: -10...10,
        suggested: -1...1)
    var brightness = 0.0

    @Parameter(
        doc: "Scales each value's distance from 0.5: 1 keeps the image, 0 makes it flat gray.", range: 0...100,
        suggested: 0...4)
    var contrast = 1.0

    func run() throws -> NodeOutputs {
        let kernel = Kernel(saturation: Float(saturation), brightness: Float(brightness), contrast: Float(contrast))
        return NodeOutputs(
            .image(
                Image(mapping: input, with: kernel)))
    }

    struct Kernel: ImageKernel {
        var saturation: Float
        var brightness: Float
        var contrast: Float

        func render(into output: inout PixelBuffer, from inputs: [PixelBuffer]) {
            let (saturation, contrast) = (saturation, contrast)
            // Brightness and contrast folded into one multiply-add: (c + b - 0.5) * k + 0.5.
            let offset = (brightness - 0.5) * contrast + 0.5
            let weights = Luma.rec709
            PointLoop.map(&output, inputs[0]) { p in
                let gray = (p * weights).sum()
                let color = (p - gray) * saturation + gray
                var result = color * contrast + offset
                result.w = p.w
                return result
            }
        }
    }
}
