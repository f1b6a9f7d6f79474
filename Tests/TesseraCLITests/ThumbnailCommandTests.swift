import Foundation
import Testing
import TesseraCore
import TesseraIO

/// `tessera thumbnail`, run as a user runs it: sizes, orientation, options, and every mistake as one
/// line with nothing left behind.
@Suite struct ThumbnailCommandTests {
    /// A folder holding a copy of the 40x24 JPEG whose EXIF orientation is `orientation`, as `in.jpg`.
    func withPhoto<T>(orientation: Int = 1, _ body: (URL) throws -> T) throws -> T {
        try withTemporaryFolder { folder in
            try FileManager.default.copyItem(
                at: CLI.fixtures.appendingPathComponent("jpeg/orient-\(orientation).jpg"),
                to: folder.appendingPathComponent("in.jpg"))
            return try body(folder)
        }
    }

    /// --size and --fit against the size written (the photo is 40x24, upright).
    static let boxes: [(arguments: [String], width: Int, height: Int)] = [
        (["--size", "20"], 20, 12),
        (["--size", "20x6"], 10, 6),
        (["--size", "x12"], 20, 12),
        (["--size", "30x"], 30, 18),
        (["--size", "100"], 40, 24),  // inside the box: never enlarged
        (["--size", "100>"], 40, 24),
        (["--size", "100", "--fit", "both"], 100, 60),
        (["--size", "100<"], 100, 60),
        (["--size", "10<"], 40, 24),
        (["--size", "10x10!"], 10, 10),
        (["--size", "16X16", "--fit", "force"], 16, 16),
        (["--size", "20", "--no-shrink-on-load", "--interpolation", "nearest"], 20, 12),
    ]

    @Test(arguments: Self.boxes)
    func theThumbnailFitsTheBox(_ box: (arguments: [String], width: Int, height: Int)) throws {
        let (arguments, width, height) = box
        try withPhoto { folder in
            let result = try CLI.run(["thumbnail", "in.jpg", "out.png"] + arguments, in: folder)
            #expect(result.status == 0 && result.stderr.isEmpty, "\(result.stderr)")
            #expect(result.stdout.isEmpty)
            let info = try ImageFile.info(path: folder.appendingPathComponent("out.png").path)
            #expect((info.width, info.height) == (width, height), "\(arguments)")
        }
    }

    /// The EXIF orientation is applied before fitting: orientation 6 (stored 40x24, turned a quarter
    /// clockwise) gives a 12x20 thumbnail whose top right is the stored top-left's red.
    @Test(arguments: 1...8)
    func theOrientationIsApplied(_ orientation: Int) throws {
        try withPhoto(orientation: orientation) { folder in
            let result = try CLI.run(["thumbnail", "in.jpg", "out.png", "--size", "20"], in: folder)
            #expect(result.status == 0, "\(result.stderr)")
            let (_, image) = try ImageFile.load(path: folder.appendingPathComponent("out.png").path)
            let turned = orientation >= 5
            #expect((image.width, image.height) == (turned ? 12 : 20, turned ? 20 : 12))
            // The stored top-left (red) goes to the corner EXIF names.
            let right = [2, 3, 6, 7].contains(orientation)
            let bottom = [3, 4, 7, 8].contains(orientation)
            let pixels = try image.pixels()
            let x = right ? image.width - 2 : 1
            let y = bottom ? image.height - 2 : 1
            #expect(pixels[x, y, 0] > 0.7 && pixels[x, y, 1] < 0.35 && pixels[x, y, 2] < 0.35, "red at (\(x), \(y))")
        }
        try withPhoto(orientation: 6) { folder in
            let kept = try CLI.run(
                ["thumbnail", "in.jpg", "out.png", "--size", "20", "--keep-orientation"], in: folder)
            #expect(kept.status == 0)
            // Stored as the file stores it, its EXIF orientation kept with it, as convert --keep-orientation
            // does: a viewer turns it as it turned the photo.
            let info = try ImageFile.info(
                path: folder.appendingPathComponent("out.png").path, options: DecodeOptions(appliesOrientation: false))
            #expect((info.width, info.height) == (20, 12) && info.orientation == 6)
        }
    }

    /// The output takes convert's options; options its format does not take are ignored, as convert does.
    @Test func theOutputTakesConvertsOptions() throws {
        try withPhoto { folder in
            let jpeg = try CLI.run(
                ["thumbnail", "in.jpg", "out.jpg", "--size", "20", "--quality", "50", "--progressive"], in: folder)
            #expect(jpeg.status == 0, "\(jpeg.stderr)")
            let info = try ImageFile.info(path: folder.appendingPathComponent("out.jpg").path)
            #expect(info.details.contains("progressive") && info.width == 20)
            let tiff = try CLI.run(
                ["thumbnail", "in.jpg", "out.tif", "--size", "20", "--depth", "16", "--compression", "deflate"],
                in: folder)
            #expect(tiff.status == 0, "\(tiff.stderr)")
            #expect(try ImageFile.info(path: folder.appendingPathComponent("out.tif").path).bitsPerSample == 16)
            let png = try CLI.run(["thumbnail", "in.jpg", "out.png", "--size", "20", "--progressive"], in: folder)
            #expect(png.status == 0, "\(png.stderr)")
        }
    }

    /// `tessera thumbnail` with these arguments, the line it must print and its status.
    static let mistakes: [(arguments: [String], message: String, status: Int32)] =
        ["0", "big", "x", "20x20x20", "1000001"].map { size in
            (
                ["in.jpg", "out.png", "--size", size],
                "Error: --size must be N, WxH, Wx or xH, each from 1 to 1000000, and may end in >, < or !; not "
                    + "'\(size)'", 2
            )
        } + [
            (["missing.jpg", "out.png", "--size", "20"], "Error: missing.jpg: no such file", 1),
            (["in.jpg", "out.png"], "Error: Missing expected argument '--size <size>'", 2),
            (
                ["in.jpg", "out.png", "--size", "20", "--fit", "sideways"],
                "Error: --fit must be one of down, both, up, force, not 'sideways'", 2
            ),
            (
                ["in.jpg", "out.png", "--size", "20!", "--fit", "down"],
                "Error: --size '20!' asks for fit force, --fit for down: give one", 2
            ),
            (
                ["in.jpg", "out.png", "--size", "20", "--interpolation", "cubic"],
                "Error: --interpolation must be one of nearest, bilinear, bicubic, lanczos3, not 'cubic'", 2
            ),
            (
                ["in.jpg", "out.gif", "--size", "20"],
                "Error: out.gif: GIF is read, not written: use .png or .webp (lossless) instead", 1
            ),
            (
                ["in.jpg", "out.jpg", "--size", "20", "--quality", "0"],
                "Error: out.jpg: quality must be from 1 to 100, not 0", 1
            ),
            (
                ["in.jpg", "out.png", "--size", "20", "--depth", "float"],
                "Error: out.png: PNG holds 8- or 16-bit samples, not float", 1
            ),
            (
                ["in.jpg", "no/out.png", "--size", "20"],
                "Error: no/out.png: cannot write: the folder no does not exist", 1
            ),
            (
                ["in.jpg", "out.png", "--size", "20", "--max-pixels", "100"],
                "Error: in.jpg: 40x24 is more than the limit of 100 pixels (raise the limit: --max-pixels, or "
                    + "maxPixels in a graph)", 1
            ),
        ]

    /// Each mistake: the exact line, its status, no signal, and nothing written.
    @Test(arguments: Self.mistakes)
    func mistakesAreOneLine(_ mistake: (arguments: [String], message: String, status: Int32)) throws {
        let (arguments, message, status) = mistake
        try withPhoto { folder in
            let result = try CLI.run(["thumbnail"] + arguments, in: folder)
            #expect(result.status == status && !result.signaled, "\(result.stderr)")
            let lines = result.stderr.split(separator: "\n")
            #expect(lines.count == 1, "\(result.stderr)")
            let hint = status == 2 ? " (see 'tessera thumbnail --help')" : ""
            #expect(result.stderr == message + hint + "\n", "\(result.stderr)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["in.jpg"])
        }
    }

    /// A damaged file fails while the pixels are read, after the output was opened: the temporary file
    /// is removed and an existing output is kept as it was.
    @Test func aFailureLeavesTheExistingOutputAlone() throws {
        try withTemporaryFolder { folder in
            let bytes = try Data(contentsOf: CLI.fixtures.appendingPathComponent("jpeg/color-baseline.jpg"))
            try bytes.prefix(bytes.count * 2 / 3).write(to: folder.appendingPathComponent("cut.jpg"))
            try Data("old".utf8).write(to: folder.appendingPathComponent("out.png"))
            let result = try CLI.run(
                ["thumbnail", "cut.jpg", "out.png", "--size", "20", "--fail-on", "truncated"], in: folder)
            #expect(result.status == 1 && !result.signaled)
            #expect(
                result.stderr.hasPrefix("Error: cut.jpg: JPEG: ") && result.stderr.split(separator: "\n").count == 1)
            #expect(try Data(contentsOf: folder.appendingPathComponent("out.png")) == Data("old".utf8))
            #expect(
                try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == ["cut.jpg", "out.png"])
        }
    }
}
