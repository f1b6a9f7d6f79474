import TesseraPluginSDK

/// Straightens a quadrilateral of a photo into an upright rectangle, as Core Image's perspective correction
/// (`CIPerspectiveCorrection`) does: the page detectDocument or detectRectangles found, seen flat.
struct PerspectiveCorrect: Node {
    static let info = NodeInfo(
        op: "perspectiveCorrect",
        summary: "Straightens a quadrilateral of an image (a page or card seen in perspective) into an upright "
            + "rectangle, as Core Image's perspective correction (bilinear).",
        access: .global,
        outputs: [
            .init(
                "output", .image,
                doc: "The quadrilateral straightened: as wide as its longer top or bottom side and as high as its "
                    + "longer left or right side, the image's bands and format.")
        ],
        example: """
            photo: { op: load, path: page.jpg }
            page: { op: detectDocument, input: photo }
            flat: { op: perspectiveCorrect, input: photo, rectangles: page }
            out: { op: save, input: flat, path: page.png }
            """)

    @Input(doc: "The image the quadrilateral is in.") var input: Image
    @Input(
        doc: "The quadrilateral, from detectDocument or detectRectangles, in pixels of this image: the first "
            + "(most confident) is straightened.")
    var rectangles: [Quadrilateral]

    func run() throws -> NodeOutputs {
        guard let quad = rectangles.first else {
            throw VisionError(
                "perspectiveCorrect has no rectangle to straighten: the detector found none (gate the graph with "
                    + "require, or lower its minimumConfidence)")
        }
        let c = quad.corners
        let across = max(norm(c[1] - c[0]), norm(c[2] - c[3]))
        let down = max(norm(c[3] - c[0]), norm(c[2] - c[1]))
        let (width, height) = (Int(across.rounded()), Int(down.rounded()))
        guard RectangleDetector.isConvex(c), width >= 1, height >= 1, width <= 1 << 15, height <= 1 << 15,
            let warp = Homography(
                from: [
                    .zero, SIMD2(Double(width - 1), 0), SIMD2(Double(width - 1), Double(height - 1)),
                    SIMD2(0, Double(height - 1)),
                ], to: c)
        else {
            throw VisionError(
                "perspectiveCorrect cannot straighten the quadrilateral \(c.map { "(\($0.x), \($0.y))" }): its "
                    + "corners must be distinct, in order (top-left, top-right, bottom-right, bottom-left) and "
                    + "make a convex shape at most 32768 pixels a side")
        }
        let kernel = PerspectiveKernel(warp: warp, sourceWidth: input.width, sourceHeight: input.height)
        let output = Image(
            width: width, height: height, layout: input.layout, depth: input.depth, kernel: kernel,
            inputs: [KernelInput(input)])
        return NodeOutputs(["output": .image(output)])
    }
}

/// A projective map of the plane, `(x, y) -> ((a x + b y + c) / (g x + h y + 1), (d x + e y + f) / (...))`.
struct Homography: Sendable {
    var m: [Double]

    /// The map taking each of four points to the matching one of four others, as OpenCV's
    /// `getPerspectiveTransform` solves it (eight equations, Gaussian elimination); nil when three points lie
    /// on a line.
    init?(from source: [SIMD2<Double>], to target: [SIMD2<Double>]) {
        var rows: [[Double]] = []
        for (p, q) in zip(source, target) {
            rows.append([p.x, p.y, 1, 0, 0, 0, -p.x * q.x, -p.y * q.x, q.x])
            rows.append([0, 0, 0, p.x, p.y, 1, -p.x * q.y, -p.y * q.y, q.y])
        }
        for column in 0..<8 {
            let pivot = (column..<8).max { abs(rows[$0][column]) < abs(rows[$1][column]) } ?? column
            guard abs(rows[pivot][column]) > 1e-12 else { return nil }
            rows.swapAt(column, pivot)
            for row in 0..<8 where row != column {
                let factor = rows[row][column] / rows[column][column]
                for k in column..<9 { rows[row][k] -= factor * rows[column][k] }
            }
        }
        m = (0..<8).map { rows[$0][8] / rows[$0][$0] } + [1]
    }

    func callAsFunction(_ x: Double, _ y: Double) -> SIMD2<Double> {
        let w = m[6] * x + m[7] * y + m[8]
        return SIMD2((m[0] * x + m[1] * y + m[2]) / w, (m[3] * x + m[4] * y + m[5]) / w)
    }
}

/// Each output pixel the source bilinearly at its mapped point (integers are pixel centres), the point held
/// inside the source (edges replicated, as OpenCV's BORDER_REPLICATE). A tile reads the box around its four
/// corners' mapped points (a projective map takes a rectangle to the quadrilateral of its corners' images)
/// and one pixel more, within the source.
struct PerspectiveKernel: ImageKernel {
    let warp: Homography
    let sourceWidth: Int
    let sourceHeight: Int

    func inputRegion(for output: Rect, input index: Int) -> Rect {
        guard !output.isEmpty else { return .empty }
        let (x0, y0) = (Double(output.minX), Double(output.minY))
        let (x1, y1) = (Double(output.maxX - 1), Double(output.maxY - 1))
        let points = [warp(x0, y0), warp(x1, y0), warp(x1, y1), warp(x0, y1)]
        func clamp(_ value: Double, _ limit: Int) -> Int { Int(min(max(value, 0), Double(limit - 1))) }
        let left = clamp(points.map(\.x).min() ?? 0, sourceWidth)
        let top = clamp(points.map(\.y).min() ?? 0, sourceHeight)
        let right = min(clamp((points.map(\.x).max() ?? 0).rounded(.up), sourceWidth) + 1, sourceWidth - 1)
        let bottom = min(clamp((points.map(\.y).max() ?? 0).rounded(.up), sourceHeight) + 1, sourceHeight - 1)
        return Rect(x: left, y: top, width: right - left + 1, height: bottom - top + 1)
    }

    func render(into output: inout PixelBuffer, from inputs: [PixelBuffer]) throws {
        let source = inputs[0]
        let (region, from) = (output.region, source.region)
        let channels = output.channels
        let (maxX, maxY) = (Double(sourceWidth - 1), Double(sourceHeight - 1))
        output.samples.withUnsafeMutableBufferPointer { out in
            source.samples.withUnsafeBufferPointer { samples in
                for row in 0..<region.height {
                    for column in 0..<region.width {
                        let point = warp(Double(region.minX + column), Double(region.minY + row))
                        let x = point.x.isFinite ? min(max(point.x, 0), maxX) : 0
                        let y = point.y.isFinite ? min(max(point.y, 0), maxY) : 0
                        let (left, top) = (Int(x), Int(y))
                        let (right, bottom) = (min(left + 1, sourceWidth - 1), min(top + 1, sourceHeight - 1))
                        let (fx, fy) = (Float(x - Double(left)), Float(y - Double(top)))
                        let a = ((top - from.minY) * from.width + left - from.minX) * channels
                        let b = ((top - from.minY) * from.width + right - from.minX) * channels
                        let c = ((bottom - from.minY) * from.width + left - from.minX) * channels
                        let d = ((bottom - from.minY) * from.width + right - from.minX) * channels
                        let at = (row * region.width + column) * channels
                        for k in 0..<channels {
                            let upper = samples[a + k] + (samples[b + k] - samples[a + k]) * fx
                            let lower = samples[c + k] + (samples[d + k] - samples[c + k]) * fx
                            out[at + k] = upper + (lower - upper) * fy
                        }
                    }
                }
            }
        }
    }
}
