import TesseraCore

/// `vibrance`: in the spirit of Core Image's `CIVibrance`, saturates muted colors more than vivid ones,
/// so skin and already saturated colors keep their look while dull ones gain color (a negative amount
/// mutes dull colors first).
///
/// Apple does not publish CIVibrance's formula; this node's is:
///
///     chroma = max(r, g, b) - min(r, g, b)            (0 for gray, 1 for a pure primary)
///     gray   = 0.2126 r + 0.7152 g + 0.0722 b         (Rec. 709 luma)
///     factor = 1 + amount * (1 - chroma)
///     c      = gray + (c - gray) * factor
///
/// so at `amount` 1 a nearly gray color's saturation almost doubles and a pure primary's stays. Alpha
/// is kept; values are not clamped (saving clamps them); gray images pass unchanged.
struct Vibrance: Node {
    static let info = NodeInfo(
        op: "vibrance",
        summary: "Saturates muted colors more than vivid ones (Core Image's CIVibrance); alpha is kept.",
        access: .point,
        outputs: [.init("output", .image, doc: "The image with the same layout; values are not clamped.")],
        example: """
            photo: { op: load, path: photo.png }
            livelier: { op: vibrance, input: photo, amount: 0.6 }
            out: { op: save, input: livelier, path: livelier.png }
            """)

    @Input(doc: "The image; a gray image passes unchanged.")
    var input: Image

    @Parameter(
        doc: "How much muted colors gain (negative: lose) saturation; vivid colors change less, pure ones not at all.",
        range: -1...1)
    var amount = 0.0

    func run() throws -> NodeOutputs {
        NodeOutputs(
            .image(Image(mapping: input, with: Kernel(amount: Float(amount)))))
    }

    struct Kernel: ImageKernel {
        var amount: Float

        func render(into output: inout PixelBuffer, from inputs: [PixelBuffer]) {
            let amount = self.amount
            let weights = Luma.rec709
            PointLoop.map(&output, inputs[0]) { p in
                let chroma = Swift.max(p.x, p.y, p.z) - Swift.min(p.x, p.y, p.z)
                let gray = (p * weights).sum()
                let factor = 1 + amount * (1 - chroma)
                var result = (p - gray) * factor + gray
                result.w = p.w
                return result
            }
        }
    }
}
