import TesseraCore
import TesseraIO

/// `colorSpace`: converts pixel values from the image's ICC profile to another with Little CMS, as
/// libvips' `icc_transform` and Core Image's working-space conversions do.
struct ColorSpace: Node {
    static let info = NodeInfo(
        op: "colorSpace",
        summary:
            "Converts colors from the image's ICC profile (sRGB when it has none) to sRGB, Display P3, linear "
            + "sRGB or a profile file, with Little CMS; the output carries the new profile.",
        access: .point,
        outputs: [
            .init(
                "output", .image,
                doc: "RGB, or RGBA when the input has alpha; values outside 0...1 are kept (not clipped) until save.")
        ],
        example: """
            photo: { op: load, path: iphone.jpg }
            web: { op: colorSpace, input: photo, to: srgb }
            out: { op: save, input: web, path: web.jpg }
            """)

    @Input(doc: "The image; its embedded profile says what its values mean (none: sRGB).")
    var input: Image

    @Parameter(
        doc: "The color space to convert to: srgb, displayP3 (Apple's, DCI-P3 primaries with sRGB's curve) or "
            + "linearSRGB (sRGB's primaries, linear light). Ignored when profile is given.")
    var to = ColorProfile.Named.srgb

    @Parameter(doc: "An ICC profile file (.icc, .icm) to convert to instead of to; it must be an RGB profile.")
    var profile: FilePath? = nil

    @Parameter(
        doc: "The ICC rendering intent: relative (colorimetric, as libvips), perceptual, saturation or absolute. "
            + "Matrix-shaper profiles such as sRGB and Display P3 treat perceptual and saturation as relative.")
    var intent = ColorTransform.Intent.relative

    func run() throws -> NodeOutputs {
        let target = try profile.map { try ColorProfile(path: $0.resolved) } ?? ColorProfile.named(to)
        do {
            return NodeOutputs(.image(try input.convertingColors(to: target, intent: intent)))
        } catch var error as ImageError where error.path == nil && profile != nil {
            // A profile Little CMS cannot convert to (not RGB) is the file's fault: name it.
            error.path = profile?.resolved
            throw error
        }
    }
}

extension ColorProfile.Named: ParameterChoice {}
extension ColorTransform.Intent: ParameterChoice {}
