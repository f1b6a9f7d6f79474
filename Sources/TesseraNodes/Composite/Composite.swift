import TesseraCore

/// `composite`: Porter-Duff source over: `input` laid over `background`, each pixel weighted by alpha.
struct Composite: Node {
    static let info = NodeInfo(
        op: "composite",
        summary: "Lays input over background by its alpha (Porter-Duff source over), optionally offset.",
        access: .point,
        outputs: [.init("output", .image, doc: "The background's size; RGBA unless the background is opaque.")],
        example: """
            photo: { op: load, path: photo.png }
            logo: { op: load, path: logo.png }
            marked: { op: composite, input: logo, background: photo, x: 16, y: 16 }
            out: { op: save, input: marked, path: marked.png }
            """)

    @Input(doc: "The image on top; outside its extent it is transparent.")
    var input: Image

    @Input(doc: "The image underneath; its size is the output's.")
    var background: Image

    @Parameter(
        doc: "Where the input's left edge lands on the background.", range: -Double(Rect.limit)...Double(Rect.limit),
        unit: "px")
    var x = 0

    @Parameter(
        doc: "Where the input's top edge lands on the background.", range: -Double(Rect.limit)...Double(Rect.limit),
        unit: "px")
    var y = 0

    func run() throws -> NodeOutputs {
        let layout: PixelLayout =
            background.layout.hasAlpha ? .rgba : background.layout.isGray && input.layout.isGray ? .gray : .rgb
        return NodeOutputs(
            .image(
                Image(
                    width: background.width, height: background.height, layout: layout, depth: background.depth,
                    kernel: Kernel(x: x, y: y),
                    inputs: [KernelInput(input, edge: .transparent), KernelInput(background)])))
    }

    struct Kernel: ImageKernel {
        var x: Int
        var y: Int

        func inputRegion(for output: Rect, input index: Int) -> Rect {
            index == 0 ? output.offsetBy(dx: -x, dy: -y) : output
        }

        func render(into output: inout PixelBuffer, from inputs: [PixelBuffer]) {
            // The input's pixels relabelled in output coordinates (the samples shared, not copied), so both
            // read at the same point; they cover the output region, as inputRegion asked.
            let fore = PixelBuffer(
                region: inputs[0].region.offsetBy(dx: x, dy: y), channels: inputs[0].channels,
                samples: inputs[0].samples)
            PointLoop.map(&output, fore, inputs[1]) { top, under in
                let alpha = top.w + under.w * (1 - top.w)
                guard alpha > 0 else { return SIMD4(repeating: 0) }
                let color = (top * top.w + under * (under.w * (1 - top.w))) / alpha
                return SIMD4(color.x, color.y, color.z, alpha)
            }
        }
    }
}
