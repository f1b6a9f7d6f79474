import TesseraPluginSDK

/// Finds rectangles seen in perspective (pages, cards, signs, screens), as Vision's rectangle request
/// (`VNDetectRectanglesRequest`) does, with its parameters; classical, no model (``RectangleDetector``).
struct DetectRectangles: Node {
    static let info = NodeInfo(
        op: "detectRectangles",
        summary: "Finds rectangles seen in perspective (pages, cards, signs): four corners each, most confident "
            + "first, as Vision's rectangle observations (thresholds, edges and polygon approximation; no model).",
        access: .global,
        outputs: [
            .init(
                "rectangles", .rectangles,
                doc: "The quadrilaterals, most confident first: perspectiveCorrect straightens one, drawBoxes and "
                    + "crop take their boxes, save writes them as .json, require counts them.")
        ],
        example: """
            photo: { op: load, path: photo.jpg }
            found: { op: detectRectangles, input: photo, maximumObservations: 4 }
            drawn: { op: drawBoxes, input: photo, boxes: found }
            a: { op: save, input: found, path: rectangles.json }
            b: { op: save, input: drawn, path: rectangles.png }
            """)

    @Input(doc: "The photo, as stored (sRGB values); its colour is read, alpha ignored.") var input: Image
    @Parameter(
        doc: "The smallest side of a rectangle, as a share of the image's shorter side (Vision's minimumSize).",
        range: 0...1)
    var minimumSize = 0.2
    @Parameter(
        doc: "The smallest ratio of a rectangle's shorter side to its longer one (Vision's minimumAspectRatio).",
        range: 0...1)
    var minimumAspectRatio = 0.3
    @Parameter(
        doc: "The largest ratio of a rectangle's shorter side to its longer one (Vision's maximumAspectRatio).",
        range: 0...1)
    var maximumAspectRatio = 1.0
    @Parameter(
        doc: "How far each corner's angle may be from 90 degrees (Vision's quadratureTolerance).", range: 0...45,
        unit: "degrees")
    var quadratureTolerance = 30.0
    @Parameter(doc: "The lowest confidence kept, 0...1 (Vision's minimumConfidence).", range: 0...1)
    var minimumConfidence = 0.5
    @Parameter(
        doc: "The most rectangles given, the most confident; 0 for all (Vision's maximumObservations).", range: 0...1000
    )
    var maximumObservations = 1
    @Parameter(
        doc: "The longest side the photo is averaged down to before it is searched (never up): larger finds "
            + "smaller rectangles and takes longer.",
        range: 64...4096, suggested: 256...1024, unit: "px")
    var maximumImageDimension = 512

    func validate(in context: ValidationContext) -> [NodeProblem] {
        minimumAspectRatio > maximumAspectRatio
            ? [
                NodeProblem(
                    parameter: "maximumAspectRatio",
                    "the maximum aspect ratio \(maximumAspectRatio) is below the minimum \(minimumAspectRatio)")
            ] : []
    }

    func run() throws -> NodeOutputs {
        let detector = RectangleDetector(
            maximumImageDimension: maximumImageDimension, minimumSize: minimumSize,
            aspectRatios: minimumAspectRatio...max(minimumAspectRatio, maximumAspectRatio),
            quadratureTolerance: quadratureTolerance, minimumConfidence: minimumConfidence)
        let found = try detector.detect(input)
        let kept = maximumObservations == 0 ? found : Array(found.prefix(maximumObservations))
        return NodeOutputs(["rectangles": .rectangles(kept)])
    }
}
