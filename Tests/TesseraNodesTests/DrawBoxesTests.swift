import Foundation
import Testing
import TesseraCore
@testable import TesseraCatalog
@testable import TesseraGraph
@testable import TesseraPluginHost
@testable import TesseraRunner
@testable import TesseraNodes
import TesseraTesting

/// drawBoxes against point-sampled coverage (Scripts/make-box-fixtures.py), and its edge cases.
@Suite struct DrawBoxesTests {
    let verifier = NodeVerifier()

    /// The boxes and the parameters of each case (`photo`, `plain`) the script drew.
    static func fixture() throws -> (boxes: [Box], cases: [String: [String: any ParameterValue]]) {
        let data = try Data(contentsOf: Fixtures.folder.appendingPathComponent("drawBoxes.json"))
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let boxes = try #require(json["boxes"] as? [[Double]]).map {
            Box(x: $0[0], y: $0[1], width: $0[2], height: $0[3], confidence: $0[4])
        }
        var cases: [String: [String: any ParameterValue]] = [:]
        for (name, value) in try #require(json["cases"] as? [String: [String: Any]]) {
            var parameters: [String: any ParameterValue] = [:]
            for (key, setting) in value {
                switch setting {
                case let flag as Bool where key == "confidenceAsOpacity": parameters[key] = flag
                case let number as Double: parameters[key] = number
                case let numbers as [Double]: parameters[key] = numbers
                default: Issue.record("\(name).\(key): unexpected \(setting)")
                }
            }
            cases[name] = parameters
        }
        return (boxes, cases)
    }

    /// The exact covered area against 64x64 point samples a pixel: sampling miscounts up to half a
    /// sample's spacing (1/128 of a pixel) at each edge crossing a pixel, and a pixel can hold four
    /// (both sides of a thin stroke, in x and y), so coverage may differ by up to 1/32, and the values by
    /// that times the color's distance from what is below. The miscount is the same all along a straight
    /// edge, so it does not average out. Measured: max 0.0050, mean 0.00006 over the photo; max 0.0062,
    /// mean 0.00010 on the plain background (an edge at x = 80.1 is sampled at 0.906, not 0.9).
    /// Required: max 1/64, mean 2e-4.
    @Test(arguments: ["photo", "plain"])
    func drawBoxesMatchesPointSampling(_ name: String) throws {
        let (boxes, cases) = try Self.fixture()
        let parameters = try #require(cases[name])
        let photo = try Fixtures.image("photo.png")
        let outputs = try verifier.verify(
            DrawBoxes.self, parameters: parameters,
            inputs: ["boxes": .boxes(boxes), name == "photo" ? "input" : "like": .image(photo)])
        let image = try #require(outputs["output"]).image()
        #expect(image.layout == (name == "photo" ? .rgb : .rgba))
        let reference = try Fixtures.reference("drawBoxes-\(name).f32")
        let (largest, mean) = difference(try image.pixels(), reference)
        print("drawBoxes \(name): against point sampling, max \(largest), mean \(mean)")
        #expect(largest <= 1.0 / 64, "max \(largest)")
        #expect(mean <= 2e-4, "mean \(mean)")
    }

    /// A white 8-bit background of `width` x `height` with `boxes` drawn in black: the drawing's red
    /// channel, row by row (1 untouched, 0 fully covered).
    func drawn(
        _ boxes: [Box], width: Int = 30, height: Int = 14, _ parameters: [String: any ParameterValue] = [:]
    ) throws -> [[Float]] {
        let like = Image(
            buffer: PixelBuffer(region: Rect(width: width, height: height), channels: 1), layout: .gray, depth: .uint8)
        var all = parameters
        all["color"] = all["color"] ?? [0.0, 0, 0, 1]
        let outputs = try verifier.verify(
            DrawBoxes.self, parameters: all, inputs: ["boxes": .boxes(boxes), "like": .image(like)])
        let image = try #require(outputs["output"]).image()
        #expect(image.width == width && image.height == height && image.layout == .rgb && image.depth == .uint8)
        let pixels = try image.pixels()
        return (0..<height).map { y in (0..<width).map { x in pixels.samples[pixels.index(x: x, y: y)] } }
    }

    /// With the default width (2) a box on whole pixels is crisp: the ring of pixels just outside its
    /// edges and the ring just inside are fully covered, square at the corners, and nothing else is.
    @Test func wholePixelBoxesAreCrisp() throws {
        let red = try drawn([Box(x: 4, y: 3, width: 10, height: 6)], width: 20, height: 12)
        for y in 0..<12 {
            for x in 0..<20 {
                let stroked =
                    (3...14).contains(x) && (2...9).contains(y) && !((5...12).contains(x) && (4...7).contains(y))
                #expect(red[y][x] == (stroked ? 0 : 1), "pixel \(x), \(y)")
            }
        }
    }

    /// A filled box covers the box grown by half the line width, inside and all; the pixel half covered
    /// at its edge is half the color.
    @Test func filledBoxesCoverTheirInside() throws {
        let filled = try drawn([Box(x: 4, y: 3, width: 10, height: 6)], width: 20, height: 12, ["fill": true])
        for y in 0..<12 {
            for x in 0..<20 {
                #expect(filled[y][x] == ((3...14).contains(x) && (2...9).contains(y) ? 0 : 1), "pixel \(x), \(y)")
            }
        }
        let margin = try drawn(
            [Box(x: 4, y: 3, width: 10, height: 6)], width: 20, height: 12, ["fill": true, "lineWidth": 1.0])
        #expect(margin[5][3] == 0.5 && margin[5][8] == 0 && margin[2][8] == 0.5 && margin[1][8] == 1)
    }

    /// An empty list, boxes wholly outside (beyond the line's reach), of zero width or height or both,
    /// not finite, or far beyond any image draw nothing: the image comes back as it was.
    @Test func boxesThatDrawNothing() throws {
        let photo = try Fixtures.image("photo.png")
        let original = try photo.pixels()
        let nothing: [[Box]] = [
            [],
            [Box(x: 200, y: 10, width: 30, height: 20)],
            [Box(x: -40, y: -30, width: 38.9, height: 20)],
            [
                Box(x: 10, y: 10, width: 0, height: 20), Box(x: 10, y: 10, width: 20, height: 0),
                Box(x: 30, y: 30, width: 0, height: 0),
            ],
            [Box(x: .nan, y: 10, width: 5, height: 5), Box(x: 10, y: 10, width: .infinity, height: 5)],
            [Box(x: 1e300, y: -1e300, width: 1e300, height: 1)],
        ]
        for boxes in nothing {
            let outputs = try verifier.verify(
                DrawBoxes.self, inputs: ["boxes": .boxes(boxes), "input": .image(photo)])
            let same = try #require(outputs["output"]).image().pixels()
            #expect(same.samples == original.samples, "\(boxes)")
        }
    }

    /// A box reaching past the image is clipped: only the part of its stroke inside is drawn, a column
    /// half covered where the line's edge falls mid-pixel.
    @Test func boxesAcrossTheEdgeAreClipped() throws {
        // x from -5 to 3.5: the stroke's right side spans 2.5...4.5, its top and bottom rows 1...3 and 7...9.
        let red = try drawn([Box(x: -5, y: 2, width: 8.5, height: 6)], width: 8, height: 10)
        #expect(red[5] == [1, 1, 0.5, 0, 0.5, 1, 1, 1])
        #expect(red[1] == [0, 0, 0, 0, 0.5, 1, 1, 1] && red[8] == red[1])
        #expect(red[0] == [Float](repeating: 1, count: 8) && red[9] == red[0])
    }

    /// With confidenceAsOpacity each box's stroke is multiplied by its confidence, clamped to 0...1 (NaN
    /// draws nothing); boxes that overlap take the larger, so a shared edge is no darker. Without it,
    /// every box is drawn at full strength.
    @Test func confidenceAsOpacity() throws {
        let boxes = [
            Box(x: 2, y: 2, width: 6, height: 6, confidence: 0.5),
            Box(x: 8, y: 2, width: 6, height: 6, confidence: 0.5),
            Box(x: 16, y: 2, width: 4, height: 4, confidence: 1.5),
            Box(x: 22, y: 2, width: 4, height: 4, confidence: -1),
            Box(x: 2, y: 10, width: 4, height: 2, confidence: .nan),
        ]
        let faded = try drawn(boxes, ["confidenceAsOpacity": true])
        #expect(faded[4][1] == 0.5 && faded[4][7] == 0.5 && faded[4][8] == 0.5 && faded[4][13] == 0.5)
        #expect(faded[4][15] == 0 && faded[4][21] == 1 && faded[10][1] == 1)
        let full = try drawn(boxes)
        #expect(full[4][1] == 0 && full[4][8] == 0 && full[4][21] == 0 && full[10][1] == 0)
    }

    /// The drawing needs an image: the one to draw on, or one whose size to take; not both.
    @Test func needsAnImageOrLike() throws {
        let declaration = try NodeDeclaration(DrawBoxes.self)
        let photo = NodeValue.image(try Fixtures.image("photo.png"))
        let neither = try declaration.instantiate(parameters: [:], inputs: ["boxes": .boxes([])])
        #expect(throws: NodeProblem.self) { try neither.run() }
        let both = try declaration.instantiate(
            parameters: [:], inputs: ["boxes": .boxes([]), "input": photo, "like": photo])
        #expect(throws: NodeProblem.self) { try both.run() }
    }
}
