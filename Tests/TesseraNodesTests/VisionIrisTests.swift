import Foundation
import Testing
import TesseraCore
import TesseraIO
import TesseraNodes

/// faceLandmarks' irises and pupils (MediaPipe's iris model in the Vision plugin), held to MediaPipe's iris
/// graph followed step by step in Python on MediaPipe 0.10.21's own face mesh, the same model run by
/// TensorFlow Lite's interpreter on crops cut by OpenCV (Plugins/Vision/Tests/Fixtures/mediapipe/*-iris.json,
/// made by Scripts/make-iris-fixtures.py), on the people photos and the astronaut.
@Suite(.serialized) struct VisionIrisTests {
    /// The photos MediaPipe finds a refined mesh in.
    static let photos = [
        "four-fingers-4.jpg", "phone-1.jpg", "phone-2.jpg", "phone-3.jpg", "phone-4.jpg", "astronaut.png",
    ]

    /// Each iris's centre and radius within 1 % of the face's width of the reference's, and the pupils of
    /// Vision's regions are the irises' centres. (MediaPipe's attention mesh, another model, puts the
    /// irises within 1 % of these on four of the six faces, and up to 9 % away on two: a face 59 pixels
    /// wide behind tinted glasses, a dark one; see the fixtures' `refined`.)
    @Test(arguments: photos)
    func irisesMatchMediaPipe(_ name: String) throws {
        let stem = (name as NSString).deletingPathExtension
        let data = try Data(contentsOf: VisionPluginTests.fixtures.appendingPathComponent("\(stem)-iris.json"))
        let document = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let expected = try #require(document["faces"] as? [[String: Any]])
        let found = try VisionPluginTests.faces(try VisionPluginTests.photo(name), "faceLandmarks")
        #expect(found.count == expected.count, "\(name): \(found.count) faces, MediaPipe \(expected.count)")
        for reference in expected {
            let width = try #require(reference["faceWidth"] as? Double)
            let left = try #require(reference["left"] as? [Double])
            let right = try #require(reference["right"] as? [Double])
            let face = try #require(
                found.min { a, b in
                    abs(a.box.x + a.box.width / 2 - (left[0] + right[0]) / 2)
                        < abs(b.box.x + b.box.width / 2 - (left[0] + right[0]) / 2)
                })
            try #require(face.irises.count == 2, "\(name): no irises")
            for (ours, theirs, side) in [(face.irises[0], left, "left"), (face.irises[1], right, "right")] {
                let distance =
                    ((ours.x - theirs[0]) * (ours.x - theirs[0]) + (ours.y - theirs[1]) * (ours.y - theirs[1]))
                    .squareRoot()
                #expect(distance <= 0.01 * width, "\(name) \(side): the centre is \(distance) px off, face \(width) px")
                #expect(
                    abs(ours.z - theirs[2]) <= 0.01 * width, "\(name) \(side): radius \(ours.z), MediaPipe \(theirs[2])"
                )
            }
            let pupils = face.regionPoints.filter { $0.name.hasSuffix("Pupil") }.map(\.points)
            #expect(
                pupils == [[SIMD2(face.irises[0].x, face.irises[0].y)], [SIMD2(face.irises[1].x, face.irises[1].y)]])
        }
    }

    /// Faces with irises go out as Docs/schemas/faces.schema.json describes them (python3-jsonschema,
    /// independent of the writer) and read back the same.
    @Test func irisesAreWrittenAndReadBack() throws {
        let faces = try VisionPluginTests.faces(try VisionPluginTests.photo("astronaut.png"), "faceLandmarks")
        try #require(faces.first?.irises.count == 2)
        let written = try #require(ValueJSON.encode(.faces(faces)))
        guard case .faces(let back) = try ValueJSON.parse(written, as: .faces) else {
            Issue.record("not faces")
            return
        }
        #expect(back.map(\.irises) == faces.map(\.irises))
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-irises-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("faces.json")
        try written.write(to: file, atomically: true, encoding: .utf8)
        let checker = Process()
        checker.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        let repository = VisionPluginTests.repository
        checker.arguments = [
            repository.appendingPathComponent("Scripts/check-values.py").path,
            repository.appendingPathComponent("Docs/schemas/faces.schema.json").path, file.path,
        ]
        checker.standardOutput = FileHandle.nullDevice
        checker.standardError = FileHandle.nullDevice
        try checker.run()
        checker.waitUntilExit()
        #expect(checker.terminationStatus == 0)
    }
}
