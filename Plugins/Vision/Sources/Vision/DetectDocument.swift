import TesseraPluginSDK

/// Finds the document in a photo (a page, a receipt, a card), as Vision's document segmentation request
/// (`VNDetectDocumentSegmentationRequest`) does: at most one quadrilateral of at least a quarter of the photo's
/// shorter side, the most confident, or the one around it (``RectangleDetector/outermost(_:)``).
struct DetectDocument: Node {
    static let info = NodeInfo(
        op: "detectDocument",
        summary: "Finds the document in a photo (a page, receipt or card): its four corners, as Vision's "
            + "document segmentation (the most confident large rectangle; no model).",
        access: .global,
        outputs: [
            .init(
                "rectangles", .rectangles,
                doc: "The document's quadrilateral, or none: perspectiveCorrect straightens it, drawBoxes and crop "
                    + "take its box, save writes it as .json, require checks that there is one.")
        ],
        example: """
            photo: { op: load, path: page.jpg }
            page: { op: detectDocument, input: photo }
            flat: { op: perspectiveCorrect, input: photo, rectangles: page }
            out: { op: save, input: flat, path: page.png }
            """)

    @Input(doc: "The photo, as stored (sRGB values); its colour is read, alpha ignored.") var input: Image
    @Parameter(
        doc: "The smallest side of the document, as a share of the image's shorter side.", range: 0...1,
        suggested: 0.1...0.8)
    var minimumSize = 0.25
    @Parameter(doc: "The lowest confidence kept, 0...1.", range: 0...1)
    var minimumConfidence = 0.5

    func run() throws -> NodeOutputs {
        // A page photographed by hand leans more than Vision's rectangles' 30 degrees, and may be a long
        // receipt: 40 degrees and any aspect ratio.
        let detector = RectangleDetector(
            minimumSize: minimumSize, aspectRatios: 0...1, quadratureTolerance: 40,
            minimumConfidence: minimumConfidence)
        let found = try detector.detect(input)
        return NodeOutputs(["rectangles": .rectangles(RectangleDetector.outermost(found).map { [$0] } ?? [])])
    }
}
