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
        let side = (0..<4).map { index in
            let d = expected[(index + 1) % 4] - expected[index]
            return (d * d).sum().squareRoot()
        }
        .max()!
        return zip(found, expected).map { a, b in ((a - b) * (a - b)).sum().squareRoot() }.max()! / side
    }

    static func percent(_ value: Double?) -> String {
        value.map { String(format: "%.2f %%", $0 * 100) } ?? "none"
    }

    /// One document found in each photo, its corners (top-left first, clockwise) within 2 % of the page's
    /// longer side of where it was drawn. OpenCV's scanner (Canny, contours, approxPolyDP) is printed beside.
    @Test(arguments: cases) func detectDocumentFindsThePage(_ item: Case) throws {
        let found = try Self.quads("detectDocument", try Self.load(item.image))
        try #require(found.count == 1, "no document in \(item.image)")
        let error = Self.error(found[0].corners, item.corners)
        print(
            "document \(item.image): corners within \(Self.percent(error)) of the page; OpenCV's scanner "
                + "\(Self.percent(item.opencv)), with its edges dilated \(Self.percent(item.opencvDilated)); "
                + "confidence \(found[0].box.confidence)")
        #expect(error < 0.02, "\(item.image): corners \(found[0].corners), drawn at \(item.corners)")
    }

    /// detectRectangles with Vision's own defaults but every observation: the page or card is among them,
    /// within 2 %, and it is the most confident.
    @Test(arguments: cases) func detectRectanglesFindsThePageOrCard(_ item: Case) throws {
        let found = try Self.quads("detectRectangles", try Self.load(item.image), ["maximumObservations": 0])
        let best = found.map { Self.error($0.corners, item.corners) }.min() ?? .infinity
        print("rectangles \(item.image): \(found.count) found, the nearest within \(Self.percent(best))")
        #expect(best < 0.02, "\(item.image): \(found.map(\.corners))")
        if let first = found.first { #expect(Self.error(first.corners, item.corners) < 0.02, "not the first") }
    }

    /// perspectiveCorrect from the drawn corners against cv2.warpPerspective (INTER_LINEAR, BORDER_REPLICATE)
    /// from getPerspectiveTransform of the same corners, on the PNG photos: the same size, and every sample
    /// within 3 levels of 255 but a few at the sharpest edges (OpenCV rounds coordinates to 1/32 pixel and
    /// weights to 1/1024), the mean within 0.3 levels. It passes the node verifier on the way.
    @Test(arguments: cases.filter { $0.straight != nil }) func perspectiveCorrectMatchesWarpPerspective(
        _ item: Case
    ) throws {
        let photo = try Self.load(item.image)
        let reference = try Self.load(try #require(item.straight))
        let outputs = try NodeVerifier().verify(
            try VisionPluginTests.declaration("perspectiveCorrect"),
            inputs: ["input": .image(photo), "rectangles": .rectangles([Quadrilateral(corners: item.corners, confidence: 1)])])
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
        let far = differences.filter { $0 > 3 }.count
        print(
            "perspectiveCorrect \(item.image): mean difference \(mean) levels, largest \(differences.max() ?? 0), "
                + "\(far) of \(differences.count) samples beyond 3")
        #expect(mean < 0.3 && Double(far) < 0.001 * Double(differences.count))
    }

    /// No document in a smooth gradient, in noise or in a single pixel; perspectiveCorrect with no rectangle
    /// is one line saying so, never a crash.
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
    }
}
