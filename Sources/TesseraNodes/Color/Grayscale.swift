import TesseraCore

/// `grayscale`: one gray value per pixel, a weighted sum of red, green and blue (alpha is kept).
struct Grayscale: Node {
    static let info = NodeInfo(
        op: "grayscale",
        summary: "Turns color into gray with Rec. 709 or Rec. 601 luminance weights on the stored values.",
        access: .point,
        outputs: [.init("output", .image, doc: "Gray, or gray with alpha when the input has alpha.")],
        example: """
            photo: { op: load, path: photo.png }
            gray: { op: grayscale, input: photo }
            out: { op: save, input: gray, path: gray.png }
            """)

    enum Weights: String, ParameterChoice {
        /// 0.2126 R + 0.7152 G + 0.0722 B: sRGB's primaries, as Core Image and libvips weigh them.
        case rec709
        /// 0.299 R + 0.587 G + 0.114 B: as OpenCV's `COLOR_RGB2GRAY` and JPEG.
        case rec601
    }

    @Input(
        doc: "The image. The weights apply to its values as stored, gamma-encoded in its own profile (sRGB for "
            + "most photos), as Core Image and OpenCV apply them; the output keeps no color profile of its own.")
    var input: Image

    @Parameter(doc: "Luminance weights: rec709 (sRGB, as Core Image) or rec601 (as OpenCV and JPEG).")
    var weights = Weights.rec709

    func run() throws -> NodeOutputs {
        let layout: PixelLayout = input.layout.hasAlpha ? .grayAlpha : .gray
        let kernel = Kernel(weights: weights == .rec709 ? Luma.rec709 : Luma.rec601)
        return NodeOutputs(
            .image(
                Image(
                    width: input.width, height: input.height, layout: layout, depth: input.depth, kernel: kernel,
                    inputs: [KernelInput(input)])))
    }

    struct Kernel: ImageKernel {
        var weights: SIMD4<Float>

        func render(into output: inout PixelBuffer, from inputs: [PixelBuffer]) {
            let weights = self.weights
            PointLoop.map(&output, inputs[0]) { p in
                let gray = (p * weights).sum()
                return SIMD4(gray, gray, gray, p.w)
            }
        }
    }
}
