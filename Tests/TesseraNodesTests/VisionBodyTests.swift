import Foundation
import Testing
import TesseraCore
import TesseraIO
import TesseraTesting

/// The Vision plugin's body pose (Plugins/Vision, built by PluginNodeTests.built), held to MediaPipe 0.10.21's
/// own pose solution (`Pose(static_image_mode=True, model_complexity=1)`, Scripts/make-body-fixtures.py) on
/// the people photos and the images derived from them for the hand fixtures (mirrored, turned 90 degrees,
/// enlarged, two people side by side: MediaPipe's solution finds one person an image, so there each person
/// is held to MediaPipe on their half of the image alone).
@Suite(.serialized) struct VisionBodyTests {
    static let bodyPhotos = VisionHandsAndTextTests.photos(withReferences: "bodies")

    static func bodies(_ image: Image, _ parameters: [String: any ParameterValue] = [:]) throws -> [Body] {
        guard case .bodies(let bodies) = try VisionPluginTests.run("detectBodyPose", image, parameters) else {
            Issue.record("detectBodyPose made no bodies")
            return []
        }
        return bodies
    }

    /// The same number of bodies as MediaPipe's, each of its bodies matched to one of these (the nearest),
    /// the 33 joints on average within 3 % of the diagonal of the body's box (the box around MediaPipe's
    /// joints whose visibility is at least 0.5, the body seen in the image), every such joint within 6 %,
    /// and the visibilities on average within 0.05. Measured: means 0.06 % to 1.05 %, the farthest joint
    /// 4.7 % (a wrist in the two-person image, whose crops come from a detection on the whole image), the
    /// visibilities within 0.02 on average.
    @Test(arguments: bodyPhotos.map(\.image))
    func detectBodyPoseFindsMediaPipesBodies(_ path: String) throws {
        let repository = VisionPluginTests.repository
        let reference = try VisionHandsAndTextTests.json(
            repository.appendingPathComponent(Self.bodyPhotos.first { $0.image == path }!.reference))
        let expected = try #require(reference["bodies"] as? [[String: Any]])
        let image = try ImageFile.load(path: repository.appendingPathComponent(path).path).1
        let bodies = try Self.bodies(image)
        try #require(bodies.count == expected.count, "\(bodies.count) bodies, MediaPipe \(expected.count)")
        var matched = Set<Int>()
        for theirs in expected {
            let points = try #require(theirs["landmarks"] as? [[Double]])
            try #require(points.count == 33 && points.allSatisfy { $0.count == 4 })
            let seen = points.filter { $0[3] >= 0.5 }
            let xs = seen.map { $0[0] }
            let ys = seen.map { $0[1] }
            let diagonal =
                ((xs.max()! - xs.min()!) * (xs.max()! - xs.min()!)
                + (ys.max()! - ys.min()!) * (ys.max()! - ys.min()!)).squareRoot()
            func distances(_ body: Body) -> [Double] {
                zip(body.joints, points).map { mine, their in
                    ((mine.x - their[0]) * (mine.x - their[0]) + (mine.y - their[1]) * (mine.y - their[1]))
                        .squareRoot() / diagonal
                }
            }
            let index = try #require(
                bodies.indices.min { distances(bodies[$0]).reduce(0, +) < distances(bodies[$1]).reduce(0, +) })
            #expect(matched.insert(index).inserted, "two of MediaPipe's bodies nearest the same one in \(path)")
            let body = bodies[index]
            let near = distances(body)
            let mean = near.reduce(0, +) / 33
            #expect(mean <= 0.03, "mean joint distance \(mean * 100) % of the diagonal in \(path)")
            let farthest = zip(near, points).filter { $0.1[3] >= 0.5 }.map(\.0).max() ?? 0
            #expect(farthest <= 0.06, "a seen joint \(farthest * 100) % of the diagonal away in \(path)")
            let visibility = zip(body.visibilities, points).map { abs($0 - $1[3]) }.reduce(0, +) / 33
            #expect(visibility <= 0.05, "visibilities on average \(visibility) from MediaPipe's in \(path)")
            #expect(body.box.confidence >= 0.5 && body.presences.allSatisfy { (0...1).contains($0) })
        }
    }

    /// The subject's left is on the image's right for a person facing the camera, Vision's joints lie where
    /// MediaPipe's are, `maximumBodyCount` keeps the most confident, and images with no one in them (a
    /// plain gray one, a single pixel) give no body.
    @Test func bodiesAreTheSubjectsAndCounted() throws {
        let photo = try VisionPluginTests.photo("phone-3.jpg")
        let body = try #require(try Self.bodies(photo).first)
        #expect(body.joint(.leftShoulder).x > body.joint(.rightShoulder).x)
        #expect(body.joint(.leftEye).x > body.joint(.nose).x && body.joint(.rightEye).x < body.joint(.nose).x)
        let vision = Dictionary(uniqueKeysWithValues: body.visionPoints.map { ($0.name, $0.point) })
        let shoulders = body.joint(.leftShoulder) + body.joint(.rightShoulder)
        #expect(vision["neck"] == SIMD2(shoulders.x, shoulders.y) / 2)
        #expect(vision["leftWrist"] == SIMD2(body.joint(.leftWrist).x, body.joint(.leftWrist).y))

        let two = try ImageFile.load(
            path: VisionPluginTests.plugin.appendingPathComponent("Tests/Fixtures/hands/two-hands.png").path
        ).1
        let both = try Self.bodies(two)
        let one = try Self.bodies(two, ["maximumBodyCount": 1])
        #expect(both.count == 2 && one == [both[0]])

        let gray = Image(
            buffer: PixelBuffer(region: Rect(width: 640, height: 480), channels: 4, value: 0.5), layout: .rgb)
        #expect(try Self.bodies(gray).isEmpty)
        let pixel = Image(buffer: PixelBuffer(region: Rect(width: 1, height: 1), channels: 4, value: 0.5), layout: .rgb)
        #expect(try Self.bodies(pixel).isEmpty)
    }

    @Test func drawBodiesPassesTheVerifierAndDrawsOnlyNearTheBody() throws {
        let image = try VisionPluginTests.photo("four-fingers-1.jpg")
        let bodies = try Self.bodies(image)
        let body = try #require(bodies.first)
        let outputs = try NodeVerifier().verify(
            try VisionPluginTests.declaration("drawBodies"),
            inputs: ["input": .image(image), "bodies": .bodies(bodies)])
        let drawn = try #require(outputs["output"]).image().pixels()
        let (changedInside, changedOutside) = VisionPluginTests.changed(
            from: try image.pixels(), to: drawn, near: body.box, within: 7)
        #expect(changedOutside == 0 && changedInside > 300, "\(changedInside) inside, \(changedOutside) outside")
    }

    /// bodies.yaml through the command line: the bodies written as Docs/schemas/bodies.schema.json describes
    /// them (python3-jsonschema, independent of the writer; the hands schema rejects them, so the check can
    /// fail), with Vision's joint names, and the skeleton drawn.
    @Test func theBodiesGraphWritesAndDrawsTheBodies() throws {
        let photo = try VisionPluginTests.photo("phone-1.jpg")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-bodies-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let json = folder.appendingPathComponent("bodies.json")
        let (status, stderr, written) = try VisionPluginTests.runGraph(
            "bodies.yaml", on: photo, writing: "a", to: "drawn.png", settings: ["b.path=\(json.path)"])
        #expect(status == 0, "\(stderr)")
        let drawn = try #require(written).1
        #expect(try drawn.samples != photo.pixels().samples, "no skeleton drawn")
        let text = try String(contentsOf: json, encoding: .utf8)
        #expect(text.contains("\"leftFootIndex\": {") && text.contains("\"vision\": {\"nose\": {"))
        #expect(try VisionBarcodeTests.checkValues(json, against: "bodies") == 0)
        #expect(try VisionBarcodeTests.checkValues(json, against: "hands") == 1)
    }
}
