import Foundation
import Testing

/// One broken input or impossible output, and the one line `tessera convert` must print for it.
struct BrokenCase: CustomTestStringConvertible, Sendable {
    var name: String
    /// The input's file name and bytes (nil: the input does not exist).
    var input: (name: String, bytes: [UInt8]?)
    var output: String = "out.tif"
    /// Options after the input and output.
    var options: [String] = []
    var message: String

    var testDescription: String { name }

    static func fixture(_ path: String) -> [UInt8] {
        (try? [UInt8](Data(contentsOf: CLI.fixtures.appendingPathComponent(path)))) ?? []
    }

    /// A crafted file of Scripts/make-bomb-fixtures.py: a small file whose header claims gigabytes.
    static func bomb(_ name: String) -> (name: String, bytes: [UInt8]?) { (name, fixture("bombs/" + name)) }

    static let limits = "(raise the limit: --max-memory, or maxMemory in a graph)"

    /// A row for a crafted file converted to `output`, whose message follows the file's name.
    static func crafted(
        _ name: String, _ file: String, output: String = "out.png", options: [String] = [], _ message: String
    ) -> BrokenCase {
        BrokenCase(name: name, input: bomb(file), output: output, options: options, message: "\(file): \(message)")
    }

    static func tileTooLarge(tile: String, image: String) -> String {
        "TIFF: tiles of \(tile) are far larger than the \(image) image (a tile may pass its edge by padding to a "
            + "multiple of 16, or up to 1024 pixels); the file is damaged or crafted"
    }

    static let deflate = "deflate expands at most 1032 times"

    static func tooFew(_ chunk: String, _ bytes: Int, _ size: String, _ bound: String) -> String {
        "TIFF: \(chunk) 0 holds \(bytes) bytes, too few for its \(size) (\(bound)); the file is truncated or crafted"
    }

    static func pngTooShort(_ size: String) -> String {
        "PNG: 10 bytes of image data cannot hold \(size) pixels (\(deflate)); the file is truncated or crafted"
    }

    static let png = fixture("png/rgb-8bit.png")
    static let jpeg = fixture("jpeg/color-baseline.jpg")
    static let tiff = fixture("tiff/rgb-8bit-strips-lzw-pred.tif")

    static func truncated(_ bytes: [UInt8], at count: Int) -> [UInt8] { Array(bytes.prefix(count)) }

    /// Eight bytes from `index` inverted.
    static func damaged(_ bytes: [UInt8], at index: Int) -> [UInt8] {
        (0..<8).reduce(bytes) { flipped($0, at: index + $1) }
    }

    static func flipped(_ bytes: [UInt8], at index: Int) -> [UInt8] {
        var copy = bytes
        copy[index] ^= 0xFF
        return copy
    }

    /// Deterministic noise (a 64-bit LCG), so the case is the same on every run.
    static let noise: [UInt8] = {
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        return (0..<4096).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 33)
        }
    }()

    /// Where the first IDAT chunk's type starts.
    static var idat: Int { (0..<png.count - 4).first { png[$0..<$0 + 4] == [0x49, 0x44, 0x41, 0x54] } ?? 0 }
    static var idatData: Int { idat + 10 }
    /// The first byte of the first IDAT chunk's CRC: after the type (4) and the data (its length, big-endian).
    static var idatCRC: Int { idat + 4 + png[(idat - 4)..<idat].reduce(0) { $0 << 8 | Int($1) } }

    static let all: [BrokenCase] = [
        // PNG truncated in the signature, the header, the image data and the last chunk.
        BrokenCase(
            name: "PNG cut in the signature", input: ("a.png", truncated(png, at: 5)),
            message:
                "a.png: not a PNG, JPEG, TIFF, WebP, GIF, HEIC or AVIF file (unknown signature); those are what Tessera reads"
        ),
        BrokenCase(
            name: "PNG cut in IHDR", input: ("a.png", truncated(png, at: 20)),
            message: "a.png: PNG: the file ends early (truncated)"),
        BrokenCase(
            name: "PNG cut in IDAT", input: ("a.png", truncated(png, at: png.count / 2)),
            options: ["--fail-on", "truncated"],
            message: "a.png: PNG: the file ends early (truncated)"),
        BrokenCase(
            name: "PNG without IEND", input: ("a.png", truncated(png, at: png.count - 12)),
            options: ["--fail-on", "truncated"],
            message: "a.png: PNG: the file ends early (truncated)"),
        BrokenCase(
            name: "PNG cut in the last CRC", input: ("a.png", truncated(png, at: png.count - 1)),
            options: ["--fail-on", "truncated"],
            message: "a.png: PNG: the file ends early (truncated)"),
        BrokenCase(
            name: "PNG with a bad IHDR CRC", input: ("a.png", flipped(png, at: 30)),
            options: ["--fail-on", "error"],
            message: "a.png: PNG: IHDR: CRC error"),
        BrokenCase(
            name: "PNG with damaged image data", input: ("a.png", flipped(png, at: idatData)),
            options: ["--fail-on", "truncated"],
            message: "a.png: PNG: IDAT: invalid code lengths set"),
        BrokenCase(
            name: "PNG with a bad IDAT CRC", input: ("a.png", flipped(png, at: idatCRC)),
            options: ["--fail-on", "error"],
            message: "a.png: PNG: IDAT: CRC error"),
        // JPEG truncated in the header, the scan and just before the end marker.
        BrokenCase(
            name: "JPEG cut in the header", input: ("a.jpg", truncated(jpeg, at: 100)),
            message: "a.jpg: JPEG: JPEG datastream contains no image"),
        BrokenCase(
            name: "JPEG cut before the scan", input: ("a.jpg", truncated(jpeg, at: 600)),
            message: "a.jpg: JPEG: Invalid JPEG file structure: missing SOS marker"),
        BrokenCase(
            name: "JPEG cut in the scan", input: ("a.jpg", truncated(jpeg, at: jpeg.count / 2)),
            options: ["--fail-on", "truncated"],
            message: "a.jpg: JPEG: Premature end of JPEG file"),
        BrokenCase(
            name: "JPEG without its end marker", input: ("a.jpg", truncated(jpeg, at: jpeg.count - 2)),
            options: ["--fail-on", "truncated"],
            message: "a.jpg: JPEG: Premature end of JPEG file"),
        // TIFF truncated in the header, in the directory and in the strips.
        BrokenCase(
            name: "TIFF cut in the header", input: ("a.tif", truncated(tiff, at: 6)),
            message: "a.tif: TIFF: Cannot read TIFF header"),
        BrokenCase(
            name: "TIFF cut in the strips", input: ("a.tif", truncated(tiff, at: 1000)), output: "out.png",
            options: ["--fail-on", "truncated"],
            message: "a.tif: TIFF: TIFFFillStrip: Read error at scanline 0; got 177 bytes, expected 540"),
        BrokenCase(
            name: "TIFF cut in the last strip", input: ("a.tif", truncated(tiff, at: tiff.count - 300)),
            output: "out.png",
            options: ["--fail-on", "truncated"],
            message: "a.tif: TIFF: TIFFFillStrip: Read error at scanline 15; got 30 bytes, expected 330"),
        BrokenCase(
            name: "TIFF whose directory offset points past the end",
            input: ("a.tif", Array(tiff.prefix(4)) + [0xFF, 0xFF, 0, 0] + tiff.dropFirst(8)),
            output: "out.png", message: "a.tif: TIFF: TIFFReadDirectory: Failed to read directory at offset 65535"),
        // Not images at all.
        BrokenCase(
            name: "random bytes", input: ("noise.png", noise),
            message:
                "noise.png: not a PNG, JPEG, TIFF, WebP, GIF, HEIC or AVIF file (unknown signature); those are what Tessera reads"
        ),
        BrokenCase(name: "zero-length file", input: ("empty.png", []), message: "empty.png: the file is empty"),
        BrokenCase(name: "missing file", input: ("missing.png", nil), message: "missing.png: no such file"),
        // The content decides the format: a damaged PNG named .jpg fails as a PNG.
        BrokenCase(
            name: "a damaged PNG renamed .jpg", input: ("photo.jpg", truncated(png, at: png.count / 2)),
            options: ["--fail-on", "truncated"],
            message: "photo.jpg: PNG: the file ends early (truncated)"),
        // Crafted headers (decompression bombs): refused before anything is allocated for them.
        crafted("TIFF tile 2^31 pixels wide", "tile-2g-wide.tif", tileTooLarge(tile: "2147483648x16", image: "16x16")),
        crafted("TIFF tile of 65536x65536", "tile-65536.tif", tileTooLarge(tile: "65536x65536", image: "64x64")),
        crafted(
            "TIFF RGBA 16-bit tile of 32768x32768", "tile-32768-rgba16.tif",
            tileTooLarge(tile: "32768x32768", image: "100x100")),
        crafted("TIFF deflate strip of 8 GiB", "strip-32768-rgba16.tif", tooFew("strip", 12, "8 GiB", deflate)),
        crafted("TIFF deflate strip of 2 GiB", "strip-16384-rgba16.tif", tooFew("strip", 12, "2 GiB", deflate)),
        crafted(
            "TIFF LZW strip of 8 GiB", "strip-32768-rgba16-lzw.tif", options: ["--max-memory", "4G"],
            "TIFF: decoding one strip of 32768 rows needs 8 GiB at once, more than the limit of 4 GiB \(limits)"),
        // Within a limit of 4 GiB: the strip is allocated but never filled, since the data ends at once. The
        // default limit, sized to the 170-byte file, refuses it first.
        crafted(
            "TIFF LZW strip of 2 GiB", "strip-16384-rgba16-lzw.tif",
            options: ["--max-memory", "4G", "--fail-on", "truncated"],
            "TIFF: LZWDecode: LZWDecode: Strip 0 not terminated with EOI code"),
        crafted(
            "TIFF LZW strip of 2 GiB by default", "strip-16384-rgba16-lzw.tif",
            "TIFF: decoding one strip of 16384 rows needs 2 GiB at once, more than a 170-byte file may take by default "
                + "(128 MiB) \(limits)"),
        crafted(
            "TIFF uncompressed tile of 2 GiB", "tile-16384-rgba16-raw.tif",
            tooFew("tile", 16, "2 GiB", "uncompressed data takes a byte per byte")),
        BrokenCase(
            name: "TIFF over the memory limit", input: ("a.tif", fixture("tiff/rgb-8bit-tiles-lzw.tif")),
            output: "out.png", options: ["--max-memory", "1K"],
            message:
                "a.tif: TIFF: keeping 6 tiles of 16x16 pixels decoded needs 4.5 KiB at once, more than the limit of 1 KiB \(limits)"
        ),
        crafted(
            "PNG 2147483647 pixels wide", "wide-2g.png", output: "out.tif",
            "2147483647x1 is more than the limit of 1073741824 pixels (raise the limit: --max-pixels, or maxPixels in a graph)"
        ),
        crafted("PNG RGBA 16-bit row of 8 GiB", "wide-1g-rgba16.png", output: "out.tif", pngTooShort("1073741824x1")),
        crafted("PNG of 8585283x45 from 67 bytes", "8585283x45.png", output: "out.tif", pngTooShort("8585283x45")),
        BrokenCase(
            name: "PNG over the memory limit", input: ("a.png", fixture("png/rgba-16bit.png")),
            options: ["--max-memory", "10K"],
            message: "a.png: PNG: decoding 37x23 pixels needs 20.5 KiB at once, more than the limit of 10 KiB \(limits)"
        ),
        BrokenCase(
            name: "progressive JPEG of 32000x32000 in 766 bytes", input: bomb("progressive-32000.jpg"),
            message:
                "progressive-32000.jpg: JPEG: a 766-byte file cannot hold 32000x32000 pixels (each 8x8 block takes at least a bit); the file is truncated or crafted"
        ),
        BrokenCase(
            name: "progressive JPEG over the memory limit", input: ("a.jpg", fixture("jpeg/color-progressive.jpg")),
            options: ["--max-memory", "10K"],
            message:
                "a.jpg: JPEG: decoding 61x47 pixels needs 62.2 KiB at once, more than the limit of 10 KiB \(limits)"),
        // Outputs that cannot be written.
        // WebP, GIF, HEIC and AVIF (Scripts/make-format-fixtures.sh): cut short, damaged, crafted.
        BrokenCase(
            name: "WebP cut in half", input: ("a.webp", fixture("formats/webp-truncated.webp")),
            message: "a.webp: WebP: the file ends early (truncated)"),
        BrokenCase(
            name: "WebP cut in its header", input: ("a.webp", truncated(fixture("formats/webp-lossy.webp"), at: 30)),
            message: "a.webp: WebP: the file ends early (truncated)"),
        BrokenCase(
            name: "WebP claiming 16383x16383 over 3 bytes", input: ("a.webp", fixture("formats/webp-bomb.webp")),
            message:
                "a.webp: WebP: decoding 16383x16383 pixels needs 1.7 GiB at once, more than a 28-byte file may take by "
                + "default (128 MiB) \(limits)"),
        BrokenCase(
            name: "WebP claiming 16383x16383 over 3 bytes, within the limit",
            input: ("a.webp", fixture("formats/webp-bomb.webp")), options: ["--max-memory", "4G"],
            message: "a.webp: WebP: the image data is damaged (bitstream error)"),
        BrokenCase(
            name: "WebP lossless with damaged data",
            input: ("a.webp", damaged(fixture("formats/webp-lossless.webp"), at: 60)),
            message: "a.webp: WebP: the image data is damaged (bitstream error)"),
        BrokenCase(
            name: "GIF with damaged image data", input: ("a.gif", damaged(fixture("formats/gif-palette.gif"), at: 900)),
            options: ["--fail-on", "error"], message: "a.gif: GIF: Image is defective, decoding aborted"),
        BrokenCase(
            name: "GIF cut in its image data", input: ("a.gif", fixture("formats/gif-truncated.gif")),
            options: ["--fail-on", "truncated"], message: "a.gif: GIF: the file ends early (truncated)"),
        BrokenCase(
            name: "GIF cut in its screen descriptor",
            input: ("a.gif", truncated(fixture("formats/gif-palette.gif"), at: 9)),
            message: "a.gif: GIF: the file ends early (truncated)"),
        BrokenCase(
            name: "GIF frame that is not there", input: ("a.gif", fixture("formats/gif-animated.gif")),
            options: ["--frame", "3"],
            message: "a.gif: GIF: there is no frame 3 (frames are counted from 0; the file has 3)"),
        BrokenCase(
            name: "HEIC cut in half", input: ("a.heic", fixture("formats/heic-truncated.heic")),
            message:
                "a.heic: HEIF: Invalid input: Unexpected end of file: Extent in iloc box references data outside of "
                + "file bounds (points to file position 465)"),
        BrokenCase(
            name: "AVIF cut in half", input: ("a.avif", truncated(fixture("formats/avif-rgb.avif"), at: 1210)),
            message:
                "a.avif: HEIF: Invalid input: Unexpected end of file: Extent in iloc box references data outside of "
                + "file bounds (points to file position 270)"),
        BrokenCase(
            name: "output in a missing folder", input: ("a.png", png), output: "no/such/folder/out.png",
            message: "no/such/folder/out.png: cannot write: the folder no/such/folder does not exist"),
        BrokenCase(
            name: "output name is a folder", input: ("a.png", png), output: "folder.png",
            message: "folder.png: cannot write: Is a directory"),
        BrokenCase(
            name: "output with an unknown extension", input: ("a.png", png), output: "out.bmp",
            message:
                "out.bmp: cannot tell the output format from the name: use .png, .tif, .tiff, .jpg, .jpeg, .jpe, .webp, "
                + ".heic, .heif, .avif"),
        BrokenCase(
            name: "output to GIF", input: ("a.png", png), output: "out.gif",
            message: "out.gif: GIF is read, not written: use .png or .webp (lossless) instead"),
        BrokenCase(
            name: "16-bit output to WebP", input: ("a.png", png), output: "out.webp", options: ["--depth", "16"],
            message: "out.webp: WebP holds 8-bit samples only"),
        BrokenCase(
            name: "16-bit output to JPEG", input: ("a.png", png), output: "out.jpg",
            message: "out.jpg: JPEG holds 8-bit samples only"),
    ]
}

@Suite struct BrokenFileTests {
    @Test(arguments: BrokenCase.all)
    func brokenInputsFailCleanly(_ broken: BrokenCase) throws {
        try withTemporaryFolder { folder in
            if let bytes = broken.input.bytes {
                try Data(bytes).write(to: folder.appendingPathComponent(broken.input.name))
            }
            try FileManager.default.createDirectory(
                at: folder.appendingPathComponent("folder.png"), withIntermediateDirectories: true)
            let before = Set(try FileManager.default.contentsOfDirectory(atPath: folder.path))
            var arguments = ["convert", broken.input.name, broken.output] + broken.options
            if broken.output.hasSuffix(".jpg") { arguments += ["--depth", "16"] }
            let result = try CLI.run(arguments, in: folder)
            #expect(!result.signaled, "no crash: \(result.stderr)")
            #expect(result.status == 1)
            #expect(result.stderr == "Error: \(broken.message)\n")
            #expect(result.stdout.isEmpty)
            // No output and no temporary file left behind.
            let after = Set(try FileManager.default.contentsOfDirectory(atPath: folder.path))
            #expect(after == before, "files left: \(after.subtracting(before))")
        }
    }

    /// The crafted files through every command that decodes: `info`, `convert` and `run`, each with its
    /// default limits, ends with status 1, one line on stderr and nothing left in the output folder.
    @Test(arguments: Self.bombs)
    func craftedFilesFailCleanlyEverywhere(_ name: String) throws {
        try withTemporaryFolder { folder in
            let input = CLI.fixtures.appendingPathComponent("bombs/" + name).path
            let out = folder.appendingPathComponent("out")
            try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
            let graph = folder.appendingPathComponent("g.yaml")
            try Data(
                "version: 1\nnodes:\n  photo: { op: load, path: '\(input)' }\n  save: { op: save, input: photo, path: out/o.png }\n"
                    .utf8
            ).write(to: graph)
            for arguments in [["info", input], ["convert", input, "out/o.png"], ["run", "g.yaml"]] {
                let result = try CLI.run(arguments, in: folder)
                #expect(!result.signaled && result.status == 1, "\(arguments[0]): \(result.status) \(result.stderr)")
                #expect(result.stdout.isEmpty)
                #expect(result.stderr.split(separator: "\n").count == 1, "\(arguments[0]): \(result.stderr)")
                let file = (name as NSString).lastPathComponent
                #expect(result.stderr.contains(file), "\(arguments[0]) names the file: \(result.stderr)")
                #expect(try FileManager.default.contentsOfDirectory(atPath: out.path).isEmpty, "\(arguments[0])")
            }
        }
    }

    static let bombs = [
        "tile-2g-wide.tif", "tile-65536.tif", "tile-32768-rgba16.tif", "strip-32768-rgba16.tif",
        "strip-16384-rgba16.tif", "tile-16384-rgba16-raw.tif", "wide-2g.png", "wide-1g-rgba16.png", "8585283x45.png",
        "progressive-32000.jpg", "../formats/gif-bomb.gif",
    ]

    @Test func aWholePNGRenamedJPGIsReadAsPNG() throws {
        try withTemporaryFolder { folder in
            try Data(BrokenCase.png).write(to: folder.appendingPathComponent("photo.jpg"))
            let info = try CLI.run(["info", "photo.jpg"], in: folder)
            #expect(info.status == 0)
            #expect(info.stdout.hasPrefix("format:      PNG\n"))
            let converted = try CLI.run(["convert", "photo.jpg", "copy.png"], in: folder)
            #expect(converted.status == 0 && converted.stderr.isEmpty)
            #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("copy.png").path))
        }
    }

    @Test func aFailedConvertLeavesAnExistingOutputUntouched() throws {
        try withTemporaryFolder { folder in
            let previous = Data("previous contents".utf8)
            try previous.write(to: folder.appendingPathComponent("out.png"))
            try Data(BrokenCase.truncated(BrokenCase.png, at: 3000)).write(to: folder.appendingPathComponent("a.png"))
            let result = try CLI.run(["convert", "a.png", "out.png", "--fail-on", "truncated"], in: folder)
            #expect(result.status == 1)
            #expect(try Data(contentsOf: folder.appendingPathComponent("out.png")) == previous)
        }
    }
}
