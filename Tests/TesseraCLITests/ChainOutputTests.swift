import Foundation
import Testing

/// `tessera chain` sets its output's options: `--set out.quality=82`, or vips' way, `out.jpg[Q=82]`
/// (all three ways failed, `| save quality=82` with a message about a save node's missing path). The
/// files written are read back by Pillow and exiftool.
@Suite struct ChainOutputTests {
    /// What Pillow finds in `file`: its format, its JPEG quality (the libjpeg quality whose quantization
    /// tables Pillow writes the same), whether it is progressive and whether it has a profile.
    static func facts(_ file: URL) throws -> [String: Any] {
        let script = """
            import io, json, sys
            from PIL import Image
            image = Image.open(sys.argv[1])
            facts = {"format": image.format, "progressive": bool(image.info.get("progressive")),
                     "profile": "icc_profile" in image.info}
            if image.format == "JPEG":
                for quality in range(1, 101):
                    buffer = io.BytesIO()
                    Image.new("RGB", (8, 8)).save(buffer, "JPEG", quality=quality)
                    if Image.open(buffer).quantization == image.quantization:
                        facts["quality"] = quality
            print(json.dumps(facts))
            """
        let result = try CLI.run(["-c", script, file.path], binary: URL(fileURLWithPath: "/usr/bin/python3"))
        try #require(result.status == 0, "\(result.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
    }

    /// The output argument and options, the file written, and what it must hold (Pillow's facts, or
    /// exiftool's tags with `-n`).
    static let cases: [(arguments: [String], file: String, facts: [String: String])] = [
        (["out.jpg[Q=82]"], "out.jpg", ["quality": "82", "profile": "1"]),
        (["out.jpg", "--set", "out.quality=82"], "out.jpg", ["quality": "82"]),
        (["out.jpg[quality=60]"], "out.jpg", ["quality": "60"]),
        (["out.jpg[Q=70,strip]"], "out.jpg", ["quality": "70", "profile": "0", "Make": "-"]),
        (["out.jpg[interlace]"], "out.jpg", ["quality": "75", "progressive": "1"]),
        (["out.tif[tile,compression=deflate]"], "out.tif", ["TileWidth": "128", "Compression": "8"]),
        (["out.tif[tile_width=64]"], "out.tif", ["TileWidth": "64"]),
        (["out.tif"], "out.tif", ["TileWidth": "-", "Compression": "1"]),
        (["out.png[bitdepth=16]"], "out.png", ["BitDepth": "16"]),
        (["out.webp[lossless]"], "out.webp", ["VP8L": "1", "Make": "Tessera"]),
        (["out.webp"], "out.webp", ["VP8L": "0"]),
    ]

    @Test(arguments: cases)
    func theOutputTakesItsOptions(arguments: [String], file: String, facts: [String: String]) throws {
        try check(["chain", "photo.jpg", "contrast amount=1.1"], arguments, file: file, facts: facts)
    }

    /// `convert` and `thumbnail` take the same options in brackets, as vips' commands do.
    @Test(
        arguments: cases.filter { $0.arguments.count == 1 }, [["convert", "photo.jpg"], ["thumbnail", "photo.jpg"]])
    func convertAndThumbnailTakeThemToo(
        _ output: (arguments: [String], file: String, facts: [String: String]), command: [String]
    ) throws {
        let size = command[0] == "thumbnail" ? ["--size", "200"] : []
        try check(command, output.arguments + size, file: output.file, facts: output.facts)
    }

    /// Runs `command` writing `arguments[0]` (then the other arguments), and checks `file` holds `facts`.
    func check(_ command: [String], _ arguments: [String], file: String, facts: [String: String]) throws {
        try withTemporaryFolder { folder in
            // A tile is cut to the image's longer side: the TIFFs are of the 512x512 example photo.
            let photo =
                file.hasSuffix(".tif")
                ? BatchCommandTests.photos.appendingPathComponent("astronaut.png") : MetadataTests.photo
            try FileManager.default.copyItem(at: photo, to: folder.appendingPathComponent("photo.jpg"))
            let quiet = command[0] == "chain" ? ["-q"] : []
            let result = try CLI.run(command + arguments.prefix(1) + quiet + arguments.dropFirst(), in: folder)
            #expect(result.status == 0, "\(command) \(arguments): \(result.stderr)")
            let out = folder.appendingPathComponent(file)
            var pillow = try Self.facts(out)
            // A lossless WebP holds a VP8L chunk, a lossy one VP8.
            pillow["VP8L"] = try Data(contentsOf: out).range(of: Data("VP8L".utf8)) != nil
            let tags = try MetadataTests.tags(out)
            for (name, expected) in facts {
                let found: String? =
                    switch pillow[name] {
                    case let flag as Bool: flag ? "1" : "0"
                    case let number as Int: String(number)
                    default: tags[name]
                    }
                #expect(found == (expected == "-" ? nil : expected), "\(arguments): \(name)")
            }
        }
    }

    /// Mistakes, each one message naming the way to do it.
    static let mistakes: [(chain: String, output: String, message: String)] = [
        (
            "contrast amount=1.2 | save quality=82", "out.jpg",
            "chain:1:23: error: the chain saves to out.jpg already: set its options with --set out.quality=82 or "
                + "out.jpg[Q=82] (vips' way), not a save step; to write more files, start a graph from --emit-graph\n"
                + "  contrast amount=1.2 | save quality=82\n"
                + "                        ^\n"
        ),
        (
            "contrast", "out.jpg[trellis_quant]",
            "error: out.jpg: no save option 'trellis_quant' (the options: depth, quality, compression, tile, "
                + "progressive, lossless, background, profile, metadata, dpi, stroke, strokeWidth, colorByDepth, or "
                + "vips' Q, bitdepth, interlace, strip, tile, tile_height, tile_width)\n"
        ),
        (
            "contrast", "out.png[Q=82]",
            "error: out.png[Q=82]: quality: for JPEG, TIFF, WebP, HEIC and AVIF files only; .png files do not take "
                + "it\n"
        ),
        ("contrast", "out.jpg[Q=820]", "error: out.jpg[Q=820]: quality: 820 is out of range: 1...100\n"),
        (
            "contrast", "out.jpg[Q=8 }, x: {]",
            "error: out.jpg: 'Q=8 }': the value must be a number or a word, as Q=82\n"
        ),
    ]

    @Test(arguments: mistakes)
    func aMistakeIsExplained(chain: String, output: String, message: String) throws {
        try withTemporaryFolder { folder in
            let result = try CLI.run(["chain", MetadataTests.photo.path, chain, output], in: folder)
            #expect(result.status == 2)
            #expect(result.stderr == message)
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
        }
    }
}
