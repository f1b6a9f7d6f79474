import Foundation
import TesseraCore

/// `levels`: Photoshop's and GIMP's Levels. Values between the input black and white points are
/// stretched to 0...1 (values outside clip), bent by the gamma, then mapped onto the output black and
/// white points:
///
///     t = clamp((v - inputBlack) / (inputWhite - inputBlack), 0, 1)
///     v = outputBlack + (outputWhite - outputBlack) * t^(1 / gamma)
///
/// A gamma above 1 brightens the midtones, as the middle slider moved left does in Photoshop and GIMP.
/// `channel` applies the mapping to red, green and blue together or to one of them (the per-channel
/// curves of both programs); chain three nodes for three different channel settings. Alpha is kept.
/// On a gray image `rgb` maps the gray; a single color channel leaves it unchanged.
struct Levels: Node {
    static let info = NodeInfo(
        op: "levels",
        summary:
            "Maps input black and white points, a midtone gamma and output black and white points, as Photoshop's "
            + "and GIMP's Levels, on all color channels or one.",
        access: .point,
        outputs: [.init("output", .image, doc: "The image with the same layout; values lie in the output range.")],
        example: """
            photo: { op: load, path: photo.png }
            lifted: { op: levels, input: photo, inputBlack: 0.05, inputWhite: 0.9, gamma: 1.2 }
            out: { op: save, input: lifted, path: lifted.png }
            """)

    /// Which color channels the mapping applies to.
    enum Channel: String, ParameterChoice {
        /// Red, green and blue alike (and the gray of a gray image).
        case rgb
        case red
        case green
        case blue
    }

    @Input(doc: "The image; values are used as stored.")
    var input: Image

    @Parameter(doc: "This value and below become the output black.", range: 0...1)
    var inputBlack = 0.0

    @Parameter(doc: "This value and above become the output white; above inputBlack.", range: 0...1)
    var inputWhite = 1.0

    @Parameter(
        doc: "Midtone gamma: above 1 brightens the midtones, below 1 darkens them (t^(1/gamma)).", range: 0.01...100,
        suggested: 0.1...10)
    var gamma = 1.0

    @Parameter(doc: "What black becomes; above outputWhite inverts the image.", range: 0...1)
    var outputBlack = 0.0

    @Parameter(doc: "What white becomes.", range: 0...1)
    var outputWhite = 1.0

    @Parameter(doc: "The color channels changed: all three (rgb) or one.")
    var channel = Channel.rgb

    func validate() throws(NodeProblem) {
        guard inputWhite > inputBlack else {
            throw NodeProblem(
                parameter: "inputWhite",
                "inputWhite (\(Literal.number(inputWhite).text)) must lie above inputBlack "
                    + "(\(Literal.number(inputBlack).text))")
        }
    }

    func run() throws -> NodeOutputs {
        try validate()
        let mask: SIMD4<Float>
        switch channel {
        case .rgb: mask = SIMD4(1, 1, 1, 0)
        case .red: mask = SIMD4(1, 0, 0, 0)
        case .green: mask = SIMD4(0, 1, 0, 0)
        case .blue: mask = SIMD4(0, 0, 1, 0)
        }
        // A gray image has one value, the red lane: only `rgb` changes it.
        if input.layout.isGray && channel != .rgb { return NodeOutputs(.image(input)) }
        let kernel = Kernel(
            black: Float(inputBlack), scale: Float(1 / (inputWhite - inputBlack)), exponent: Float(1 / gamma),
            outputBlack: Float(outputBlack), outputRange: Float(outputWhite - outputBlack), mask: mask)
        return NodeOutputs(
            .image(
                Image(mapping: input, with: kernel)))
    }

    struct Kernel: ChannelKernel {
        var black: Float
        var scale: Float
        var exponent: Float
        var outputBlack: Float
        var outputRange: Float
        /// 1 in the lanes mapped, 0 in the lanes kept.
        var mask: SIMD4<Float>

        func render(into output: inout PixelBuffer, from inputs: [PixelBuffer]) {
            let (black, scale, exponent, outputBlack, outputRange) = (
                black, scale, exponent, outputBlack, outputRange
            )
            let mask = self.mask
            let keep = 1 - mask
            if exponent == 1 {
                PointLoop.map(&output, inputs[0]) { p in
                    var t = (p - black) * scale
                    t = SIMD4(
                        Swift.min(Swift.max(t.x, 0), 1), Swift.min(Swift.max(t.y, 0), 1),
                        Swift.min(Swift.max(t.z, 0), 1), 0)
                    return (t * outputRange + outputBlack) * mask + p * keep
                }
            } else {
                PointLoop.map(&output, inputs[0]) { p in
                    var t = (p - black) * scale
                    t = SIMD4(
                        powf(Swift.min(Swift.max(t.x, 0), 1), exponent),
                        powf(Swift.min(Swift.max(t.y, 0), 1), exponent),
                        powf(Swift.min(Swift.max(t.z, 0), 1), exponent), 0)
                    return (t * outputRange + outputBlack) * mask + p * keep
                }
            }
        }
    }
}
