import TesseraCore

/// `drawContours`: strokes contours, antialiased, over an image or over a plain background.
///
///     lines: { op: drawContours, contours: edges, input: photo, color: [1, 0, 0, 1], lineWidth: 2 }
///     art:   { op: drawContours, contours: edges, background: [1, 1, 1, 1] }
///
/// Each contour is drawn as a closed polyline through its points' pixel centers, scaled from the traced
/// grid to the output (so contours traced on a 512-pixel copy land on the full-size photo). A contour of
/// one point has no length and draws nothing, as in SVG and Core Graphics. A pixel's
/// coverage is `clamp(lineWidth / 2 + 0.5 - d, 0, 1)`, `d` the distance from its center to the nearest
/// segment (times `lineWidth` for lines under a pixel wide), and the color is laid over the pixel by that
/// coverage times its alpha (source over). Coverage is the largest over the segments, not a sum, so
/// crossings and the joints between segments do not darken, and any tile gives the same pixels.
///
/// - Cost: segments are put into a grid of 32-pixel cells once per run; a tile rasterizes only the
///   segments of the cells it touches, over each segment's box.
struct DrawContours: Node {
    static let info = NodeInfo(
        op: "drawContours",
        summary: "Strokes contours, antialiased, over an image or a plain background.",
        access: .point,
        outputs: [
            .init(
                "output", .image,
                doc: "RGB (RGBA if the image or background has alpha) with the contours drawn; the input's size.")
        ],
        example: """
            photo: { op: load, path: photo.png }
            edges: { op: detectContours, input: photo }
            drawn: { op: drawContours, contours: edges, input: photo, color: [1, 0, 0, 1], lineWidth: 2 }
            out: { op: save, input: drawn, path: drawn.png }
            """)

    @Input(doc: "The contours to draw.")
    var contours: Contours

    @Input(doc: "The image to draw on; unconnected, a background of the contours' image size.")
    var input: Image?

    @Parameter(doc: "Line color: red, green, blue and alpha, 0...1.", range: 0...1)
    var color = [0.0, 0, 0, 1]

    @Parameter(doc: "Line width in output pixels.", range: 0.05...1000, suggested: 0.5...8, unit: "px")
    var lineWidth = 1.0

    @Parameter(doc: "Red, green, blue and alpha of the background when no image is connected.", range: 0...1)
    var background = [1.0, 1, 1, 1]

    /// The side of the grid cells segments are filed in.
    static let cellSize = 32

    func run() throws -> NodeOutputs {
        let width = input?.width ?? contours.imageWidth
        let height = input?.height ?? contours.imageHeight
        guard width > 0, height > 0 else { throw NodeProblem(parameter: "lineWidth", "the contours have no size") }
        let scale = SIMD2(
            Double(width) / Double(Swift.max(contours.width, 1)), Double(height) / Double(Swift.max(contours.height, 1))
        )
        let kernel = Kernel(
            segments: Self.segments(contours, scale: scale), width: width, height: height, lineWidth: lineWidth,
            paint: StrokePaint(color: color, background: input == nil ? background : nil))
        return NodeOutputs(
            .image(
                StrokePaint.image(width: width, height: height, input: input, background: background, kernel: kernel)))
    }

    /// Every contour's closing polyline as segments `(x0, y0, x1, y1)` in output pixels (pixel centers at
    /// half-integers).
    static func segments(_ contours: Contours, scale: SIMD2<Double>) -> [SIMD4<Double>] {
        var segments: [SIMD4<Double>] = []
        for contour in contours.contours {
            // A single point has no length and draws nothing, as a one-point path stroked by Core
            // Graphics or SVG (butt caps): a sweep's one-pixel specks do not clutter the drawing.
            guard contour.points.count > 1 else { continue }
            let points = contour.points.map { ($0 + 0.5) * scale }
            guard let last = points.last else { continue }
            var previous = last
            for point in points where point.x.isFinite && point.y.isFinite {
                segments.append(SIMD4(previous.x, previous.y, point.x, point.y))
                previous = point
            }
        }
        return segments
    }

    struct Kernel: ImageKernel {
        let segments: [SIMD4<Double>]
        /// Cell (row-major over the output) -> the segments whose reach touches it.
        let cells: [[Int32]]
        let columns: Int
        let lineWidth: Double
        let reach: Double
        let paint: StrokePaint

        init(segments: [SIMD4<Double>], width: Int, height: Int, lineWidth: Double, paint: StrokePaint) {
            let size = DrawContours.cellSize
            columns = (width + size - 1) / size
            let rows = (height + size - 1) / size
            reach = lineWidth / 2 + 1
            var cells = [[Int32]](repeating: [], count: columns * rows)
            var kept: [SIMD4<Double>] = []
            for segment in segments {
                let (x0, x1) = (Swift.min(segment.x, segment.z) - reach, Swift.max(segment.x, segment.z) + reach)
                let (y0, y1) = (Swift.min(segment.y, segment.w) - reach, Swift.max(segment.y, segment.w) + reach)
                guard x1 >= 0, y1 >= 0, x0 < Double(width), y0 < Double(height) else { continue }
                // Clamped in floating point first, so far-away (or huge) coordinates never trap.
                let c0 = Int(Swift.max(x0, 0)) / size
                let c1 = Swift.min(columns - 1, Int(Swift.min(x1, Double(width))) / size)
                let r0 = Int(Swift.max(y0, 0)) / size
                let r1 = Swift.min(rows - 1, Int(Swift.min(y1, Double(height))) / size)
                let index = Int32(kept.count)
                kept.append(segment)
                for row in r0...r1 { for column in c0...c1 { cells[row * columns + column].append(index) } }
            }
            self.segments = kept
            self.cells = cells
            self.lineWidth = lineWidth
            self.paint = paint
        }

        func render(into output: inout PixelBuffer, from inputs: [PixelBuffer]) {
            let region = output.region
            guard !region.isEmpty else { return }
            // Coverage of each pixel of the region: the largest over the segments near it.
            var coverage = [Float](repeating: 0, count: region.area)
            let size = DrawContours.cellSize
            let half = lineWidth / 2 + 0.5
            let thin = Swift.min(lineWidth, 1)
            let rows = cells.count / Swift.max(columns, 1)
            let (r0, r1) = (Swift.max(0, region.minY / size), Swift.min(rows - 1, (region.maxY - 1) / size))
            let (c0, c1) = (Swift.max(0, region.minX / size), Swift.min(columns - 1, (region.maxX - 1) / size))
            for row in stride(from: r0, through: r1, by: 1) {
                for column in stride(from: c0, through: c1, by: 1) {
                    for index in cells[row * columns + column] {
                        stroke(segments[Int(index)], region: region, half: half, thin: thin, into: &coverage)
                    }
                }
            }
            paint.paint(coverage, into: &output, from: inputs)
        }

        /// Raises `coverage` to this segment's over the pixels of `region` it reaches.
        func stroke(_ segment: SIMD4<Double>, region: Rect, half: Double, thin: Double, into coverage: inout [Float]) {
            let a = SIMD2(segment.x, segment.y)
            let b = SIMD2(segment.z, segment.w)
            // The segment's reach within the region.
            let clamp = StrokePaint.pixel
            let x0 = clamp((Swift.min(a.x, b.x) - reach).rounded(.down), region.minX, region.maxX)
            let x1 = clamp((Swift.max(a.x, b.x) + reach).rounded(.up), region.minX - 1, region.maxX - 1)
            let y0 = clamp((Swift.min(a.y, b.y) - reach).rounded(.down), region.minY, region.maxY)
            let y1 = clamp((Swift.max(a.y, b.y) + reach).rounded(.up), region.minY - 1, region.maxY - 1)
            guard x0 <= x1, y0 <= y1 else { return }
            let d = b - a
            let length2 = (d * d).sum()
            for y in y0...y1 {
                let row = (y - region.minY) * region.width - region.minX
                for x in x0...x1 {
                    let p = SIMD2(Double(x) + 0.5, Double(y) + 0.5)
                    let t = length2 > 0 ? Swift.min(Swift.max(((p - a) * d).sum() / length2, 0), 1) : 0
                    let e = p - (a + d * t)
                    let cover = Float(Swift.min(Swift.max(half - (e * e).sum().squareRoot(), 0), 1) * thin)
                    if cover > coverage[row + x] { coverage[row + x] = cover }
                }
            }
        }
    }
}
