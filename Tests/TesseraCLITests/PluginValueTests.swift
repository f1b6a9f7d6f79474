import Foundation
import Testing
import TesseraIO

/// Plugin ABI version 2 through the command line (Plugins/values.c): a global plugin node whose value
/// outputs reach built-in nodes (crop from its boxes, save as JSON), a plugin point node that takes a
/// value input, every wrong output refused naming the plugin, and version 1 plugins still loading.
@Suite struct PluginValueTests {
    static func plugin(in folder: URL, _ flags: [String] = []) throws -> String {
        let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Plugins/values.c")
        return try PluginCommandTests.compile(source.path, flags, as: "libvalues.so", in: folder)
    }

    static func graph(in folder: URL, misbehave: String = "none") throws {
        try """
        version: 1
        nodes:
          photo: { op: load, path: \(PluginCommandTests.photo) }
          b: { op: brightest, input: photo, threshold: 0.9, misbehave: \(misbehave) }
          m: { op: boxMask, boxes: b.boxes, like: photo }
          c: { op: crop, input: photo, rect: { from: b.boxes } }
          o1: { op: save, input: b.boxes, path: out/boxes.json }
          o2: { op: save, input: b.mean, path: out/mean.json }
          o3: { op: save, input: b.mask, path: out/mask.png }
          o4: { op: save, input: m, path: out/boxmask.png }
          o5: { op: save, input: c, path: out/crop.png }
        """.write(to: folder.appendingPathComponent("g.yaml"), atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(
            at: folder.appendingPathComponent("out"), withIntermediateDirectories: true)
    }

    static func json(_ file: URL) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
    }

    /// The values the plugin computes, against the same computed here from the photo's pixels: handed the
    /// image whole (version 2's run), reading it row by row with its mask given as a kernel (version 3),
    /// and reading those rows as 8-bit samples (version 4's read_bytes: the photo's own bytes, so the same
    /// floats once scaled as the decoders scale them); a plugin built for version 3 still runs as before.
    @Test(arguments: [[], ["-DREGIONS"], ["-DREGIONS", "-DABI_VERSION=3"], ["-DREGIONS", "-DBYTES"]])
    func valuesFlowBetweenPluginAndBuiltInNodes(_ flags: [String]) throws {
        try withTemporaryFolder { folder in
            let plugin = try Self.plugin(in: folder, flags)
            try Self.graph(in: folder)
            let result = try CLI.run(["run", "g.yaml", "--plugin", plugin, "--quiet"], in: folder)
            #expect(result.status == 0, "\(result.stderr)")

            let photo = try ImageFile.load(path: PluginCommandTests.photo).1.pixels()
            let (width, height) = (photo.region.width, photo.region.height)
            var (total, found, x0, y0, x1, y1) = (0.0, 0, width, height, -1, -1)
            for y in 0..<height {
                for x in 0..<width {
                    let red = photo.samples[(y * width + x) * 4]
                    total += Double(red)
                    guard Double(red) >= 0.9 else { continue }
                    (found, x0, y0, x1, y1) = (found + 1, min(x0, x), min(y0, y), max(x1, x), max(y1, y))
                }
            }
            #expect(found > 0 && x1 - x0 + 1 < width, "the threshold picks out part of the photo")
            let out = folder.appendingPathComponent("out")
            let mean = try Self.json(out.appendingPathComponent("mean.json"))
            #expect(abs((mean["value"] as? Double ?? -1) - total / Double(width * height)) < 1e-9)
            let boxes = try #require(
                try Self.json(out.appendingPathComponent("boxes.json"))["boxes"] as? [[String: Any]])
            #expect(boxes.count == 1)
            let box = boxes.first ?? [:]
            #expect(
                [box["x"], box["y"], box["width"], box["height"]].compactMap { $0 as? Int }
                    == [x0, y0, x1 - x0 + 1, y1 - y0 + 1])
            // crop read the plugin's box; boxMask read it as a value input; the mask is the threshold.
            let crop = try ImageFile.info(path: out.appendingPathComponent("crop.png").path)
            #expect((crop.width, crop.height) == (x1 - x0 + 1, y1 - y0 + 1))
            let mask = try ImageFile.load(path: out.appendingPathComponent("mask.png").path).1.pixels()
            let inside = try ImageFile.load(path: out.appendingPathComponent("boxmask.png").path).1.pixels()
            for y in 0..<height {
                for x in 0..<width {
                    let bright: Float = Double(photo.samples[(y * width + x) * 4]) >= 0.9 ? 1 : 0
                    let boxed: Float = (x0...x1).contains(x) && (y0...y1).contains(y) ? 1 : 0
                    if mask.samples[y * width + x] != bright || inside.samples[y * width + x] != boxed {
                        Issue.record(
                            "pixel \(x),\(y): mask \(mask.samples[y * width + x]), boxMask \(inside.samples[y * width + x])"
                        )
                        return
                    }
                }
            }
        }
    }

    @Test(arguments: [
        ("notJSON", "output 'boxes' is not valid boxes: not JSON"),
        ("wrongKind", "output 'boxes' is not valid boxes: kind is \"number\", not \"boxes\""),
        ("infinite", "output 'boxes' is not valid boxes: not JSON (a number out of range somewhere in it)"),
        ("missing", "the plugin gave no output 'mean'"),
        ("wrongPort", "set_value for output 2, which is not a value output"),
        ("badImage", "output 'mask': an image of"),
        ("fail", "the model is missing (code 3)"),
    ])
    func wrongOutputsAreRefusedNamingThePlugin(_ misbehave: String, _ message: String) throws {
        try withTemporaryFolder { folder in
            let plugin = try Self.plugin(in: folder)
            try Self.graph(in: folder, misbehave: misbehave)
            let result = try CLI.run(["run", "g.yaml", "--plugin", plugin, "--quiet"], in: folder)
            #expect(!result.signaled && result.status == 1)
            #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
            #expect(result.stderr.contains("\(plugin): brightest: \(message)"), "\(result.stderr)")
            let written = try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("out").path)
            #expect(written.isEmpty, "\(written)")
        }
    }

    /// Version 3's reads, and version 4's reads of bytes, are checked: a region outside the image (or one
    /// whose edge overflows) is refused and reported, the node fails naming the plugin (even when the plugin
    /// ignores the refusal and returns TESSERA_OK), and nothing is written.
    @Test(arguments: ["readOutside", "readHuge"], [[], ["-DBYTES"]])
    func readsOutsideTheImageAreRefused(_ misbehave: String, _ flags: [String]) throws {
        try withTemporaryFolder { folder in
            let plugin = try Self.plugin(in: folder, ["-DREGIONS"] + flags)
            try Self.graph(in: folder, misbehave: misbehave)
            let result = try CLI.run(["run", "g.yaml", "--plugin", plugin, "--quiet"], in: folder)
            #expect(!result.signaled && result.status == 1)
            let photo = try ImageFile.info(path: PluginCommandTests.photo)
            let read =
                misbehave == "readHuge"
                ? "16x1 at (\(Int64.max - 1), 0)" : "\(photo.width + 1)x1 at (0, 0)"
            // The plugin that gives up says so, with the host's reason; one that goes on is failed by the host.
            let refused =
                (misbehave == "readHuge" ? "" : "a read failed (code 2) (the host refused: ")
                + "read of \(read) of input 0, which is \(photo.width)x\(photo.height)"
            #expect(result.stderr.contains("\(plugin): brightest: "), "\(result.stderr)")
            #expect(result.stderr.contains(refused), "\(result.stderr)")
            let written = try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("out").path)
            #expect(written.isEmpty, "\(written)")
        }
    }

    /// Version 4's reads of bytes take 1, 3 or 4 bytes a pixel: 2 is refused, the node fails naming the plugin
    /// and the count (the plugin ignores the refusal), and nothing is written.
    @Test func readsOfTwoBytesAPixelAreRefused() throws {
        try withTemporaryFolder { folder in
            let plugin = try Self.plugin(in: folder, ["-DREGIONS", "-DBYTES"])
            try Self.graph(in: folder, misbehave: "readBands")
            let result = try CLI.run(["run", "g.yaml", "--plugin", plugin, "--quiet"], in: folder)
            #expect(!result.signaled && result.status == 1)
            #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
            #expect(
                result.stderr.contains(
                    "\(plugin): brightest: read of input 0 as 2 bytes a pixel, which is not 1, 3 or 4"),
                "\(result.stderr)")
            let written = try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("out").path)
            #expect(written.isEmpty, "\(written)")
        }
    }

    /// A plugin built for version 1 (its table ends before version 2's fields) still loads and runs.
    @Test func version1PluginsStillLoad() throws {
        try withTemporaryFolder { folder in
            let plugin = try PluginCommandTests.broken(["-DABI_VERSION=1"], as: "libhalve.so", in: folder)
            let graph = try PluginCommandTests.graph("halve", in: folder)
            let result = try CLI.run(["run", graph, "--plugin", plugin, "--quiet"], in: folder)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("out.png").path))
        }
    }

    /// A version 1 plugin may not declare what version 2 added: the same catalog, claimed as version 1,
    /// is refused at its first global node.
    @Test func version1CatalogsStayImagesOnly() throws {
        try withTemporaryFolder { folder in
            let plugin = try Self.plugin(in: folder, ["-DABI_VERSION=1"])
            let result = try CLI.run(["nodes", "--plugin", plugin])
            #expect(result.status == 1)
            #expect(
                result.stderr.contains(
                    "\(plugin): brightest: access 'global' is not one a plugin node can have (point, area, geometry, "
                        + "source)"), "\(result.stderr)")
        }
    }
}
