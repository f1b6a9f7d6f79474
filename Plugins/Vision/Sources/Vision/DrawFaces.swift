import TesseraPluginSDK

/// Draws faces over a photo: boxes, the six keypoints, and the mesh's regions when the faces have them.
struct DrawFaces: Node {
    static let info = NodeInfo(
        op: "drawFaces",
        summary: "Draws faces over an image: their boxes, keypoints, and landmark regions and mesh when present.",
        access: .global,
        outputs: [.init("output", .image, doc: "The image with the faces drawn, in color with alpha.")],
        example: """
            photo: { op: load, path: photo.jpg }
            marks: { op: faceLandmarks, input: photo }
            drawn: { op: drawFaces, input: photo, faces: marks, mesh: true }
            out: { op: save, input: drawn, path: faces.png }
            """)

    @Input(doc: "The image to draw on.") var input: Image
    @Input(doc: "The faces, from detectFaces or faceLandmarks, in pixels of this image.") var faces: [Face]
    @Parameter(doc: "Box color: red, green, blue and alpha, 0...1.", range: 0...1)
    var color = [0.1, 0.9, 0.3, 1]
    @Parameter(doc: "Keypoint and region color: red, green, blue and alpha, 0...1.", range: 0...1)
    var landmarkColor = [1.0, 0.85, 0, 1]
    @Parameter(doc: "Line width in pixels.", range: 0.5...100, suggested: 1...8, unit: "px")
    var lineWidth = 2.0
    @Parameter(doc: "Draw every mesh point too, not only the regions.") var mesh = false

    func run() throws -> NodeOutputs {
        var canvas = Canvas(try input.pixels(), layout: input.layout)
        let boxColor = Canvas.color(color)
        let markColor = Canvas.color(landmarkColor)
        let width = Float(lineWidth)
        for face in faces {
            let box = face.box
            let corners = [
                SIMD2(box.x, box.y), SIMD2(box.x + box.width, box.y), SIMD2(box.x + box.width, box.y + box.height),
                SIMD2(box.x, box.y + box.height),
            ]
            canvas.polyline(corners, closed: true, width: width, color: boxColor)
            if mesh {
                for point in face.landmarks {
                    canvas.disc(SIMD2(point.x, point.y), radius: width * 0.5, color: markColor)
                }
            }
            for region in face.regionPoints {
                let closed = !["faceContour", "noseCrest", "medianLine"].contains(region.name)
                if region.points.count == 1 {
                    canvas.disc(region.points[0], radius: width * 1.5, color: markColor)
                } else {
                    canvas.polyline(region.points, closed: closed, width: width * 0.75, color: markColor)
                }
            }
            if face.landmarks.isEmpty {
                for point in face.keypoints { canvas.disc(point, radius: width * 2, color: markColor) }
            }
        }
        return NodeOutputs(["output": .image(Image(buffer: canvas.pixels, layout: .rgba, depth: input.depth))])
    }
}

/// An RGBA copy of an image that discs and lines are painted onto, covering each pixel by the share of
/// it inside the shape (sampled 4 x 4), blended over with the color's alpha.
struct Canvas {
    var pixels: PixelBuffer

    init(_ source: PixelBuffer, layout: PixelLayout) {
        var rgba = PixelBuffer(region: source.region, channels: 4)
        let count = source.region.width * source.region.height
        for index in 0..<count {
            if source.channels == 1 {
                let gray = source.samples[index]
                rgba.samples.replaceSubrange((index * 4)..<(index * 4 + 4), with: [gray, gray, gray, 1])
            } else {
                for c in 0..<4 { rgba.samples[index * 4 + c] = source.samples[index * 4 + c] }
                if layout == .gray || layout == .rgb { rgba.samples[index * 4 + 3] = 1 }
            }
        }
        pixels = rgba
    }

    /// Paints where `inside` holds for sample points of each pixel in the box `low...high`.
    mutating func paint(
        low: SIMD2<Double>, high: SIMD2<Double>, color: SIMD4<Float>, inside: (SIMD2<Double>) -> Bool
    ) {
        let (width, height) = (pixels.region.width, pixels.region.height)
        let x0 = max(Int(low.x.rounded(.down)), 0)
        let y0 = max(Int(low.y.rounded(.down)), 0)
        let x1 = min(Int(high.x.rounded(.up)), width - 1)
        let y1 = min(Int(high.y.rounded(.up)), height - 1)
        guard x0 <= x1, y0 <= y1 else { return }
        for y in y0...y1 {
            for x in x0...x1 {
                var covered = 0
                for sy in 0..<4 {
                    for sx in 0..<4
                    where inside(SIMD2(Double(x) + (Double(sx) + 0.5) / 4, Double(y) + (Double(sy) + 0.5) / 4)) {
                        covered += 1
                    }
                }
                guard covered > 0 else { continue }
                let alpha = color.w * Float(covered) / 16
                let at = (y * width + x) * 4
                for c in 0..<3 { pixels.samples[at + c] += (color[c] - pixels.samples[at + c]) * alpha }
                pixels.samples[at + 3] += (1 - pixels.samples[at + 3]) * alpha
            }
        }
    }

    /// A color parameter (red, green, blue, alpha: the graph checks there are four) as the canvas paints it.
    static func color(_ rgba: [Double]) -> SIMD4<Float> { SIMD4(rgba.map(Float.init)) }

    mutating func disc(_ center: SIMD2<Double>, radius: Float, color: SIMD4<Float>) {
        let r = Double(radius)
        paint(low: center - r, high: center + r, color: color) { point in
            let d = point - center
            return (d * d).sum() <= r * r
        }
    }

    /// Each segment painted on its own, so the work follows the line's length, not its bounding box.
    mutating func polyline(_ points: [SIMD2<Double>], closed: Bool, width: Float, color: SIMD4<Float>) {
        guard points.count > 1 else { return }
        let half = Double(width) / 2
        for index in 0..<(closed ? points.count : points.count - 1) {
            let a = points[index]
            let b = points[(index + 1) % points.count]
            let ab = b - a
            let length = (ab * ab).sum()
            paint(low: pointwiseMin(a, b) - half, high: pointwiseMax(a, b) + half, color: color) { point in
                let t = length > 0 ? min(max(((point - a) * ab).sum() / length, 0), 1) : 0
                let d = point - (a + t * ab)
                return (d * d).sum() <= half * half
            }
        }
    }
}
