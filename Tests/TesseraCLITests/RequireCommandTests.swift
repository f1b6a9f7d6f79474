import Foundation
import Testing
import TesseraCore

/// `require` gates an image on a value: the run stops with the graph's own message, and nothing made from
/// the gated image is written; when the condition holds the image passes unchanged.
@Suite struct RequireCommandTests {
    /// Saliency's boxes on the photo, required to number from `minimum` to `maximum`.
    static func graph(_ condition: String) -> String {
        """
        version: 1
        nodes:
          photo: { op: load, path: \(GraphCommandTests.photo) }
          heat:  { op: saliency, input: photo }
          found: { op: require, input: photo, value: heat.boxes, \(condition) }
          spot:  { op: crop, input: found, rect: { from: heat.boxes } }
          out:   { op: save, input: spot, path: spot.png }
          all:   { op: save, input: heat.boxes, path: boxes.json }
        """
    }

    @Test func aFailedConditionStopsTheRunWithItsMessageAndWritesNothingAfterIt() throws {
        try withTemporaryFolder { folder in
            let file = folder.appendingPathComponent("g.yaml")
            // First learn how many boxes there are, through the file the graph writes.
            try Self.graph("minimum: 1").write(to: file, atomically: false, encoding: .utf8)
            let passed = try CLI.run(["run", "g.yaml"], in: folder)
            #expect(passed.status == 0, "\(passed.stderr)")
            #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("spot.png").path))
            let json = try Data(contentsOf: folder.appendingPathComponent("boxes.json"))
            let boxes = try #require(
                (try JSONSerialization.jsonObject(with: json) as? [String: Any])?["boxes"] as? [[String: Double]])
            try FileManager.default.removeItem(at: folder.appendingPathComponent("spot.png"))

            try Self.graph("maximum: \(boxes.count - 1), message: \"too many things stand out\"").write(
                to: file, atomically: false, encoding: .utf8)
            let failed = try CLI.run(["run", "g.yaml"], in: folder)
            #expect(failed.status == 1)
            #expect(
                failed.stderr.contains(
                    "g.yaml:5:3: error: require node 'found': maximum: too many things stand out (the count is "
                        + "\(boxes.count), at most \(boxes.count - 1))"), "\(failed.stderr)")
            #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("spot.png").path))

            // A field of every box: the first one outside the bounds is named.
            let low = boxes.map { $0["confidence"] ?? 0 }.min() ?? 0
            try Self.graph("field: confidence, minimum: \(low + 1e-6)").write(
                to: file, atomically: false, encoding: .utf8)
            let weak = try CLI.run(["run", "g.yaml"], in: folder)
            #expect(weak.status == 1)
            #expect(weak.stderr.contains("confidence of box "), "\(weak.stderr)")
        }
    }

    @Test(arguments: [
        ("field: roll, minimum: 0", "found.field: boxes have no roll"),
        ("field: count", "found.minimum: give a minimum, a maximum or both"),
        ("minimum: 3, maximum: 1", "found.maximum: the maximum 1.0 is below the minimum 3.0"),
    ])
    func impossibleConditionsAreRefusedBeforeTheRun(_ condition: String, _ message: String) throws {
        try withTemporaryFolder { folder in
            try Self.graph(condition).write(
                to: folder.appendingPathComponent("g.yaml"), atomically: false, encoding: .utf8)
            let run = try CLI.run(["validate", "g.yaml"], in: folder)
            #expect(run.status == 2)
            #expect(run.stderr.contains(message), "\(run.stderr)")
        }
    }
}
