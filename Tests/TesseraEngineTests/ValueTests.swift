import Foundation
import Testing

@testable import Tessera

/// Values that are not images leave the graph as JSON: through `save`, through the run's report, and as
/// the result object `tessera run --json` and the C API give. The JSON is read back with Foundation's
/// parser and checked against Docs/schemas with an independent validator (python3-jsonschema).
@Suite struct ValueTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static func folder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-values-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    static func object(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    /// Runs Scripts/check-values.py: the status and what it printed.
    static func check(schema: String, _ files: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments =
            [
                repository.appendingPathComponent("Scripts/check-values.py").path,
                repository.appendingPathComponent("Docs/schemas/\(schema).schema.json").path,
            ] + files
        let out = Pipe()
        process.standardOutput = out
        process.standardError = out
        try process.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, text)
    }

    @Test func saveWritesEveryKindAsItsSchemaSays() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let graph = try Graph.parse(
            """
            version: 1
            nodes:
              b: { op: testBoxes, offset: -1.25 }
              c: { op: testContours }
              boxes: { op: save, input: b.boxes, path: boxes.json }
              count: { op: save, input: b.count, path: count.json }
              lines: { op: save, input: c, path: lines.json }
            """, file: "g.yaml", baseFolder: folder.path, catalog: testCatalog)
        try graph.run()
        func read(_ name: String) throws -> [String: Any] {
            try Self.object(String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8))
        }
        let boxes = try read("boxes.json")
        #expect(boxes["kind"] as? String == "boxes")
        let items = try #require(boxes["boxes"] as? [[String: Double]])
        #expect(
            items == [
                ["x": -1.25, "y": 3.2, "width": 10.1, "height": 4, "confidence": 0.9],
                ["x": 0, "y": 0, "width": 1, "height": 1, "confidence": 0.5],
            ])
        let count = try read("count.json")
        #expect(count["kind"] as? String == "number" && count["value"] as? Double == 2)
        let lines = try read("lines.json")
        #expect(lines["kind"] as? String == "contours" && (lines["contours"] as? [Any])?.isEmpty == true)
        for (schema, file) in [("boxes", "boxes.json"), ("number", "count.json"), ("contours", "lines.json")] {
            let result = try Self.check(schema: schema, [folder.appendingPathComponent(file).path])
            #expect(result.status == 0, "\(result.output)")
        }
        // The check can fail: each file is rejected by another kind's schema.
        let crossed = try Self.check(schema: "contours", [folder.appendingPathComponent("boxes.json").path])
        #expect(crossed.status == 1 && crossed.output.contains("rejected"), "\(crossed.output)")
        #expect(try Self.check(schema: "boxes", [folder.appendingPathComponent("count.json").path]).status == 1)
        // Nothing but the three files: written under temporary names, then renamed.
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
                == ["boxes.json", "count.json", "lines.json"])
    }

    @Test func numbersKeepTheirPrecisionAndNonFiniteIsNull() throws {
        for (number, written) in [(0.1 + 0.2, "0.30000000000000004"), (-3, "-3"), (1e-7, "1e-07"), (.infinity, "null")]
        {
            let json = try #require(ValueJSON.encode(.number(number)))
            #expect(json == "{\"kind\": \"number\", \"value\": \(written)}\n")
            // Read back exactly (JSONDecoder; Foundation's JSONSerialization rounds on Linux).
            struct Number: Decodable {
                var kind: String
                var value: Double?
            }
            let read = try JSONDecoder().decode(Number.self, from: Data(json.utf8))
            #expect(read.kind == "number" && read.value == (number.isFinite ? number : nil))
        }
        #expect(
            ValueJSON.encode(
                .image(Image(buffer: PixelBuffer(region: Rect(width: 1, height: 1), channels: 1), layout: .gray)))
                == nil)
    }

    /// The result object holds the results (values no input reads) and leaves out values that flow on
    /// into another node; with `collectsValues`, nodes whose results nothing reads run too.
    @Test func resultsAreTheValuesNoInputReads() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let graph = try Graph.parse(
            """
            version: 1
            nodes:
              a: { op: testConstant }
              b: { op: testBoxes }
              framed: { op: testCrop, input: a, rect: { from: b.boxes } }
              out: { op: save, input: framed, path: out.png }
              c: { op: testContours }
              lines: { op: save, input: c, path: lines.json }
              lone: { op: testBoxes, offset: 7 }
            """, file: "g.yaml", baseFolder: folder.path, catalog: testCatalog)
        #expect(graph.unreadValues.sorted() == ["b.boxes", "b.count", "lone.boxes", "lone.count"])
        let plain = try graph.run()
        #expect(plain.values["lone.boxes"] == nil, "a node nothing reads does not run by default")
        let report = try graph.run(options: RunOptions(collectsValues: true))
        let result = try Self.object(graph.resultJSON(of: report))
        #expect(
            result["files"] as? [String] == [
                folder.appendingPathComponent("out.png").path, folder.appendingPathComponent("lines.json").path,
            ])
        let values = try #require(result["values"] as? [String: [String: Any]])
        #expect(values.keys.sorted() == ["b.boxes", "b.count", "lone.boxes", "lone.count"])
        #expect((values["lone.boxes"]?["boxes"] as? [[String: Double]])?.first?["x"] == 7)
        #expect(values["b.count"]?["value"] as? Double == 2)
        let file = folder.appendingPathComponent("result.json")
        try graph.resultJSON(of: report).write(to: file, atomically: false, encoding: .utf8)
        let checked = try Self.check(schema: "run", [file.path])
        #expect(checked.status == 0, "\(checked.output)")
        // One output as JSON, by node.output or by node (its first output); an image has none.
        #expect(try graph.valueJSON("lone", of: report).get() == graph.valueJSON("lone.boxes", of: report).get())
        #expect(try Self.object(graph.valueJSON("c.contours", of: report).get())["kind"] as? String == "contours")
        #expect(throws: ValueLookupError.self) { try graph.valueJSON("a", of: report).get() }
        #expect(throws: ValueLookupError.self) { try graph.valueJSON("b.nothing", of: report).get() }
        #expect(throws: ValueLookupError.self) { try graph.valueJSON("nobody.boxes", of: report).get() }
    }
}
