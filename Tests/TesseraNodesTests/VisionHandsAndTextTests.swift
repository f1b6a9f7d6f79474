import Foundation
import Testing
import TesseraCore
import TesseraEngine
import TesseraIO
import TesseraNodes

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

    /// Each photo with its MediaPipe reference: the people photos, and the derived ones (mirrored, turned,
    /// enlarged, two hands) in Fixtures/hands.
    static let handPhotos: [(image: String, reference: String)] =
        VisionPluginTests.photos.map { photo in
            let stem = (photo as NSString).deletingPathExtension
            let folder = photo == "astronaut.png" ? "Examples/images" : "Examples/images/people"
            return ("\(folder)/\(photo)", "Plugins/Vision/Tests/Fixtures/mediapipe/\(stem)-hands.json")
        }
        + ["four-fingers-4-rotated", "phone-1-2x", "phone-3-mirrored", "two-hands"].map {
            ("Plugins/Vision/Tests/Fixtures/hands/\($0).png", "Plugins/Vision/Tests/Fixtures/hands/\($0)-hands.json")
        }

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
        var changedOutside = 0
        var changedInside = 0
        for y in 0..<image.height {
            for x in 0..<image.width {
                let at = (y * image.width + x) * 4
                let changed = (0..<3).contains { abs(drawn.samples[at + $0] - original.samples[at + $0]) > 1e-6 }
                let inside =
                    Double(x) >= hand.box.x - 3 && Double(x) <= hand.box.x + hand.box.width + 3
                    && Double(y) >= hand.box.y - 3 && Double(y) <= hand.box.y + hand.box.height + 3
                if changed { if inside { changedInside += 1 } else { changedOutside += 1 } }
            }
        }
        #expect(changedOutside == 0 && changedInside > 300, "\(changedInside) inside, \(changedOutside) outside")
    }
}
