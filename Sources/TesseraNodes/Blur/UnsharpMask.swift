import TesseraCore

/// `unsharpMask`: sharpens as Pillow's `ImageFilter.UnsharpMask` does (and Photoshop's Unsharp Mask:
/// radius, amount, threshold in levels).
///
/// Each color value `v` is compared with the same value blurred by a Gaussian of sigma `radius`
/// (gaussianBlur's, edges clamped, transparent pixels not darkening their neighbours): where they
/// differ by more than `threshold` levels (`|v - blurred| · 255 > threshold`, Pillow's strict test),
/// the output is `v + amount · (v - blurred)`, clamped to 0...1; elsewhere `v`. Alpha is kept. Pillow
/// computes in 8-bit integers and blurs with three box filters; this computes in Float32 with the
/// exact Gaussian, which lands within a few levels of Pillow away from the edges (Pillow's box filters
/// treat the border their own way).
///
/// - Cost: gaussianBlur's, plus one pass over the tile; it reads gaussianBlur's margin.
struct UnsharpMask: Node {
    static let info = NodeInfo(
        op: "unsharpMask",
        summary: "Sharpens by adding back the difference from a Gaussian blur, as Pillow's UnsharpMask.",
        access: .area,
        outputs: [.init("output", .image, doc: "The sharpened image, with the input's size, layout and depth.")],
        example: """
            photo: { op: load, path: photo.png }
            crisp: { op: unsharpMask, input: photo, radius: 2, amount: 1.5, threshold: 3 }
            out: { op: save, input: crisp, path: crisp.png }
            """)

    @Input(doc: "The image to sharpen; values are used as stored (gamma-encoded for most photos), as Pillow does.")
    var input: Image

    @Parameter(
        doc: "Sigma of the Gaussian blur the image is compared with.", range: 0...1000, suggested: 0.3...20, unit: "px")
    var radius = 2.0

    @Parameter(
        doc: "How much of the difference to add: 1.5 is Pillow's percent 150; 0 leaves the image as it is.",
        range: 0...100, suggested: 0...5)
    var amount = 1.5

    @Parameter(
        doc: "Differences of this many levels or fewer (1/255 of the range) are left alone, so flat areas and noise "
            + "stay as they are.",
        range: 0...255, suggested: 0...20, unit: "levels")
    var threshold = 3.0

    func run() throws -> NodeOutputs {
        let kernel = Kernel(
            blur: GaussianBlur.Kernel(sigma: radius, layout: input.layout), amount: Float(amount),
            threshold: Float(threshold / 255))
        return NodeOutputs(
            .image(
                Image(
                    width: input.width, height: input.height, layout: input.layout, depth: input.depth,
                    kernel: kernel, inputs: [KernelInput(input, edge: .clamp)])))
    }

    /// gaussianBlur's kernel into a scratch tile, then the unsharp mask from it and the input.
    struct Kernel: ImageKernel {
        let blur: GaussianBlur.Kernel
        let amount: Float
        /// In values: threshold levels / 255.
        let threshold: Float

        func inputRegion(for output: Rect, input index: Int) -> Rect {
            blur.inputRegion(for: output, input: index)
        }

        func render(into output: inout PixelBuffer, from inputs: [PixelBuffer]) {
            var blurred = PixelBuffer.scratch(region: output.region, channels: output.channels)
            defer { blurred.recycle() }
            blur.render(into: &blurred, from: inputs)
            let (amount, threshold) = (self.amount, self.threshold)
            @inline(__always) func sharpen(_ v: Float, _ b: Float) -> Float {
                let difference = v - b
                return abs(difference) > threshold ? Swift.min(Swift.max(v + amount * difference, 0), 1) : v
            }
            PointLoop.map(&output, inputs[0], blurred) { v, b in
                SIMD4(sharpen(v.x, b.x), sharpen(v.y, b.y), sharpen(v.z, b.z), v.w)
            }
        }
    }
}
