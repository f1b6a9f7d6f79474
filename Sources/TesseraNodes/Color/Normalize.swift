import TesseraCore

/// `normalize`: stretches the values from their minimum to their maximum onto 0...1, as the saliency
/// tutorial does to its heat maps before using them as masks.
struct Normalize: Node {
    static let info = NodeInfo(
        op: "normalize",
        summary: "Stretches the image's values from their minimum..maximum to 0...1 (alpha is kept).",
        access: .global,
        outputs: [.init("output", .image, doc: "The stretched image; a flat image becomes 0.")],
        example: """
            photo: { op: load, path: heat.png }
            stretched: { op: normalize, input: photo }
            out: { op: save, input: stretched, path: stretched.png }
            """,
        outputReadsInput: true)

    @Input(doc: "The image; its color channels are read once, whole, to find the range.")
    var input: Image

    @Parameter(doc: "Stretch red, green and blue each over its own range instead of one shared range.")
    var perChannel = false

    func run() throws -> NodeOutputs {
        NodeOutputs(.image(try Self.stretched(input, perChannel: perChannel)))
    }

    /// `image` stretched from its minimum..maximum to 0...1 (NaN samples are left out of the range):
    /// one pass over its color channels, in bands of rows, then a lazy point kernel. Saliency maps
    /// are stretched by this too.
    static func stretched(_ image: Image, perChannel: Bool = false) throws -> Image {
        // One pass over the input, in bands of rows, to find the range: this is the node's barrier.
        let colors = image.channels == 4 ? 3 : 1
        var low = [Float](repeating: .infinity, count: colors)
        var high = [Float](repeating: -.infinity, count: colors)
        var band = PixelBuffer(region: .empty, channels: image.channels)
        for rows in image.extent.tiles(width: image.width, height: 256) {
            band.reshape(to: rows)
            try image.render(into: &band)
            let channels = band.channels
            band.samples.withUnsafeBufferPointer { samples in
                for pixel in stride(from: 0, to: samples.count, by: channels) {
                    for c in 0..<colors where !samples[pixel + c].isNaN {
                        low[c] = Swift.min(low[c], samples[pixel + c])
                        high[c] = Swift.max(high[c], samples[pixel + c])
                    }
                }
            }
        }
        if !perChannel {
            low = Array(repeating: low.min() ?? 0, count: colors)
            high = Array(repeating: high.max() ?? 0, count: colors)
        }
        var offset = SIMD4<Float>(0, 0, 0, 0)
        var scale = SIMD4<Float>(1, 1, 1, 1)
        for c in 0..<colors {
            let lanes = colors == 1 ? 0..<3 : c..<(c + 1)
            for lane in lanes {
                offset[lane] = low[c].isFinite ? low[c] : 0
                let span = high[c] - low[c]
                scale[lane] = span.isFinite && span > 0 ? 1 / span : 0
            }
        }
        return Image(
            width: image.width, height: image.height, layout: image.layout, depth: .float32,
            kernel: Kernel(offset: offset, scale: scale), inputs: [KernelInput(image)])
    }

    struct Kernel: ImageKernel {
        var offset: SIMD4<Float>
        var scale: SIMD4<Float>

        func render(into output: inout PixelBuffer, from inputs: [PixelBuffer]) {
            let (offset, scale) = (self.offset, self.scale)
            PointLoop.map(&output, inputs[0]) { p in (p - offset) * scale }
        }
    }
}
