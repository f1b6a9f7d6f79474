import TesseraCore

/// `contrast`: spreads values away from a pivot (or pulls them toward it) and clamps to 0...1.
struct Contrast: Node {
    static let info = NodeInfo(
        op: "contrast",
        summary: "Scales each color value's distance from a pivot by an amount, clamped to 0...1; alpha is kept.",
        access: .point,
        outputs: [.init("output", .image, doc: "The image with its contrast changed; same layout.")],
        example: """
            photo: { op: load, path: photo.png }
            punchy: { op: contrast, input: photo, amount: 1.5 }
            out: { op: save, input: punchy, path: punchy.png }
            """)

    @Input(
        doc: "The image. Its values are used as stored, in its own color space (gamma-encoded sRGB for most "
            + "photos; the pivot is a stored value): convert with colorSpace first to work in another.")
    var input: Image

    @Parameter(
        doc: "How far values move from the pivot: 1 keeps the image, 2 doubles the distance, 0 makes it flat.",
        range: 0...100, suggested: 0...3)
    var amount = 1.0

    @Parameter(doc: "The value that stays put.", range: 0...1)
    var pivot = 0.5

    func run() throws -> NodeOutputs {
        let kernel = Kernel(amount: Float(amount), pivot: Float(pivot))
        return NodeOutputs(
            .image(
                Image(mapping: input, with: kernel)))
    }

    /// `clamp((v - pivot) * amount + pivot, 0, 1)`: the formula contour detection shares.
    @inlinable
    static func apply(_ value: Float, amount: Float, pivot: Float) -> Float {
        Swift.min(Swift.max((value - pivot) * amount + pivot, 0), 1)
    }

    struct Kernel: ChannelKernel {
        var amount: Float
        var pivot: Float

        func render(into output: inout PixelBuffer, from inputs: [PixelBuffer]) {
            let (amount, pivot) = (self.amount, self.pivot)
            // Lane by lane: SIMD4's `clamped` is an out-of-line call per pixel here.
            PointLoop.map(&output, inputs[0]) { p in
                SIMD4(
                    Contrast.apply(p.x, amount: amount, pivot: pivot),
                    Contrast.apply(p.y, amount: amount, pivot: pivot),
                    Contrast.apply(p.z, amount: amount, pivot: pivot), p.w)
            }
        }
    }
}
