import CTesseraSIMD
import TesseraCore

/// `blendWithMask`: Core Image's `CIBlendWithMask`. Where the mask is 1 the output is `input`, where
/// it is 0 the output is `background` (transparent when unconnected), and in between a mix.
struct BlendWithMask: Node {
    static let info = NodeInfo(
        op: "blendWithMask",
        summary:
            "Mixes input over background by a mask: 1 gives input, 0 gives background (Core Image's CIBlendWithMask).",
        access: .point,
        outputs: [.init("output", .image, doc: "The input's size; RGBA unless every part is opaque.")],
        example: """
            photo: { op: load, path: photo.png }
            heat: { op: load, path: mask.png }
            lit: { op: blendWithMask, input: photo, mask: heat }
            out: { op: save, input: lit, path: lit.png }
            """)

    enum MaskChannel: String, ParameterChoice {
        case luminance, red, green, blue, alpha

        /// The weights that read this channel of an RGBA pixel as one value.
        var weights: SIMD4<Float> {
            switch self {
            case .luminance: Luma.rec709
            case .red: SIMD4(1, 0, 0, 0)
            case .green: SIMD4(0, 1, 0, 0)
            case .blue: SIMD4(0, 0, 1, 0)
            case .alpha: SIMD4(0, 0, 0, 1)
            }
        }
    }

    @Input(doc: "Shown where the mask is 1; its size is the output's.")
    var input: Image

    @Input(doc: "Shown where the mask is 0; transparent when not connected, and outside its extent.")
    var background: Image?

    @Input(doc: "The mix, read from one channel and clamped to 0...1; 0 outside its extent.")
    var mask: Image

    @Parameter(doc: "The mask's channel to read: luminance (Rec. 709 weights), red, green, blue or alpha.")
    var maskChannel = MaskChannel.luminance

    func run() throws -> NodeOutputs {
        let weights = maskChannel.weights
        var inputs = [KernelInput(input), KernelInput(mask, edge: .transparent)]
        if let background { inputs.append(KernelInput(background, edge: .transparent)) }
        // Opaque only when both sides are opaque and cover the whole output.
        let opaque =
            background.map {
                !input.layout.hasAlpha && !$0.layout.hasAlpha && $0.extent.contains(input.extent)
            } ?? false
        let gray = opaque && input.layout.isGray && background?.layout.isGray == true
        let layout: PixelLayout = gray ? .gray : opaque ? .rgb : .rgba
        return NodeOutputs(
            .image(
                Image(
                    width: input.width, height: input.height, layout: layout, depth: input.depth,
                    kernel: Kernel(weights: weights), inputs: inputs)))
    }

    /// Float32 for any input; opaque 8-bit RGB or gray over the same with a one-band 8-bit mask, in
    /// integers: `(a * m + b * (255 - m))` over 255, rounded. That is the Float32 result's byte: the
    /// exact value is never within 0.5/255 of a rounding tie (its fraction is a multiple of 1/255),
    /// and Float32's error is a millionth of that.
    struct Kernel: FormatKernel {
        var weights: SIMD4<Float>

        func computes(_ output: SampleEncoder, from inputs: [SampleFormat?]) -> Bool {
            guard inputs.count == 3, let fore = inputs[0], let mask = inputs[1], let back = inputs[2] else {
                return false
            }
            return mask == SampleFormat(depth: .uint8, bands: 1) && fore.depth == .uint8
                && (fore.bands == 3 || fore.bands == 1) && back == fore && output.packed == fore
                && weights.w == 0 && abs(weights.x + weights.y + weights.z - 1) < 1e-6
        }

        func render(into output: PackedOutput, from inputs: [KernelSamples]) {
            guard case .packed(let fore) = inputs[0], case .packed(let mask) = inputs[1],
                case .packed(let back) = inputs[2]
            else { return }
            let region = output.region
            for row in 0..<region.height {
                let y = region.minY + row
                // Rounded division by 255 of a sum of products of 8-bit values (Blinn's form), in C.
                tsr_mix8(
                    Samples.vectorLevel, fore.pointer(x: region.minX, y: y).assumingMemoryBound(to: UInt8.self),
                    back.pointer(x: region.minX, y: y).assumingMemoryBound(to: UInt8.self),
                    mask.pointer(x: region.minX, y: y).assumingMemoryBound(to: UInt8.self), fore.format.bands,
                    region.width, (output.base + row * output.rowBytes).assumingMemoryBound(to: UInt8.self))
            }
        }

        func render(into output: inout PixelBuffer, from inputs: [PixelBuffer]) {
            let weights = self.weights
            let zero = SIMD4<Float>(repeating: 0)
            // Mixing premultiplied colors: a transparent side contributes no color.
            @inline(__always) func mix(_ fore: SIMD4<Float>, _ back: SIMD4<Float>, _ maskPixel: SIMD4<Float>) -> SIMD4<
                Float
            > {
                let m = Swift.min(Swift.max((maskPixel * weights).sum(), 0), 1)
                let f = fore * SIMD4(fore.w, fore.w, fore.w, 1)
                let b = back * SIMD4(back.w, back.w, back.w, 1)
                let mixed = f * m + b * (1 - m)
                let alpha = mixed.w
                let color = alpha > 0 ? mixed / SIMD4(alpha, alpha, alpha, 1) : zero
                return SIMD4(color.x, color.y, color.z, alpha)
            }
            if inputs.count == 3 {
                PointLoop.map(&output, inputs[0], inputs[2], inputs[1], mix)
            } else {
                PointLoop.map(&output, inputs[0], inputs[1]) { fore, maskPixel in mix(fore, zero, maskPixel) }
            }
        }
    }
}
