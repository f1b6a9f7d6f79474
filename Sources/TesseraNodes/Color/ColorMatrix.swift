import TesseraCore

/// `colorMatrix`: Core Image's `CIColorMatrix`. Each output channel is the dot product of the input
/// pixel (r, g, b, a) with one vector, plus a bias: `out.r = dot(in, r) + bias.r`, and so on.
struct ColorMatrix: Node {
    static let info = NodeInfo(
        op: "colorMatrix",
        summary: "Multiplies each pixel (r, g, b, a) by a 4x4 matrix and adds a bias, as Core Image's CIColorMatrix.",
        access: .point,
        outputs: [.init("output", .image, doc: "RGBA (RGB when alpha is certain to stay 1); values are not clamped.")],
        example: """
            photo: { op: load, path: heat.png }
            yellow: { op: colorMatrix, input: photo, b: [0, 0, 0, 0], a: [0, 0, 0, 0.7] }
            out: { op: save, input: yellow, path: tinted.png }
            """)

    @Input(doc: "The image; gray reads as r = g = b, with alpha 1.")
    var input: Image

    @Parameter(doc: "Weights of the input's r, g, b and a in the output's red.")
    var r = [1.0, 0, 0, 0]

    @Parameter(doc: "Weights of the input's r, g, b and a in the output's green.")
    var g = [0.0, 1, 0, 0]

    @Parameter(doc: "Weights of the input's r, g, b and a in the output's blue.")
    var b = [0.0, 0, 1, 0]

    @Parameter(doc: "Weights of the input's r, g, b and a in the output's alpha.")
    var a = [0.0, 0, 0, 1]

    @Parameter(doc: "Added to the output's r, g, b and a.")
    var bias = [0.0, 0, 0, 0]

    func run() throws -> NodeOutputs {
        let kernel = Kernel(
            r: SIMD4(r.map(Float.init)), g: SIMD4(g.map(Float.init)), b: SIMD4(b.map(Float.init)),
            a: SIMD4(a.map(Float.init)), bias: SIMD4(bias.map(Float.init)))
        // Alpha stays 1 when it only copies an alpha that is 1: then the output is still opaque RGB.
        let opaque =
            !input.layout.hasAlpha && (kernel.a * SIMD4(1, 1, 1, 0)).sum() == 0
            && kernel.a.w + kernel.bias.w == 1
        let layout: PixelLayout = opaque ? .rgb : .rgba
        return NodeOutputs(
            .image(
                Image(
                    width: input.width, height: input.height, layout: layout, depth: input.depth, kernel: kernel,
                    inputs: [KernelInput(input)])))
    }

    struct Kernel: ImageKernel {
        var r, g, b, a, bias: SIMD4<Float>

        func render(into output: inout PixelBuffer, from inputs: [PixelBuffer]) {
            let (r, g, b, a, bias) = (self.r, self.g, self.b, self.a, self.bias)
            PointLoop.map(&output, inputs[0]) { p in
                SIMD4((r * p).sum(), (g * p).sum(), (b * p).sum(), (a * p).sum()) + bias
            }
        }
    }
}
