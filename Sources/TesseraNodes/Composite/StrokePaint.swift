import TesseraCore

/// What the drawing nodes (`drawContours`, `drawBoxes`) share: the drawing's image, and laying one color
/// over it by a stroke's coverage.
///
/// A drawing kernel works out, for each pixel of its tile, how much of it the stroke covers (0...1, the
/// largest over the shapes, so crossings never darken and any tiling gives the same bits), then
/// ``paint(_:into:from:)`` lays the color over the image, or over the plain background, by that coverage
/// times the color's alpha (straight alpha, source over).
struct StrokePaint: Sendable {
    let color: SIMD4<Float>
    /// The plain background when no image is drawn on; nil when the image is the kernel's input 0.
    let background: SIMD4<Float>?

    init(color: [Double], background: [Double]?) {
        self.color = SIMD4(color.map(Float.init))
        self.background = background.map { SIMD4($0.map(Float.init)) }
    }

    /// The drawing: `kernel` over `input` (read at the same point), or over nothing when `input` is nil.
    /// RGB, or RGBA when the image (else the background) has alpha; the image's depth, else 8-bit.
    static func image(
        width: Int, height: Int, input: Image?, background: [Double], kernel: some ImageKernel
    ) -> Image {
        let layout: PixelLayout
        let depth: SampleDepth
        if let input {
            layout = input.layout.hasAlpha ? .rgba : .rgb
            depth = input.depth
        } else {
            layout = background[3] < 1 ? .rgba : .rgb
            depth = .uint8
        }
        return Image(
            width: width, height: height, layout: layout, depth: depth, kernel: kernel,
            inputs: input.map { [KernelInput($0)] } ?? [])
    }

    /// Lays the color over `output.region` by `coverage` (one value per pixel of the region, row by row):
    /// over the background, or over `inputs[0]`, which covers the region.
    func paint(_ coverage: [Float], into output: inout PixelBuffer, from inputs: [PixelBuffer]) {
        let color = self.color
        if let background {
            let channels = output.channels
            output.samples.withUnsafeMutableBufferPointer { samples in
                var i = 0
                for pixel in 0..<coverage.count {
                    let value = Self.over(color, alpha: coverage[pixel] * color.w, background)
                    for c in 0..<channels { samples[i + c] = value[c] }
                    i += channels
                }
            }
            return
        }
        var pixel = 0
        PointLoop.map(&output, inputs[0]) { below in
            defer { pixel += 1 }
            return Self.over(color, alpha: coverage[pixel] * color.w, below)
        }
    }

    /// A pixel coordinate: `value` (whole) clamped to `low...high` in floating point before converting,
    /// so coordinates far outside the image, or huge, never trap.
    @inline(__always)
    static func pixel(_ value: Double, _ low: Int, _ high: Int) -> Int {
        Int(Swift.min(Swift.max(value, Double(low)), Double(high)))
    }

    /// `color` at `alpha` over `below` (straight alpha, source over).
    @inline(__always)
    static func over(_ color: SIMD4<Float>, alpha: Float, _ below: SIMD4<Float>) -> SIMD4<Float> {
        let outAlpha = alpha + below.w * (1 - alpha)
        guard outAlpha > 0 else { return SIMD4(0, 0, 0, 0) }
        var mixed = (color * alpha + below * below.w * (1 - alpha)) / outAlpha
        mixed.w = outAlpha
        return mixed
    }
}
