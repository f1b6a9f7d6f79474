import TesseraCore

/// `constant`: an image of one color, of a given size or of another image's size.
struct Constant: Node {
    static let info = NodeInfo(
        op: "constant",
        summary: "Makes an image of one color, of a given size or the size of another image.",
        access: .source,
        outputs: [.init("output", .image, doc: "RGB, or RGBA when the color's alpha is below 1.")],
        example: """
            photo: { op: load, path: photo.png }
            black: { op: constant, like: photo, color: [0, 0, 0, 1] }
            out: { op: save, input: black, path: black.png }
            """)

    @Input(doc: "An image whose size to take; its pixels are never read.", readsPixels: false)
    var like: Image?

    @Parameter(doc: "Red, green, blue and alpha, 0...1.", range: 0...1)
    var color = [0.0, 0, 0, 1]

    @Parameter(doc: "The width, when not taken from `like`.", range: 1...1_000_000, unit: "px")
    var width: Int? = nil

    @Parameter(doc: "The height, when not taken from `like`.", range: 1...1_000_000, unit: "px")
    var height: Int? = nil

    func validate() throws(NodeProblem) { try SourceSize.validate(width: width, height: height) }

    func prepare(_ inputs: [String: ImageShape]) -> Preparation {
        SourceSize.preparation(width: width, height: height, like: inputs["like"])
    }

    func run() throws -> NodeOutputs {
        let size = try SourceSize.resolve(like: like, width: width, height: height)
        let value = SIMD4(color.map(Float.init))
        return NodeOutputs(
            .image(
                Image(
                    width: size.width, height: size.height, layout: value.w < 1 ? .rgba : .rgb, depth: .uint8,
                    kernel: Kernel(color: value), inputs: [])))
    }

    struct Kernel: ImageKernel {
        var color: SIMD4<Float>

        func render(into output: inout PixelBuffer, from inputs: [PixelBuffer]) {
            let color = self.color
            output.samples.withUnsafeMutableBufferPointer { samples in
                for i in stride(from: 0, to: samples.count, by: 4) {
                    samples[i] = color.x
                    samples[i + 1] = color.y
                    samples[i + 2] = color.z
                    samples[i + 3] = color.w
                }
            }
        }
    }
}
