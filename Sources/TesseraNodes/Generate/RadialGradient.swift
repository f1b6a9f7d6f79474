import TesseraCore

/// `radialGradient`: Core Image's `CIRadialGradient`, color0 inside the circle of radius0 around the
/// centre changing to color1 at the circle of radius1.
///
/// At the centre `p` of each pixel, `t = (|p - center| - radius0) / (radius1 - radius0)`, clamped to
/// 0...1 (with equal radii, a hard edge: 0 inside, 1 from the radius out); the color is color0 mixed
/// with color1 by `t` (premultiplied, so a transparent end never darkens). Either radius may be the
/// larger. With `units: relative` the centre is in fractions of the size and distances too, so the
/// circles become ellipses with the image's aspect: centre [0.5, 0.5] and radius1 0.71 reach the
/// corners, the shape of a vignette. Values are mixed as stored (gamma-encoded, as the colors are given).
struct RadialGradient: Node {
    static let info = NodeInfo(
        op: "radialGradient",
        summary:
            "Makes a radial gradient from color0 at radius0 to color1 at radius1 around a centre (Core Image's "
            + "CIRadialGradient); in relative units an ellipse with the image's aspect.",
        access: .source,
        outputs: [.init("output", .image, doc: "RGB, or RGBA when a color's alpha is below 1; 16-bit.")],
        example: """
            photo: { op: load, path: photo.png }
            oval: { op: radialGradient, like: photo, units: relative, center: [0.5, 0.5], radius0: 0.3, radius1: 0.75 }
            out: { op: save, input: oval, path: oval.png }
            """)

    @Input(doc: "An image whose size to take; its pixels are never read.", readsPixels: false)
    var like: Image?

    @Parameter(doc: "The width, when not taken from `like`.", range: 1...1_000_000, unit: "px")
    var width: Int? = nil

    @Parameter(doc: "The height, when not taken from `like`.", range: 1...1_000_000, unit: "px")
    var height: Int? = nil

    @Parameter(doc: "The centre of the circles: x and y.", range: -1_000_000...1_000_000, suggested: 0...1000)
    var center = [150.0, 150]

    @Parameter(doc: "The distance from the centre where color0 ends.", range: 0...1_000_000, suggested: 0...1000)
    var radius0 = 5.0

    @Parameter(doc: "The distance from the centre where color1 begins.", range: 0...1_000_000, suggested: 0...1000)
    var radius1 = 100.0

    @Parameter(doc: "Red, green, blue and alpha inside radius0, 0...1.", range: 0...1)
    var color0 = [1.0, 1, 1, 1]

    @Parameter(doc: "Red, green, blue and alpha beyond radius1, 0...1.", range: 0...1)
    var color1 = [0.0, 0, 0, 1]

    @Parameter(
        doc: "pixels, or relative: fractions of the width and height, from the top-left corner (circles become "
            + "ellipses with the image's aspect).")
    var units = Gradient.Units.pixels

    @Parameter(doc: "linear, or smooth (smoothstep, as CISmoothRadialGradient): no visible edge at the radii.")
    var falloff = Gradient.Falloff.linear

    func validate() throws(NodeProblem) {
        try SourceSize.validate(width: width, height: height)
    }

    func prepare(_ inputs: [String: ImageShape]) -> Preparation {
        SourceSize.preparation(width: width, height: height, like: inputs["like"])
    }

    func run() throws -> NodeOutputs {
        let size = try SourceSize.resolve(like: like, width: width, height: height)
        let ramp = Gradient.Ramp(color0, color1, falloff: falloff)
        let kernel = Kernel(
            ramp: ramp, scale: Gradient.scale(units, width: size.width, height: size.height),
            center: SIMD2(center[0], center[1]), radius0: radius0, radius1: radius1)
        return NodeOutputs(
            .image(
                Image(
                    width: size.width, height: size.height, layout: ramp.layout, depth: .uint16, kernel: kernel,
                    inputs: [])))
    }

    struct Kernel: ImageKernel {
        let ramp: Gradient.Ramp
        let scale: SIMD2<Double>
        let center: SIMD2<Double>
        let radius0: Double
        let radius1: Double

        func render(into output: inout PixelBuffer, from inputs: [PixelBuffer]) {
            let (center, radius0, radius1) = (self.center, self.radius0, self.radius1)
            let span = radius1 - radius0
            Gradient.render(&output, ramp: ramp, scale: scale) { p in
                let offset = p - center
                let distance = (offset * offset).sum().squareRoot()
                guard span != 0 else { return distance < radius0 ? 0 : 1 }
                return (distance - radius0) / span
            }
        }
    }
}
