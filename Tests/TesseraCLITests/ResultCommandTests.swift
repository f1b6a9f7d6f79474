import Foundation
import Testing
import TesseraCore
import TesseraIO

/// Results leaving `tessera run` as data (`--json`), and images with alpha written as JPEG.
@Suite struct ResultCommandTests {
    static let photo = GraphCommandTests.photo

    /// The saliency tutorial's auto-crop, as Graphs/autocrop.yaml has it, in a temporary folder.
    static let autocrop = """
        version: 1
        nodes:
          photo:  { op: load, path: \(photo) }
          heat:   { op: saliency, input: photo, kind: objectness }
          tight:  { op: crop, input: photo, rect: { from: heat.boxes } }
          a:      { op: save, input: tight, path: tight.png }
        """

    @Test func runJSONPrintsTheFilesAndTheBoxes() throws {
        try withTemporaryFolder { folder in
            let graph = folder.appendingPathComponent("g.yaml")
            try Self.autocrop.write(to: graph, atomically: false, encoding: .utf8)
            let run = try CLI.run(["run", "g.yaml", "--json"], in: folder)
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stderr.isEmpty)
            // stdout is one JSON object and nothing else.
            let result = try #require(
                try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any], "\(run.stdout)")
            #expect(result["files"] as? [String] == ["tight.png"])
            let values = try #require(result["values"] as? [String: [String: Any]])
            #expect(values.keys.sorted() == ["heat.boxes"], "the heat map is an image: not a value")
            let boxes = try #require(values["heat.boxes"]?["boxes"] as? [[String: Double]])
            try #require(!boxes.isEmpty)
            #expect(boxes.map { $0["confidence"] ?? 0 } == boxes.map { $0["confidence"] ?? 0 }.sorted(by: >))
            // The crop took the most confident box: the written image has its size.
            let written = try ImageFile.info(path: folder.appendingPathComponent("tight.png").path)
            #expect(Double(written.width) == boxes[0]["width"] && Double(written.height) == boxes[0]["height"])
            // It is what Docs/schemas/run.schema.json describes.
            let file = folder.appendingPathComponent("result.json").path
            try run.stdout.write(toFile: file, atomically: false, encoding: .utf8)
            let check = try CLI.run(
                [
                    GraphCommandTests.repository.appendingPathComponent("Scripts/check-values.py").path,
                    GraphCommandTests.repository.appendingPathComponent("Docs/schemas/run.schema.json").path, file,
                ], binary: URL(fileURLWithPath: "/usr/bin/python3"))
            #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
        }
    }

    /// A graph that only analyses: with --json its result is computed and printed; without, the node whose
    /// result nothing reads does not run (and says so as a warning).
    @Test func anAnalysisAloneIsItsResult() throws {
        try withTemporaryFolder { folder in
            try
                "version: 1\nnodes:\n  photo: { op: load, path: \(Self.photo) }\n  heat: { op: saliency, input: photo }\n"
                .write(to: folder.appendingPathComponent("g.yaml"), atomically: false, encoding: .utf8)
            let run = try CLI.run(["run", "g.yaml", "--json"], in: folder)
            #expect(run.status == 0, "\(run.stderr)")
            let result = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
            #expect(result["files"] as? [String] == [])
            let boxes = (result["values"] as? [String: [String: Any]])?["heat.boxes"]?["boxes"] as? [Any]
            #expect(boxes?.isEmpty == false, "\(run.stdout)")
            let plain = try CLI.run(["run", "g.yaml"], in: folder)
            #expect(plain.status == 0 && plain.stdout.isEmpty)
            #expect(plain.stderr.contains("warning: nothing reads the output of saliency node 'heat'"))
        }
    }

    /// JPEG has no alpha: transparent pixels are laid over the background (white by default), never
    /// shown as whatever color they hold.
    @Test(arguments: [
        // color RGBA, save options, expected RGB (0...255)
        ([1.0, 0, 0, 0], "", [255.0, 255, 255]),
        ([0.0, 0, 1, 0.5], ", background: [0, 0, 0]", [0, 0, 127.5]),
        ([0.0, 1, 0, 0.25], ", background: [1, 0, 0]", [191.25, 63.75, 0]),
        ([0.2, 0.4, 0.6, 1], ", background: [0, 0, 0]", [51, 102, 153]),
    ])
    func transparentImagesFlattenForJPEG(color: [Double], options: String, expected: [Double]) throws {
        try withTemporaryFolder { folder in
            let graph = """
                version: 1
                nodes:
                  plain: { op: constant, width: 32, height: 16, color: [\(color.map { "\($0)" }.joined(separator: ", "))] }
                  out: { op: save, input: plain, path: o.jpg, quality: 100\(options) }
                """
            try graph.write(to: folder.appendingPathComponent("g.yaml"), atomically: false, encoding: .utf8)
            let run = try CLI.run(["run", "g.yaml", "-q"], in: folder)
            #expect(run.status == 0, "\(run.stderr)")
            let pixels = try ImageFile.load(path: folder.appendingPathComponent("o.jpg").path).1.pixels()
            // A flat JPEG at quality 100: within 2 levels (chroma subsampling and the DCT round).
            for c in 0..<3 {
                let value = Double(pixels.samples[c]) * 255
                #expect(abs(value - expected[c]) <= 2, "channel \(c): \(value), expected \(expected[c])")
            }
        }
    }

    @Test func convertFlattensOverItsBackground() throws {
        try withTemporaryFolder { folder in
            var clear = PixelBuffer(region: Rect(width: 16, height: 16), channels: 4, value: 0)
            for i in stride(from: 0, to: clear.samples.count, by: 4) { clear.samples[i] = 1 }  // red, alpha 0
            let input = folder.appendingPathComponent("clear.png").path
            try ImageFile.save(Image(buffer: clear, layout: .rgba, depth: .uint8), to: input)
            for (arguments, expected) in [([], [255.0, 255, 255]), (["--background", "0,1,0"], [0, 255, 0])] {
                let output = folder.appendingPathComponent("o.jpg").path
                let convert = try CLI.run(["convert", input, output, "--quality", "100"] + arguments)
                #expect(convert.status == 0, "\(convert.stderr)")
                let pixels = try ImageFile.load(path: output).1.pixels()
                for c in 0..<3 { #expect(abs(Double(pixels.samples[c]) * 255 - expected[c]) <= 2) }
            }
            let bad = try CLI.run([
                "convert", input, folder.appendingPathComponent("x.jpg").path, "--background", "2,0",
            ])
            #expect(bad.status != 0 && bad.stderr.contains("--background must be red,green,blue in 0...1"))
        }
    }
}
