import TesseraCore

/// `linearGradient`: Core Image's `CILinearGradient`, color0 at point0 changing to color1 at point1
/// along the line between them, constant across it.
///
/// At the centre `p` of each pixel, `t = (p - point0)·(point1 - point0) / |point1 - point0|²`; the color
/// is color0 mixed with color1 by `t` (premultiplied, so a transparent end never darkens), beyond the
/// ends as `spread` says (Core Image pads). Points are in pixels from the top-left corner, or in
/// fractions of the size with `units: relative`. Values are mixed as stored (gamma-encoded, as the
/// colors are given); Core Image mixes in its linear working space.
struct LinearGradient: Node {
    static let info = NodeInfo(
        op: "linearGradient",
        summary: "Makes a linear gradient from color0 at point0 to color1 at point1 (Core Image's CILinearGradient).",
        access: .source,
        outputs: [.init("output", .image, doc: "RGB, or RGBA when a color's alpha is below 1; 16-bit.")],
        example: """
            photo: { op: load, path: photo.png }
            fade: { op: linearGradient, like: photo, units: relative, point0: [0.5, 0.5], point1: [0.5, 0] }
            out: { op: save, input: fade, path: fade.png }
            """)

    @Input(doc: "An image whose size to take; its pixels are never read.", readsPixels: false)
    var like: Image?

    @Parameter(doc: "The width, when not taken from `like`.", range: 1...1_000_000, unit: "px")
    var width: Int? = nil

    @Parameter(doc: "The height, when not taken from `like`.", range: 1...1_000_000, unit: "px")
    var height: Int? = nil

    @Parameter(doc: "Where color0 is: x and y.", range: -1_000_000...1_000_000, suggested: 0...1000)
    var point0 = [0.0, 0]

    @Parameter(
        doc: "Where color1 is: x and y; it must differ from point0.", range: -1_000_000...1_000_000, suggested: 0...1000
    )
    var point1 = [200.0, 200]

    @Parameter(doc: "Red, green, blue and alpha at point0, 0...1.", range: 0...1)
    var color0 = [1.0, 1, 1, 1]

    @Parameter(doc: "Red, green, blue and alpha at point1, 0...1.", range: 0...1)
    var color1 = [0.0, 0, 0, 1]

    @Parameter(doc: "pixels, or relative: fractions of the width and height, from the top-left corner.")
    var units = Gradient.Units.pixels

    @Parameter(doc: "linear, or smooth (smoothstep, as CISmoothLinearGradient): no visible edge at the ends.")
    var falloff = Gradient.Falloff.linear

    @Parameter(doc: "Beyond the ends: pad keeps the end colors, reflect goes back and forth, repeat starts over.")
    var spread = Gradient.Spread.pad

    func validate() throws(NodeProblem) {
        try SourceSize.validate(width: width, height: height)
        if point0 == point1 { throw NodeProblem(parameter: "point1", "give a point1 other than point0") }
    }

    func prepare(_ inputs: [String: ImageShape]) -> Preparation {
        SourceSize.preparation(width: width, height: height, like: inputs["like"])
    }

    func run() throws -> NodeOutputs {
        let size = try SourceSize.resolve(like: like, width: width, height: height)
        let ramp = Gradient.Ramp(color0, color1, falloff: falloff, spread: spread)
        let start = SIMD2(point0[0], point0[1])
        let direction = SIMD2(point1[0], point1[1]) - start
        let kernel = Kernel(
            ramp: ramp, scale: Gradient.scale(units, width: size.width, height: size.height), start: start,
            step: direction / (direction * direction).sum())
        return NodeOutputs(
            .image(
                Image(
                    width: size.width, height: size.height, layout: ramp.layout, depth: .uint16, kernel: kernel,
                    inputs: [])))
    }

    struct Kernel: ImageKernel {
        let ramp: Gradient.Ramp
        let scale: SIMD2<Double>
        let start: SIMD2<Double>
        /// `(point1 - point0) / |point1 - point0|²`: t is the dot product with it.
        let step: SIMD2<Double>

        func render(into output: inout PixelBuffer, from inputs: [PixelBuffer]) {
            let (start, step) = (self.start, self.step)
            Gradient.render(&output, ramp: ramp, scale: scale) { p in ((p - start) * step).sum() }
        }
    }
}
