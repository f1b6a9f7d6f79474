import Foundation
import Testing
import TesseraCore
import TesseraCatalog
import TesseraGraph
import TesseraPluginHost
import TesseraRunner
import TesseraIO
import TesseraNodes
import TesseraTesting

/// The Vision plugin's hands and text (Plugins/Vision, built by PluginNodeTests.built), held to the same
/// models run by their own Python packages: MediaPipe 0.10.21's hands solution
/// (Scripts/make-hand-fixtures.py) and rapidocr-onnxruntime 1.4.4 (Scripts/make-text-fixtures.py), with the
/// issue's tolerances.
@Suite(.serialized) struct VisionHandsAndTextTests {
    static let plugin = VisionPluginTests.plugin
    static let fixtures = plugin.appendingPathComponent("Tests/Fixtures")

    static func json(_ url: URL) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
    }

    /// Each photo with its MediaPipe reference of `kind` (hands, bodies): the people photos (references in
    /// Fixtures/mediapipe), and the ones derived from them in Fixtures/hands (mirrored, turned, enlarged, two
    /// people; references in Fixtures/`kind`).
    static func photos(withReferences kind: String) -> [(image: String, reference: String)] {
        VisionPluginTests.photos.map { photo in
            let stem = (photo as NSString).deletingPathExtension
            let folder = photo == "astronaut.png" ? "Examples/images" : "Examples/images/people"
            return ("\(folder)/\(photo)", "Plugins/Vision/Tests/Fixtures/mediapipe/\(stem)-\(kind).json")
        }
            + ["four-fingers-4-rotated", "phone-1-2x", "phone-3-mirrored", "two-hands"].map {
                (
                    "Plugins/Vision/Tests/Fixtures/hands/\($0).png",
                    "Plugins/Vision/Tests/Fixtures/\(kind)/\($0)-\(kind).json"
                )
            }
    }

    static let handPhotos = photos(withReferences: "hands")

    /// The same hands as MediaPipe's, in its order, each joint on average within 3 % of the hand's
    /// diagonal (the box around MediaPipe's joints), and the chirality MediaPipe's label means on an
    /// ordinary photo: its "Left" is the subject's right hand.
    @Test(arguments: handPhotos.map(\.image))
    func detectHandPoseFindsMediaPipesHands(_ path: String) throws {
        let repository = VisionPluginTests.repository
        let reference = try Self.json(
            repository.appendingPathComponent(Self.handPhotos.first { $0.image == path }!.reference))
        let expected = try #require(reference["hands"] as? [[String: Any]])
        let image = try ImageFile.load(path: repository.appendingPathComponent(path).path).1
        guard case .hands(let hands) = try VisionPluginTests.run("detectHandPose", image) else {
            Issue.record("detectHandPose made no hands")
            return
        }
        try #require(hands.count == expected.count, "\(hands.count) hands, MediaPipe \(expected.count)")
        for (hand, theirs) in zip(hands, expected) {
            let points = try #require(theirs["landmarks"] as? [[Double]])
            let xs = points.map { $0[0] }
            let ys = points.map { $0[1] }
            let diagonal =
                ((xs.max()! - xs.min()!) * (xs.max()! - xs.min()!) + (ys.max()! - ys.min()!)
                    * (ys.max()! - ys.min()!))
                .squareRoot()
            let distances = zip(hand.joints, points).map { mine, their in
                ((mine.x - their[0]) * (mine.x - their[0]) + (mine.y - their[1]) * (mine.y - their[1])).squareRoot()
            }
            let mean = distances.reduce(0, +) / Double(distances.count) / diagonal
            #expect(mean <= 0.03, "mean joint distance \(mean * 100) % of the diagonal in \(path)")
            let label = try #require(theirs["label"] as? String)
            #expect(hand.chirality == (label == "Left" ? .right : .left), "\(path): MediaPipe says \(label)")
            #expect(hand.box.confidence >= 0.5 && hand.jointConfidences.allSatisfy { (0...1).contains($0) })
        }
    }

    @Test func drawHandsPassesTheVerifierAndDrawsOnlyNearTheHand() throws {
        let image = try VisionPluginTests.photo("phone-3.jpg")
        guard case .hands(let hands) = try VisionPluginTests.run("detectHandPose", image) else {
            Issue.record("detectHandPose made no hands")
            return
        }
        let hand = try #require(hands.first)
        let outputs = try NodeVerifier().verify(
            try VisionPluginTests.declaration("drawHands"), inputs: ["input": .image(image), "hands": .hands(hands)])
        let drawn = try #require(outputs["output"]).image().pixels()
        let original = try image.pixels()
        let (changedInside, changedOutside) = VisionPluginTests.changed(
            from: original, to: drawn, near: hand.box, within: 3)
        #expect(changedOutside == 0 && changedInside > 300, "\(changedInside) inside, \(changedOutside) outside")
    }

    static let textPhotos = ["page", "astronaut", "coffee", "people", "camera"]

    static func text(_ name: String, _ parameters: [String: any ParameterValue] = [:]) throws -> (
        lines: [TextLine], reference: [String: Any]
    ) {
        let reference = try Self.json(fixtures.appendingPathComponent("text/\(name).json"))
        let image = try ImageFile.load(path: fixtures.appendingPathComponent("text/\(name).png").path).1
        guard case .text(let lines) = try VisionPluginTests.run("detectText", image, parameters) else {
            Issue.record("detectText made no text")
            return ([], reference)
        }
        return (lines, reference)
    }

    /// The IoU of a line's box and the box around a quad given as `[[x, y]] x 4`.
    static func iou(_ box: Box, _ quad: [[Double]]) -> Double {
        let line = TextLine(quad: quad.map { SIMD2($0[0], $0[1]) }, string: "", confidence: 1).box
        return VisionPluginTests.iou(box, [line.x, line.y, line.width, line.height])
    }

    /// The same lines as rapidocr's, in its order, each box within IoU 0.9 of its, each string the same, each
    /// confidence within 0.05 (a box a pixel wider moves a line's mean probability by up to 0.045 here).
    @Test(arguments: textPhotos)
    func detectTextReadsWhatRapidOCRReads(_ name: String) throws {
        let (lines, reference) = try Self.text(name)
        let expected = try #require(reference["lines"] as? [[String: Any]])
        #expect(lines.count == expected.count, "\(lines.map(\.string)) against \(expected.map { $0["text"]! })")
        for (line, theirs) in zip(lines, expected) {
            let quad = try #require(theirs["quad"] as? [[Double]])
            #expect(Self.iou(line.box, quad) >= 0.9, "\(line.string): IoU \(Self.iou(line.box, quad))")
            #expect(line.string == theirs["text"] as? String)
            let score = try #require(theirs["score"] as? Double)
            #expect(abs(line.box.confidence - score) < 0.05, "\(line.string): \(line.box.confidence) against \(score)")
        }
    }

    /// Levenshtein distance between two strings, by character.
    static func distance(_ a: String, _ b: String) -> Int {
        let (a, b) = (Array(a), Array(b))
        var row = Array(0...b.count)
        for i in 1...max(a.count, 1) where !a.isEmpty {
            var previous = row[0]
            row[0] = i
            for j in stride(from: 1, through: b.count, by: 1) {
                let kept = row[j]
                row[j] = min(row[j] + 1, row[j - 1] + 1, previous + (a[i - 1] == b[j - 1] ? 0 : 1))
                previous = kept
            }
        }
        return row[b.count]
    }

    /// The character error rate against the strings drawn (the fixture's truth), at most 3 % over all the
    /// photos: each line found goes to the drawn line whose box it overlaps most (read from left to right,
    /// or right to left when the line was drawn upside down), lines overlapping none count as inserted,
    /// as Scripts/make-text-fixtures.py measures rapidocr's (0.74 %).
    @Test func detectTextReadsTheDrawnTextWithinThreePercent() throws {
        var errors = 0
        var total = 0
        for name in Self.textPhotos {
            let (lines, reference) = try Self.text(name)
            let truth = try #require(reference["truth"] as? [[String: Any]])
            var assigned = Array(repeating: [TextLine](), count: truth.count)
            for line in lines {
                var best: Int?
                var bestArea = 0.0
                for (k, drawn) in truth.enumerated() {
                    let b = try #require(drawn["box"] as? [Double])
                    let w = max(0, min(line.box.x + line.box.width, b[0] + b[2]) - max(line.box.x, b[0]))
                    let h = max(0, min(line.box.y + line.box.height, b[1] + b[3]) - max(line.box.y, b[1]))
                    if w * h > bestArea { (best, bestArea) = (k, w * h) }
                }
                if let best { assigned[best].append(line) } else { errors += line.string.count }
            }
            for (drawn, found) in zip(truth, assigned) {
                let text = try #require(drawn["text"] as? String)
                let upsideDown = abs(drawn["angle"] as? Double ?? 0) > 90
                let reading = found.sorted { upsideDown ? $0.box.x > $1.box.x : $0.box.x < $1.box.x }.map(\.string)
                    .joined(separator: " ")
                errors += Self.distance(text, reading)
                total += text.count
            }
        }
        let rate = Double(errors) / Double(total)
        #expect(rate <= 0.03, "character error rate \(rate * 100) %")
    }

    /// Fast finds the lines on a smaller image and reads them as they stand; without recognition the lines
    /// keep their boxes and the detector's scores, with empty strings; a language the model does not read
    /// is refused before the run.
    @Test func detectTextLevelsAndOptions() throws {
        let accurate = try Self.text("coffee").lines
        let fast = try Self.text("coffee", ["recognitionLevel": "fast"]).lines
        #expect(fast.map(\.string) == accurate.map(\.string))
        let found = try Self.text("coffee", ["recognize": false]).lines
        #expect(found.count == accurate.count && found.allSatisfy { $0.string.isEmpty && $0.box.confidence >= 0.5 })
        for (a, b) in zip(found, accurate) {
            #expect(VisionPluginTests.iou(a.box, [b.box.x, b.box.y, b.box.width, b.box.height]) > 0.99)
        }
        // The upside-down line on the page: read right, its quad turned (its first corner bottom right).
        let page = try Self.text("page").lines
        let turned = try #require(page.first { $0.string.hasPrefix("Customer") })
        #expect(turned.string == "Customer copy - keep for your records")
        #expect(turned.quad[0].x > turned.quad[2].x && turned.quad[0].y > turned.quad[2].y, "\(turned.quad)")
        #expect(page.filter { $0 != turned }.allSatisfy { $0.quad[0].x < $0.quad[2].x && $0.quad[0].y < $0.quad[2].y })
        let declaration = try VisionPluginTests.declaration("detectText")
        #expect(throws: (any Error).self) {
            _ = try NodeVerifier().verify(
                declaration, parameters: ["recognitionLanguages": "fr-FR"],
                inputs: [
                    "input": .image(
                        try ImageFile.load(path: Self.fixtures.appendingPathComponent("text/coffee.png").path).1)
                ])
        }
    }

    /// What detectText and detectHandPose give, written as `save` writes them, is what
    /// Docs/schemas/text.schema.json and hands.schema.json describe (python3-jsonschema, independent of
    /// the writer); each is rejected by the other's schema, so the check can fail.
    @Test func textAndHandsMatchTheirSchemas() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-vision-values-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let photo = try VisionPluginTests.photo("phone-3.jpg")
        let text = folder.appendingPathComponent("text.json")
        let hands = folder.appendingPathComponent("hands.json")
        try #require(ValueJSON.encode(.text(try Self.text("page").lines))).write(
            to: text, atomically: true, encoding: .utf8)
        try #require(ValueJSON.encode(try VisionPluginTests.run("detectHandPose", photo))).write(
            to: hands, atomically: true, encoding: .utf8)
        func check(_ schema: String, _ file: URL) throws -> Int32 {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
            let repository = VisionPluginTests.repository
            process.arguments = [
                repository.appendingPathComponent("Scripts/check-values.py").path,
                repository.appendingPathComponent("Docs/schemas/\(schema).schema.json").path, file.path,
            ]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            process.waitUntilExit()
            return process.terminationStatus
        }
        #expect(try check("text", text) == 0 && check("hands", hands) == 0)
        #expect(try check("text", hands) == 1 && check("hands", text) == 1)
    }
}
