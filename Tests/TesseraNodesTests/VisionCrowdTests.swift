import Foundation
import Testing
import TesseraCore
import TesseraCatalog
import TesseraIO
import TesseraNodes

/// Small faces in group photos (detectFaces' minimumFaceSize) and the face redaction graph that fails
/// closed, on the group photos in Plugins/Vision/Tests/Fixtures/crowds: grids of the people photos with
/// faces of 100 px (8 on 2048 x 1024) and of 64, 40, 28 and 20 px (36 on 2048 x 768). The reference for
/// each face is MediaPipe 0.10.21's own full-range detector run on the square five faces wide around it
/// (Scripts/make-crowd-fixtures.py), where the face fills a fifth of what the model sees; with it, how
/// many faces MediaPipe finds on the whole photo in one pass, as it is normally run.
@Suite(.serialized) struct VisionCrowdTests {
    static let fixtures = VisionPluginTests.plugin.appendingPathComponent("Tests/Fixtures/crowds")

    struct Reference {
        var faces: [(box: [Double], size: Double)]
        var whole: [String: Int]
    }

    static func reference(_ name: String) throws -> Reference {
        let data = try Data(contentsOf: fixtures.appendingPathComponent("\(name).json"))
        let document = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let faces = try #require(document["faces"] as? [[String: Any]]).map { face in
            (box: try #require(face["box"] as? [Double]), size: try #require(face["size"] as? Double))
        }
        return Reference(faces: faces, whole: try #require(document["whole"] as? [String: Int]))
    }

    static func photo(_ name: String) throws -> Image {
        try ImageFile.load(path: fixtures.appendingPathComponent("\(name).jpg").path).1
    }

    /// `op` run once on the group photo `name` (not through the verifier: its tilings would run the few
    /// hundred detector runs of a fine pyramid several times over).
    static func faces(_ name: String, _ parameters: [String: any ParameterValue], op: String = "detectFaces")
        throws -> [Face]
    {
        let node = try VisionPluginTests.declaration(op).instantiate(
            parameters: parameters, inputs: ["input": .image(try photo(name))])
        guard case .faces(let faces)? = try node.run().values["faces"] else {
            Issue.record("\(op) made no faces")
            return []
        }
        return faces
    }

    /// The reference faces no found face matches (IoU under 0.5 with every one), and the found faces no
    /// reference face matches. IoU 0.5 is the same face: the boxes agree with MediaPipe's by 0.64 to 0.95
    /// (0.8 typically; tiles see a face at other scales and positions than MediaPipe's one look).
    static func unmatched(_ found: [Face], _ expected: [(box: [Double], size: Double)]) -> (
        missed: [(box: [Double], size: Double)], extra: [Face]
    ) {
        let missed = expected.filter { face in !found.contains { VisionPluginTests.iou($0.box, face.box) >= 0.5 } }
        let extra = found.filter { face in !expected.contains { VisionPluginTests.iou(face.box, $0.box) >= 0.5 } }
        return (missed, extra)
    }

    /// Without minimumFaceSize the photo is letterboxed whole, as MediaPipe runs it, and the same faces are
    /// found as MediaPipe finds: 0 or 4 of the 8 faces of 100 px, none of the crowd. This is the failure
    /// the tiles are for.
    @Test(arguments: ["group-100", "crowd-64-20"], ["short", "full"])
    func theWholePhotoMissesSmallFacesAsMediaPipeDoes(_ name: String, _ range: String) throws {
        let reference = try Self.reference(name)
        let found = try Self.faces(name, ["range": range])
        #expect(found.count == reference.whole[range], "\(name) \(range): \(found.count) faces")
        #expect(Self.unmatched(found, reference.faces).extra.isEmpty)
    }

    /// With minimumFaceSize, every face of at least that size is found (the crowd at 20: all 36, from 64
    /// down to 20 px), and nothing that is not a face. The short range's whole-photo pass with the
    /// full-range tiles too.
    @Test(arguments: [("group-100", 100.0, "full"), ("group-100", 20.0, "short"), ("crowd-64-20", 20.0, "full")])
    func minimumFaceSizeFindsEveryFace(_ name: String, _ minimumFaceSize: Double, _ range: String) throws {
        let reference = try Self.reference(name)
        let found = try Self.faces(name, ["range": range, "minimumFaceSize": minimumFaceSize])
        let missed = Self.unmatched(found, reference.faces.filter { $0.size >= minimumFaceSize }).missed
        #expect(missed.isEmpty, "\(name) at \(minimumFaceSize): missed \(missed.map { ($0.size, $0.box) })")
        let notFaces = Self.unmatched(found, reference.faces).extra
        #expect(notFaces.isEmpty, "\(name) at \(minimumFaceSize): \(notFaces.map(\.box)) are no faces")
        // One box a face: no reference face is matched by two found ones.
        let twice = reference.faces.filter { face in
            found.filter { VisionPluginTests.iou($0.box, face.box) >= 0.5 }.count > 1
        }
        #expect(twice.isEmpty, "\(name) at \(minimumFaceSize): found twice \(twice.map(\.box))")
    }

    /// faceLandmarks takes the same parameter: each face of the group photo with its mesh.
    @Test func faceLandmarksFindsSmallFacesToo() throws {
        let found = try Self.faces("group-100", ["range": "full", "minimumFaceSize": 100.0], op: "faceLandmarks")
        #expect(found.count == 8 && found.allSatisfy { $0.landmarks.count == Face.meshPoints })
        #expect(Self.unmatched(found, try Self.reference("group-100").faces).missed.isEmpty)
    }

    // MARK: The redaction graph, through the command line

    /// `tessera run Plugins/Vision/blur-faces.yaml` on `photo` with `settings`, both files in a temporary
    /// folder: the exit status, stderr, and the image written (nil when none was).
    static func blurFaces(_ photo: Image, _ settings: [String] = []) throws -> (
        status: Int32, stderr: String, written: PixelBuffer?
    ) {
        let result = try VisionPluginTests.runGraph(
            "blur-faces.yaml", on: photo, writing: "a", to: "blurred.png", settings: settings)
        return (result.status, result.stderr, result.written?.1)
    }

    /// The graph blurs every face of the group photo (each face's box changed, on average by over 2 % of
    /// full scale) and leaves the photo 40 pixels away from every face as it was (within 8-bit rounding).
    /// On the photo's top left 1024 x 512 pixels, two faces: the debug build's blur of all of it takes 17 s.
    @Test func theRedactionGraphBlursEveryFace() throws {
        let photo = try Self.photo("group-100")
        let whole = try photo.pixels()
        var original = PixelBuffer(region: Rect(width: 1024, height: 512), channels: whole.channels)
        let (width, channels) = (original.region.width, original.channels)
        for y in 0..<512 {
            let from = y * whole.region.width * channels
            original.samples.replaceSubrange(
                y * width * channels..<(y + 1) * width * channels, with: whole.samples[from..<from + width * channels])
        }
        let result = try Self.blurFaces(
            Image(buffer: original, layout: photo.layout), ["faces.minimumFaceSize=100"])
        #expect(result.status == 0, "\(result.stderr)")
        let blurred = try #require(result.written)
        #expect(blurred.region == original.region && blurred.channels == channels)
        let faces = try Self.reference("group-100").faces.map(\.box).filter { (box: [Double]) -> Bool in
            box[0] + box[2] < 1024 && box[1] + box[3] < 512
        }
        #expect(faces.count == 2)
        func difference(_ x: Int, _ y: Int) -> Float {
            let at = (y * width + x) * channels
            return (0..<3).map { abs(blurred.samples[at + $0] - original.samples[at + $0]) }.reduce(0, +) / 3
        }
        for box in faces {
            var total: Float = 0
            var count = 0
            for y in Int(box[1])..<Int(box[1] + box[3]) {
                for x in Int(box[0])..<Int(box[0] + box[2]) {
                    total += difference(x, y)
                    count += 1
                }
            }
            #expect(total / Float(count) > 0.02, "the face at \(box) is not blurred: \(total / Float(count))")
        }
        // Within 40 pixels of a face, marked box by box (a test per pixel and box is slow in a debug build).
        let height = original.region.height
        var near = [Bool](repeating: false, count: width * height)
        for box in faces {
            for y in max(Int(box[1]) - 40, 0)..<min(Int(box[1] + box[3]) + 41, height) {
                for x in max(Int(box[0]) - 40, 0)..<min(Int(box[0] + box[2]) + 41, width) { near[y * width + x] = true }
            }
        }
        var worst: Float = 0
        blurred.samples.withUnsafeBufferPointer { after in
            original.samples.withUnsafeBufferPointer { before in
                for index in 0..<width * height where !near[index] {
                    for channel in 0..<3 {
                        worst = max(worst, abs(after[index * channels + channel] - before[index * channels + channel]))
                    }
                }
            }
        }
        #expect(worst <= 0.5 / 255 + 1e-6, "the photo away from the faces changed by \(worst)")
    }

    /// A photo in which no face is found, or fewer than the group's known size, is refused: the graph's
    /// message, exit status 1 and no file, never the photo unblurred.
    @Test func theRedactionGraphFailsClosed() throws {
        let repository = VisionPluginTests.repository
        let cases: [(String, Image, [String], String)] = [
            (
                "no face",
                try ImageFile.load(path: repository.appendingPathComponent("Examples/images/coffee.png").path).1, [],
                "too few faces were found to trust the blur, so nothing is saved (the count is 0, at least 1)"
            ),
            (
                "fewer than the group", try Self.photo("group-100"),
                ["faces.minimumFaceSize=100", "found.minimum=9"], "(the count is 8, at least 9)"
            ),
        ]
        for (what, photo, settings, message) in cases {
            let result = try Self.blurFaces(photo, settings)
            #expect(result.status == 1, "\(what): \(result.stderr)")
            #expect(result.stderr.contains(message), "\(what): \(result.stderr)")
            #expect(result.written == nil, "\(what): a photo was written")
        }
    }
}
