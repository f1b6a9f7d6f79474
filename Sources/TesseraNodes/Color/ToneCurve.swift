import TesseraCore

/// `toneCurve`: maps each color value through a smooth curve through points, as Core Image's
/// `CIToneCurve` and the curves tools of photo editors.
///
///     sCurve: { op: toneCurve, input: photo, points: [0, 0, 0.25, 0.18, 0.75, 0.85, 1, 1] }
///
/// `points` lists x, y pairs (x an input value, y what it becomes), x increasing; two points give a
/// straight line. Between points the curve is the monotone piecewise cubic of Fritsch and Carlson
/// (PCHIP, with the slopes SciPy's `PchipInterpolator` chooses: at inner points a weighted harmonic mean
/// of the neighbouring secants, 0 where the data turns; at the ends a one-sided three-point estimate):
/// it passes through every point and never overshoots between them, so a rising set of points gives a
/// rising curve with no ripple (Core Image's CIToneCurve takes five points and a spline that can). Values
/// left of the first x take the first y, right of the last the last. Alpha is kept; a gray image's gray
/// is mapped.
///
/// - Cost: per value a search among the points and one cubic; curves have a handful of points.
struct ToneCurve: Node {
    static let info = NodeInfo(
        op: "toneCurve",
        summary:
            "Maps color values through a smooth monotone curve (PCHIP) through x, y points, as Core Image's "
            + "CIToneCurve; alpha is kept.",
        access: .point,
        outputs: [.init("output", .image, doc: "The image with the same layout; values lie within the points' y.")],
        example: """
            photo: { op: load, path: photo.png }
            punchy: { op: toneCurve, input: photo, points: [0, 0, 0.25, 0.18, 0.75, 0.85, 1, 1] }
            out: { op: save, input: punchy, path: punchy.png }
            """)

    @Input(doc: "The image; values are used as stored.")
    var input: Image

    @Parameter(
        doc: "The curve's points as x, y pairs, x increasing: [0, 0, 0.25, 0.2, 1, 1]; unset keeps the image.",
        range: 0...1)
    var points: [Double]? = nil

    func validate() throws(NodeProblem) {
        guard let points else { return }
        guard points.count >= 4, points.count % 2 == 0 else {
            throw NodeProblem(
                parameter: "points",
                "expected x, y pairs for at least two points (4 numbers or more, an even count), found \(points.count)")
        }
        for k in stride(from: 2, to: points.count, by: 2) where points[k] <= points[k - 2] {
            throw NodeProblem(
                parameter: "points",
                "the x values must increase: point \(k / 2 + 1) has x \(Literal.number(points[k]).text) after "
                    + Literal.number(points[k - 2]).text)
        }
    }

    func run() throws -> NodeOutputs {
        try validate()
        guard let points else { return NodeOutputs(.image(input)) }
        let xs = stride(from: 0, to: points.count, by: 2).map { points[$0] }
        let ys = stride(from: 1, to: points.count, by: 2).map { points[$0] }
        let slopes = Self.slopes(xs: xs, ys: ys)
        return NodeOutputs(
            .image(
                Image(mapping: input, with: Kernel(xs: xs, ys: ys, slopes: slopes))))
    }

    /// The curve's slope at each point, as SciPy's `PchipInterpolator` computes it.
    static func slopes(xs: [Double], ys: [Double]) -> [Double] {
        let n = xs.count
        let h = (0..<(n - 1)).map { xs[$0 + 1] - xs[$0] }
        let m = (0..<(n - 1)).map { (ys[$0 + 1] - ys[$0]) / h[$0] }
        if n == 2 { return [m[0], m[0]] }
        var d = [Double](repeating: 0, count: n)
        for k in 1..<(n - 1) where m[k - 1] * m[k] > 0 {
            let w1 = 2 * h[k] + h[k - 1]
            let w2 = h[k] + 2 * h[k - 1]
            d[k] = (w1 + w2) / (w1 / m[k - 1] + w2 / m[k])
        }
        /// A one-sided three-point estimate, kept from overshooting.
        func end(_ h0: Double, _ h1: Double, _ m0: Double, _ m1: Double) -> Double {
            let d = ((2 * h0 + h1) * m0 - h0 * m1) / (h0 + h1)
            if d.sign != m0.sign || d == 0 || m0 == 0 { return 0 }
            if m0.sign != m1.sign || m1 == 0, abs(d) > 3 * abs(m0) { return 3 * m0 }
            return d
        }
        d[0] = end(h[0], h[1], m[0], m[1])
        d[n - 1] = end(h[n - 2], h[n - 3], m[n - 2], m[n - 3])
        return d
    }

    struct Kernel: ChannelKernel {
        var xs: [Double]
        var ys: [Double]
        var slopes: [Double]

        /// The curve at `v`, in Double for the search and the cubic (a handful of operations per value).
        @inline(__always)
        static func evaluate(
            _ v: Float, _ xs: UnsafeBufferPointer<Double>, _ ys: UnsafeBufferPointer<Double>,
            _ d: UnsafeBufferPointer<Double>
        ) -> Float {
            let x = Double(v)
            let last = xs.count - 1
            if !(x > xs[0]) { return Float(ys[0]) }
            if x >= xs[last] { return Float(ys[last]) }
            var k = 0
            while x >= xs[k + 1] { k += 1 }
            let h = xs[k + 1] - xs[k]
            let t = (x - xs[k]) / h
            let t2 = t * t
            let t3 = t2 * t
            let y =
                (2 * t3 - 3 * t2 + 1) * ys[k] + (t3 - 2 * t2 + t) * h * d[k] + (-2 * t3 + 3 * t2) * ys[k + 1]
                + (t3 - t2) * h * d[k + 1]
            return Float(y)
        }

        func render(into output: inout PixelBuffer, from inputs: [PixelBuffer]) {
            xs.withUnsafeBufferPointer { xs in
                ys.withUnsafeBufferPointer { ys in
                    slopes.withUnsafeBufferPointer { d in
                        PointLoop.map(&output, inputs[0]) { p in
                            SIMD4(
                                Self.evaluate(p.x, xs, ys, d), Self.evaluate(p.y, xs, ys, d),
                                Self.evaluate(p.z, xs, ys, d), p.w)
                        }
                    }
                }
            }
        }
    }
}
