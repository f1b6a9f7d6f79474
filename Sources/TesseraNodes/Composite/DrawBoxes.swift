import TesseraCore

/// `drawBoxes`: strokes boxes (salient objects, say), antialiased, over the image they were found on or
/// over a plain background of its size.
///
///     heat:  { op: saliency, input: photo, kind: objectness }
///     shown: { op: drawBoxes, boxes: heat.boxes, input: photo, color: [1, 0.85, 0, 1], lineWidth: 3 }
///     plain: { op: drawBoxes, boxes: heat.boxes, like: photo, confidenceAsOpacity: true }
///
/// Boxes are in pixels of the image they came from, origin top-left, with edges between pixels (a box at
/// `x: 10, width: 20` spans from the left edge of column 10 to the right edge of column 29), as
/// `saliency` gives them and `crop` takes them. They carry no image size, so the drawing needs one: the
/// image drawn on (`input`), or, for a plain background, an image whose size to take (`like`, as
/// `constant` takes it), which should be the image the boxes were found on. Boxes are never rescaled:
/// draw them on the image that was analyzed, as a Vision user maps a salient object's normalized box
/// onto the image it came from (`VNImageRectForNormalizedRect`).
///
/// The stroke is centered on the box's edges and `lineWidth` wide, with square corners (a miter join, as
/// Core Graphics and SVG stroke a rectangle): the box grown by half the width, less the box shrunk by half
/// the width (nothing, when that leaves no inside). Each pixel is covered by the exact area of that shape
/// over its square, so edges on whole pixels with an even width are crisp (the default, 2, gives a line
/// one pixel each side of the edge) and other edges are antialiased. A box of zero width or height draws
/// nothing (as an SVG `<rect>`); a negative size spans back from `x` or `y` (as a `CGRect`); a box that
/// is not finite is skipped, and parts outside the image are clipped.
///
/// With `fill` the whole box grown by half the width is covered, inside included: a mask of the boxes
/// (text lines to blur out, say), `lineWidth` its margin.
///
/// Overlapping boxes take the largest coverage, not a sum, so crossings do not darken; with
/// `confidenceAsOpacity` each box's coverage is first multiplied by its confidence (clamped to 0...1),
/// so a box at 0.25 confidence is drawn a quarter as strong. The color is laid over by that coverage
/// times its alpha (source over), as `drawContours` lays its lines.
///
/// - Cost: per tile, for each box, the pixels of its stroke within the tile (rows inside the box skip
///   its inside); nothing per pixel is allocated.
struct DrawBoxes: Node {
    static let info = NodeInfo(
        op: "drawBoxes",
        summary: "Strokes boxes, antialiased, over the image they were found on or a plain background of its size.",
        access: .point,
        outputs: [
            .init(
                "output", .image,
                doc: "RGB (RGBA if the image or background has alpha) with the boxes drawn; the image's size.")
        ],
        example: """
            photo: { op: load, path: photo.png }
            heat: { op: saliency, input: photo, kind: objectness }
            shown: { op: drawBoxes, boxes: heat.boxes, input: photo, color: [1, 0.85, 0, 1], lineWidth: 3 }
            out: { op: save, input: shown, path: boxes.png }
            """)

    @Input(doc: "The boxes to draw, in pixels of the image they were found on.")
    var boxes: [Box]

    @Input(doc: "The image to draw on; unconnected, connect `like` for a plain background.")
    var input: Image?

    @Input(
        doc: "Without `input`: an image whose size the plain background takes; its pixels are never read.",
        readsPixels: false)
    var like: Image?

    @Parameter(doc: "Line color: red, green, blue and alpha, 0...1.", range: 0...1)
    var color = [1.0, 0, 0, 1]

    @Parameter(
        doc: "Line width in pixels, centered on the box's edges; an even width gives crisp lines on whole pixels.",
        range: 0.05...1000, suggested: 0.5...8, unit: "px")
    var lineWidth = 2.0

    @Parameter(doc: "Red, green, blue and alpha of the background when no image is connected.", range: 0...1)
    var background = [1.0, 1, 1, 1]

    @Parameter(doc: "Multiply each box's stroke by its confidence (0...1), so weak boxes are drawn faint.")
    var confidenceAsOpacity = false

    @Parameter(
        doc: "Fill each box with the color, not only its outline: the box grown by half the line width (a mask "
            + "of text lines or faces to blur, with lineWidth as its margin).")
    var fill = false

    /// Which images are connected is known before the run: `tessera validate` checks it.
    func validate(in context: ValidationContext) -> [NodeProblem] {
        Self.sizeProblem(input: context.inputTypes["input"] != nil, like: context.inputTypes["like"] != nil).map {
            [$0]
        } ?? []
    }

    /// What is wrong with the images connected, if anything: exactly one of `input` and `like` gives the size.
    static func sizeProblem(input: Bool, like: Bool) -> NodeProblem? {
        switch (input, like) {
        case (true, true): NodeProblem(parameter: "like", "connect `input` (to draw on) or `like`, not both")
        case (false, false):
            NodeProblem(
                parameter: "like", "connect `input` (the image to draw on) or `like` (an image whose size to take)")
        default: nil
        }
    }

    func run() throws -> NodeOutputs {
        if let problem = Self.sizeProblem(input: input != nil, like: like != nil) { throw problem }
        guard let size = input ?? like else { return .none }
        let strokes = boxes.compactMap {
            Stroke(
                $0, lineWidth: lineWidth, opacity: confidenceAsOpacity ? $0.confidence : 1, fill: fill,
                within: Rect(width: size.width, height: size.height))
        }
        let kernel = Kernel(
            strokes: strokes, paint: StrokePaint(color: color, background: input == nil ? background : nil))
        return NodeOutputs(
            .image(
                StrokePaint.image(
                    width: size.width, height: size.height, input: input, background: background, kernel: kernel)))
    }

    /// One box's stroke: the box grown by half the line width (`outer`) less the box shrunk by it
    /// (`inner`, empty when the line fills the box or the box is filled), as `(minX, minY, maxX, maxY)` in
    /// pixels.
    struct Stroke: Sendable, Equatable {
        var outer: SIMD4<Double>
        var inner: SIMD4<Double>
        var opacity: Float

        /// Nil for a box that draws nothing: not finite, zero in width or height, at opacity 0, or wholly
        /// outside `extent` (so far-away coordinates never reach integer conversion).
        init?(_ box: Box, lineWidth: Double, opacity: Double, fill: Bool = false, within extent: Rect) {
            let clamped = Swift.min(Swift.max(opacity, 0), 1)  // NaN stays NaN and fails the guard
            let x = (Swift.min(box.x, box.x + box.width), Swift.max(box.x, box.x + box.width))
            let y = (Swift.min(box.y, box.y + box.height), Swift.max(box.y, box.y + box.height))
            guard [x.0, x.1, y.0, y.1].allSatisfy(\.isFinite), x.0 < x.1, y.0 < y.1, clamped > 0 else { return nil }
            let half = lineWidth / 2
            let outer = SIMD4(x.0 - half, y.0 - half, x.1 + half, y.1 + half)
            guard outer[2] > Double(extent.minX), outer[3] > Double(extent.minY), outer[0] < Double(extent.maxX),
                outer[1] < Double(extent.maxY)
            else { return nil }
            let inner = SIMD4(x.0 + half, y.0 + half, x.1 - half, y.1 - half)
            self.outer = outer
            self.inner = !fill && inner[0] < inner[2] && inner[1] < inner[3] ? inner : SIMD4(repeating: 0)
            self.opacity = Float(clamped)
        }

        /// How much of `[low, low + 1]` the span `[from, to]` covers.
        @inline(__always)
        static func overlap(_ low: Double, _ from: Double, _ to: Double) -> Double {
            Swift.max(0, Swift.min(low + 1, to) - Swift.max(low, from))
        }

        /// Raises `coverage` (row by row over `region`) to this stroke's, times its opacity.
        func cover(_ region: Rect, into coverage: inout [Float]) {
            // The pixels the outer rectangle touches within the region.
            let clamp = StrokePaint.pixel
            let x0 = clamp(outer[0].rounded(.down), region.minX, region.maxX)
            let x1 = clamp(outer[2].rounded(.up), region.minX, region.maxX)
            let y0 = clamp(outer[1].rounded(.down), region.minY, region.maxY)
            let y1 = clamp(outer[3].rounded(.up), region.minY, region.maxY)
            guard x0 < x1, y0 < y1 else { return }
            // Columns wholly inside the inner rectangle: on rows wholly inside it too, they are not covered.
            let skip0 = clamp(inner[0].rounded(.up), x0, x1)
            let skip1 = Swift.max(skip0, clamp(inner[2].rounded(.down), x0, x1))
            coverage.withUnsafeMutableBufferPointer { coverage in
                for y in y0..<y1 {
                    let row = (y - region.minY) * region.width - region.minX
                    let outerY = Self.overlap(Double(y), outer[1], outer[3])
                    let innerY = Self.overlap(Double(y), inner[1], inner[3])
                    func visit(_ x: Int) {
                        let covered =
                            Self.overlap(Double(x), outer[0], outer[2]) * outerY
                            - Self.overlap(Double(x), inner[0], inner[2]) * innerY
                        let value = Float(covered) * opacity
                        if value > coverage[row + x] { coverage[row + x] = value }
                    }
                    if innerY == 1 {
                        for x in x0..<skip0 { visit(x) }
                        for x in skip1..<x1 { visit(x) }
                    } else {
                        for x in x0..<x1 { visit(x) }
                    }
                }
            }
        }
    }

    struct Kernel: ImageKernel {
        let strokes: [Stroke]
        let paint: StrokePaint

        func render(into output: inout PixelBuffer, from inputs: [PixelBuffer]) {
            let region = output.region
            guard !region.isEmpty else { return }
            var coverage = [Float](repeating: 0, count: region.area)
            for stroke in strokes { stroke.cover(region, into: &coverage) }
            paint.paint(coverage, into: &output, from: inputs)
        }
    }
}
