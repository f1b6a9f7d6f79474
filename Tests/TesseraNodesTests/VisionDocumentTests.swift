import Foundation
import Testing
import TesseraCore
import TesseraIO
import TesseraTesting

/// detectDocument, detectRectangles and perspectiveCorrect (the Vision plugin, classical geometry, no model)
/// on the photos Scripts/make-document-fixtures.py makes: a page and a card drawn with Pillow and warped onto
/// the repository's photos with known corners (turned up to 35 degrees, tilted up to 18 %, blurred up to
/// sigma 2.5, saved as JPEG), held to those corners; OpenCV's contour-and-approxPolyDP scanner on the same
/// photos is reported beside them, and perspectiveCorrect is held to OpenCV's warpPerspective.
@Suite(.serialized) struct VisionDocumentTests {
    static let folder = VisionPluginTests.plugin.appendingPathComponent("Tests/Fixtures/documents")

    struct Case: Sendable, CustomTestStringConvertible {
        var image: String
        var kind: String
        var corners: [SIMD2<Double>]
        var opencv: Double?
        var opencvDilated: Double?
        var straight: String?
        var testDescription: String { image }
    }

    static let cases: [Case] = {
        guard let data = try? Data(contentsOf: folder.appendingPathComponent("documents.json")),
            let root = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let cases = root["cases"] as? [[String: Any]]
        else { return [] }
        return cases.compactMap { item in
            guard let image = item["image"] as? String, let kind = item["kind"] as? String,
                let corners = item["corners"] as? [[Double]], corners.count == 4
            else { return nil }
            return Case(
                image: image, kind: kind, corners: corners.map { SIMD2($0[0], $0[1]) },
                opencv: (item["opencv"] as? [String: Any])?["error"] as? Double,
                opencvDilated: (item["opencvDilated"] as? [String: Any])?["error"] as? Double,
                straight: item["straight"] as? String)
        }
    }()

    static func load(_ name: String) throws -> Image {
        try ImageFile.load(path: folder.appendingPathComponent(name).path).1
    }

    static func quads(_ op: String, _ image: Image, _ parameters: [String: any ParameterValue] = [:]) throws
        -> [Quadrilateral]
    {
        guard case .rectangles(let quads) = try VisionPluginTests.run(op, image, parameters) else {
            Issue.record("\(op) made no rectangles")
            return []
        }
        return quads
    }

    /// The largest distance between matching corners, over the page's longer side.
    static func error(_ found: [SIMD2<Double>], _ expected: [SIMD2<Double>]) -> Double {
        func length(_ v: SIMD2<Double>) -> Double { (v * v).sum().squareRoot() }
        let side = (0..<4).map { length(expected[($0 + 1) % 4] - expected[$0]) }.max() ?? 0
        return (zip(found, expected).map { length($0 - $1) }.max() ?? .infinity) / side
    }

    static func percent(_ value: Double?) -> String {
        value.map { String(format: "%.2f %%", $0 * 100) } ?? "(none found)"
    }

    /// At most one document in each photo, its corners (top-left first, clockwise) within 2 % of the page's
    /// longer side of where it was drawn, on every photo. OpenCV's scanner (Canny, contours,
    /// approxPolyDP; Scripts/make-document-fixtures.py) is printed beside: it gives the table on the page, or
    /// nothing, on every photo (measured: never within 2 %).
    @Test(arguments: cases) func detectDocumentFindsThePage(_ item: Case) throws {
        let found = try Self.quads("detectDocument", try Self.load(item.image))
        let error = found.first.map { Self.error($0.corners, item.corners) }
        print(
            "document \(item.image): corners within \(Self.percent(error)) of the page; OpenCV's scanner "
                + "\(Self.percent(item.opencv)), with its edges dilated \(Self.percent(item.opencvDilated))")
        #expect(found.count <= 1)
        #expect(error ?? .infinity < 0.02, "\(item.image): corners \(found.map(\.corners)), drawn at \(item.corners)")
    }

    /// detectRectangles with its defaults but every observation: the page or card is among them, within 2 %
    /// (not always first: the table printed on a page is a rectangle too, and may be more confident).
    @Test(arguments: cases) func detectRectanglesFindsThePageOrCard(_ item: Case) throws {
        let found = try Self.quads("detectRectangles", try Self.load(item.image), ["maximumObservations": 0])
        let best = found.map { Self.error($0.corners, item.corners) }.min() ?? .infinity
        print("rectangles \(item.image): \(found.count) found, the nearest within \(Self.percent(best))")
        #expect(best < 0.02, "\(item.image): \(found.map(\.corners))")
    }

    /// perspectiveCorrect from the drawn corners against cv2.warpPerspective (INTER_LINEAR, BORDER_REPLICATE)
    /// from getPerspectiveTransform of the same corners, on the PNG photos: the same size, every sample within
    /// one level of 255 and the mean within 0.3 levels (OpenCV rounds coordinates to 1/32 pixel and its
    /// result to 8 bits; measured: means 0.19 and 0.25, largest 0.56). It passes the node verifier on the way.
    @Test(arguments: cases.filter { $0.straight != nil }) func perspectiveCorrectMatchesWarpPerspective(
        _ item: Case
    ) throws {
        let photo = try Self.load(item.image)
        let reference = try Self.load(try #require(item.straight))
        let outputs = try NodeVerifier().verify(
            try VisionPluginTests.declaration("perspectiveCorrect"),
            inputs: [
                "input": .image(photo),
                "rectangles": .rectangles([Quadrilateral(corners: item.corners, confidence: 1)]),
            ])
        guard case .image(let straight)? = outputs["output"] else {
            Issue.record("no image")
            return
        }
        #expect(straight.width == reference.width && straight.height == reference.height)
        try #require(straight.channels == reference.channels)
        let mine = try straight.pixels().samples
        let theirs = try reference.pixels().samples
        try #require(mine.count == theirs.count)
        let differences = zip(mine, theirs).map { abs(Double($0) - Double($1)) * 255 }
        let mean = differences.reduce(0, +) / Double(differences.count)
        let largest = differences.max() ?? 0
        print("perspectiveCorrect \(item.image): mean difference \(mean) levels of 255, largest \(largest)")
        #expect(mean < 0.3 && largest <= 1)
    }

    /// No document in a smooth gradient, in noise or in a single pixel; perspectiveCorrect with no rectangle,
    /// or with corners on a line or out of order, is one line saying so, never a crash.
    @Test func nothingIsFoundWhereThereIsNothing() throws {
        let root = try JSONSerialization.jsonObject(
            with: Data(contentsOf: Self.folder.appendingPathComponent("documents.json")))
        let empty = try #require((root as? [String: Any])?["empty"] as? [String])
        for name in empty {
            #expect(try Self.quads("detectDocument", try Self.load(name)).isEmpty, "a document in \(name)")
            #expect(try Self.quads("detectRectangles", try Self.load(name)).isEmpty, "a rectangle in \(name)")
        }
        let pixel = Image(buffer: PixelBuffer(region: Rect(width: 1, height: 1), channels: 1), layout: .gray)
        #expect(try Self.quads("detectDocument", pixel).isEmpty)
        let node = try VisionPluginTests.declaration("perspectiveCorrect").instantiate(
            parameters: [:], inputs: ["input": .image(pixel), "rectangles": .rectangles([])])
        #expect {
            try node.run()
        } throws: { error in
            let text = "\(error)"
            return text.contains("no rectangle to straighten") && !text.contains("\n")
        }
        // Three corners on a line, and corners out of order (a bow tie): one line each.
        let photo = try Self.load("empty-noise.png")
        for corners: [SIMD2<Double>] in [
            [SIMD2(10, 10), SIMD2(50, 10), SIMD2(90, 10), SIMD2(10, 90)],
            [SIMD2(10, 10), SIMD2(90, 90), SIMD2(90, 10), SIMD2(10, 90)],
        ] {
            let bad = try VisionPluginTests.declaration("perspectiveCorrect").instantiate(
                parameters: [:],
                inputs: [
                    "input": .image(photo), "rectangles": .rectangles([Quadrilateral(corners: corners, confidence: 1)]),
                ])
            #expect {
                try bad.run()
            } throws: { error in
                "\(error)".contains("cannot straighten the quadrilateral") && !"\(error)".contains("\n")
            }
        }
    }

    /// The document graph through the command line: the page found, straightened to the size of its sides
    /// and the same page as perspectiveCorrect gives from the drawn corners (its 8 x 8 blocks within 3
    /// levels of 255 on average), its corners written as Docs/schemas/rectangles.schema.json describes them
    /// (python3-jsonschema; the barcodes schema rejects them, so the check can fail); a photo with no page
    /// stops the run with the graph's message, exit status 1 and no file.
    @Test func theDocumentGraphStraightensThePage() throws {
        let item = try #require(Self.cases.first { $0.image == "page-astronaut-2.jpg" })
        let photo = try Self.load(item.image)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-document-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let json = folder.appendingPathComponent("page.json")
        let settings = ["a.path=\(json.path)", "c.path=\(folder.appendingPathComponent("found.png").path)"]
        let (status, stderr, written) = try VisionPluginTests.runGraph(
            "document.yaml", on: photo, writing: "b", to: "flat.png", settings: settings)
        #expect(status == 0, "\(stderr)")
        let flat = try #require(written).1
        let node = try VisionPluginTests.declaration("perspectiveCorrect").instantiate(
            parameters: [:],
            inputs: [
                "input": .image(photo),
                "rectangles": .rectangles([Quadrilateral(corners: item.corners, confidence: 1)]),
            ])
        guard case .image(let expected)? = try node.run().values["output"] else {
            Issue.record("no image")
            return
        }
        let reference = try expected.pixels()
        #expect(
            abs(flat.region.width - reference.region.width) <= 2
                && abs(flat.region.height - reference.region.height) <= 2)
        let (width, height) = (
            min(flat.region.width, reference.region.width), min(flat.region.height, reference.region.height)
        )
        // 8 x 8 blocks' means: a corner found a pixel from where it was drawn shifts the words by about one.
        var total = 0.0
        var count = 0
        for top in stride(from: 0, to: height - 7, by: 8) {
            for left in stride(from: 0, to: width - 7, by: 8) {
                for k in 0..<min(flat.channels, 3) {
                    var (mine, theirs) = (0.0, 0.0)
                    for y in top..<top + 8 {
                        for x in left..<left + 8 {
                            mine += Double(flat.samples[(y * flat.region.width + x) * flat.channels + k])
                            theirs += Double(
                                reference.samples[(y * reference.region.width + x) * reference.channels + k])
                        }
                    }
                    total += abs(mine - theirs) / 64
                    count += 1
                }
            }
        }
        let mean = total / Double(count) * 255
        print("the document graph's page: its 8 x 8 blocks differ from the drawn corners' by \(mean) levels on average")
        #expect(mean < 3, "the straightened page differs from the drawn one by \(mean) levels on average")
        #expect(try VisionBarcodeTests.checkValues(json, against: "rectangles") == 0)
        #expect(try VisionBarcodeTests.checkValues(json, against: "barcodes") == 1)
        let empty = try Self.load("empty-gradient.png")
        let refused = try VisionPluginTests.runGraph(
            "document.yaml", on: empty, writing: "b", to: "flat.png", settings: settings)
        #expect(refused.status == 1 && refused.written == nil && refused.stderr.contains("no page found in the photo"))
    }
}
