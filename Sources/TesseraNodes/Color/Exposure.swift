import Foundation
import TesseraCore

/// `exposure`: Core Image's `CIExposureAdjust`. Each color value is multiplied by `2^ev`, as a camera's
/// exposure changes by `ev` stops; alpha is kept and values are not clamped.
///
/// The multiplication applies to the values as stored: on a gamma-encoded photo (most files) one stop
/// brightens less than a camera's stop would. For a photographic stop, convert to linear light first
/// (`colorSpace` to `linearSRGB`) and back after, as Core Image's linear working space does.
struct Exposure: Node {
    static let info = NodeInfo(
        op: "exposure",
        summary: "Multiplies each color value by 2^ev (ev stops), as Core Image's CIExposureAdjust; alpha is kept.",
        access: .point,
        outputs: [.init("output", .image, doc: "The image with the same layout; values are not clamped.")],
        example: """
            photo: { op: load, path: photo.png }
            brighter: { op: exposure, input: photo, ev: 0.5 }
            out: { op: save, input: brighter, path: brighter.png }
            """)

    @Input(doc: "The image; its values are used as stored (see colorSpace for linear light).")
    var input: Image

    @Parameter(
        doc: "Stops: 1 doubles every color value, -1 halves it, 0 keeps the image.", range: -20...20,
        suggested: -3...3, unit: "EV")
    var ev = 0.0

    func run() throws -> NodeOutputs {
        let gain = Float(pow(2.0, ev))
        return NodeOutputs(.image(Image(mapping: input, with: Kernel(gain: gain))))
    }

    struct Kernel: ChannelKernel {
        var gain: Float

        func render(into output: inout PixelBuffer, from inputs: [PixelBuffer]) {
            let scale = SIMD4(gain, gain, gain, 1)
            PointLoop.map(&output, inputs[0]) { $0 * scale }
        }
    }
}
