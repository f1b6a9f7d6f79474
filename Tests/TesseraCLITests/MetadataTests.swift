import Foundation
import Testing

/// Profiles and metadata through graphs, as a user meets them: `tessera` on a photo with a Display P3
/// profile, EXIF (Orientation 6, so turned upright on load) and XMP (`Scripts/make-metadata-fixtures.sh`),
/// every output read back by exiftool, an independent reader.
@Suite struct MetadataTests {
    static let photo = CLI.fixtures.appendingPathComponent("metadata.jpg")

    static func exiftool(_ arguments: [String]) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/exiftool")
        process.arguments = arguments
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return data
    }

    /// The embedded ICC profile's bytes, empty when there is none.
    static func profile(_ file: URL) throws -> Data { try exiftool(["-b", "-ICC_Profile", file.path]) }

    /// Every tag exiftool reads, by name, values as numbers where they are (`-n`).
    static func tags(_ file: URL) throws -> [String: String] {
        let json = try JSONSerialization.jsonObject(with: exiftool(["-j", "-n", file.path]))
        let object = try #require((json as? [[String: Any]])?.first)
        return object.mapValues { "\($0)" }
    }

    /// Runs a graph in `folder` whose node `photo` loads a copy of the fixture, followed by `nodes`
    /// (YAML lines indented by two spaces); the run must succeed.
    static func runGraph(_ nodes: String, in folder: URL) throws {
        try FileManager.default.copyItem(at: photo, to: folder.appendingPathComponent("photo.jpg"))
        try ("version: 1\nnodes:\n  photo: { op: load, path: photo.jpg }\n" + nodes + "\n")
            .write(to: folder.appendingPathComponent("g.yaml"), atomically: true, encoding: .utf8)
        let result = try CLI.run(["run", "g.yaml", "--quiet"], in: folder)
        #expect(result.status == 0, "\(result.stderr)")
    }

    static let kept = [
        "Make", "Model", "Copyright", "DateTimeOriginal", "ExposureTime", "ISO", "GPSLatitude", "Creator",
    ]

    @Test func aGraphKeepsTheProfileAndTheMetadata() throws {
        try withTemporaryFolder { folder in
            try Self.runGraph(
                """
                  soft: { op: gaussianBlur, input: photo, sigma: 1 }
                  a: { op: save, input: soft, path: out.jpg }
                  b: { op: save, input: soft, path: out.png }
                  c: { op: save, input: soft, path: out.tif }
                  d: { op: save, input: soft, path: stripped.jpg, profile: none, metadata: strip }
                  e: { op: save, input: soft, path: out.webp }
                  f: { op: save, input: soft, path: out.heic }
                  g: { op: save, input: soft, path: out.avif }
                  h: { op: save, input: soft, path: stripped.webp, profile: none, metadata: strip }
                """, in: folder)

            let profile = try Self.profile(Self.photo)
            let input = try Self.tags(Self.photo)
            #expect(profile.count > 128 && input["Orientation"] == "6" && input["Make"] == "Tessera")
            for name in ["out.jpg", "out.png", "out.tif", "out.webp", "out.heic", "out.avif"] {
                let file = folder.appendingPathComponent(name)
                #expect(try Self.profile(file) == profile, "\(name): the profile's bytes")
                let output = try Self.tags(file)
                // Turned upright on load: 48x64, and the orientation says so.
                #expect(output["ImageWidth"] == "48" && output["ImageHeight"] == "64", "\(name)")
                #expect(output["Orientation"] == "1", "\(name)")
                #expect(output["Creator"] == input["Creator"], "\(name): XMP")
                for tag in Self.kept { #expect(output[tag] == input[tag], "\(name): \(tag)") }
                // TIFF gives its size in its own tags; EXIF's pixel dimensions are for compressed images.
                let exifSize = name == "out.tif" ? [nil, nil] : ["48", "64"]
                #expect([output["ExifImageWidth"], output["ExifImageHeight"]] == exifSize, "\(name)")
            }
            for name in ["stripped.jpg", "stripped.webp"] {
                let stripped = try Self.tags(folder.appendingPathComponent(name))
                #expect(try Self.profile(folder.appendingPathComponent(name)).isEmpty)
                for tag in Self.kept + ["Orientation"] { #expect(stripped[tag] == nil, "\(name): \(tag)") }
            }
        }
    }

    @Test func convertKeepsThem() throws {
        try withTemporaryFolder { folder in
            let out = folder.appendingPathComponent("photo.png")
            let result = try CLI.run(["convert", Self.photo.path, out.path])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(try Self.profile(out) == Self.profile(Self.photo))
            #expect(try Self.tags(out)["Copyright"] == "CC0 test fixture")
        }
    }

    /// `--profile srgb` converts the P3 pixels and embeds an sRGB profile: the output, read as exiftool
    /// reads it, says sRGB, and its pixels are no longer the input's.
    @Test func convertToSRGB() throws {
        try withTemporaryFolder { folder in
            let kept = folder.appendingPathComponent("kept.png")
            let srgb = folder.appendingPathComponent("srgb.png")
            #expect(try CLI.run(["convert", Self.photo.path, kept.path]).status == 0)
            let result = try CLI.run(["convert", Self.photo.path, srgb.path, "--profile", "srgb"])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(try Self.tags(srgb)["ProfileDescription"] == "sRGB")
            #expect(try Self.tags(kept)["ProfileDescription"] == "sP3C")
            #expect(try Data(contentsOf: srgb) != Data(contentsOf: kept))
            #expect(try Self.tags(srgb)["Copyright"] == "CC0 test fixture")
        }
    }

    /// `info` shows what exiftool reads: the profile's description and the main EXIF fields.
    @Test func infoShowsTheProfileAndTheCameraData() throws {
        let result = try CLI.run(["info", "--json", Self.photo.path])
        #expect(result.status == 0, "\(result.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let exif = try #require(object["exif"] as? [String: Any])
        let tags = try Self.tags(Self.photo)
        #expect(object["profile"] as? String == tags["ProfileDescription"])
        #expect(exif["camera"] as? String == "\(tags["Make"] ?? "") \(tags["Model"] ?? "")")
        #expect(exif["date"] as? String == tags["DateTimeOriginal"])
        #expect(exif["copyright"] as? String == tags["Copyright"])
        #expect(exif["gps"] as? Bool == true && tags["GPSLatitude"] != nil)
        let exposure = try #require(exif["exposure"] as? String)
        let time = try #require(Double(tags["ExposureTime"] ?? ""))
        #expect(exposure.contains("1/\(Int((1 / time).rounded())) s") && exposure.contains("ISO \(tags["ISO"] ?? "")"))
        let text = try CLI.run(["info", Self.photo.path]).stdout
        #expect(text.contains("profile:     sP3C") && text.contains("camera:      Tessera Test Camera"))
    }

    /// EXIF in a TIFF file (its first directory's camera tags and the EXIF and GPS directories, put
    /// there by exiftool, in either byte order) reaches a JPEG, and the TIFF's orientation is applied.
    @Test(arguments: ["tiff/rgb-8bit-strips-lzw-pred.tif", "tiff/rgb-16bit-bigendian-strips-lzw-pred.tif"])
    func aTIFFsEXIFReachesAJPEG(_ fixture: String) throws {
        try withTemporaryFolder { folder in
            let tiff = folder.appendingPathComponent("camera.tif")
            try FileManager.default.copyItem(at: CLI.fixtures.appendingPathComponent(fixture), to: tiff)
            _ = try Self.exiftool([
                "-q", "-overwrite_original", "-tagsFromFile", Self.photo.path, "-all:all", tiff.path,
            ])
            let input = try Self.tags(tiff)
            #expect(input["Orientation"] == "6" && input["GPSLatitude"] != nil, "exiftool wrote the tags")
            let jpeg = folder.appendingPathComponent("out.jpg")
            let result = try CLI.run(["convert", tiff.path, jpeg.path, "--depth", "8"])
            #expect(result.status == 0, "\(result.stderr)")
            let output = try Self.tags(jpeg)
            for tag in Self.kept where tag != "Creator" { #expect(output[tag] == input[tag], "\(tag)") }
            #expect(output["Orientation"] == "1")
            #expect(output["ImageWidth"] == input["ImageHeight"])
        }
    }

    /// An RGB profile describes color pixels: a gray output is written without it (and keeps the rest).
    @Test func aGrayImageLeavesTheRGBProfileBehind() throws {
        try withTemporaryFolder { folder in
            try Self.runGraph(
                """
                  gray: { op: grayscale, input: photo }
                  a: { op: save, input: gray, path: gray.jpg }
                  b: { op: save, input: gray, path: gray.png }
                """, in: folder)
            for name in ["gray.jpg", "gray.png"] {
                let file = folder.appendingPathComponent(name)
                #expect(try Self.profile(file).isEmpty, "\(name)")
                #expect(try Self.tags(file)["Make"] == "Tessera", "\(name)")
            }
        }
    }

    /// The resolution fields exiftool reads, by group and name ("JFIF:XResolution", "IFD0:XResolution",
    /// "PNG-pHYs:PixelsPerUnitX"), as numbers.
    static func resolution(_ file: URL) throws -> [String: String] {
        let fields = ["XResolution", "YResolution", "ResolutionUnit", "PixelsPerUnitX", "PixelsPerUnitY", "PixelUnits"]
        let data = try exiftool(["-j", "-n", "-a", "-G1"] + fields.map { "-" + $0 } + [file.path])
        let object = try #require((try JSONSerialization.jsonObject(with: data) as? [[String: Any]])?.first)
        return object.filter { $0.key != "SourceFile" }.mapValues { "\($0)" }
    }

    /// `dpi: 600` writes each format's own field (PNG pHYs in pixels per metre, JPEG's JFIF density, TIFF's
    /// tags, ResolutionUnit inch) and sets the photo's EXIF resolution (299.999 dpi) to match; unset, none
    /// is added and the EXIF's is kept as it came.
    @Test func saveWritesThePrintResolution() throws {
        try withTemporaryFolder { folder in
            try Self.runGraph(
                """
                  a: { op: save, input: photo, path: print.png, dpi: 600 }
                  b: { op: save, input: photo, path: print.jpg, dpi: 600 }
                  c: { op: save, input: photo, path: print.tif, dpi: 600 }
                  d: { op: save, input: photo, path: print.webp, dpi: 600 }
                  e: { op: save, input: photo, path: plain.png }
                  f: { op: save, input: photo, path: plain.tif }
                """, in: folder)
            func fields(_ name: String) throws -> [String: String] {
                try Self.resolution(folder.appendingPathComponent(name))
            }
            let inch = ["IFD0:XResolution": "600", "IFD0:YResolution": "600", "IFD0:ResolutionUnit": "2"]
            let phys = [
                "PNG-pHYs:PixelsPerUnitX": "23622", "PNG-pHYs:PixelsPerUnitY": "23622", "PNG-pHYs:PixelUnits": "1",
            ]
            let jfif = ["JFIF:XResolution": "600", "JFIF:YResolution": "600", "JFIF:ResolutionUnit": "1"]
            #expect(try fields("print.png") == inch.merging(phys) { $1 })
            #expect(try fields("print.jpg") == inch.merging(jfif) { $1 })
            #expect(try fields("print.tif") == inch)
            #expect(try fields("print.webp") == inch, "WebP: only the EXIF's")
            let kept = ["IFD0:XResolution": "299.999", "IFD0:YResolution": "299.999", "IFD0:ResolutionUnit": "2"]
            #expect(try fields("plain.png") == kept, "no pHYs")
            #expect(try fields("plain.tif") == kept)
        }
    }

    /// An image with no resolution: `convert --dpi 600` writes the formats' own fields (and `info` reads
    /// them back); without it, none is invented (JPEG's JFIF segment says only an aspect ratio, as
    /// libjpeg writes it by default).
    @Test func convertWritesDPIAndInventsNone() throws {
        try withTemporaryFolder { folder in
            let input = CLI.fixtures.appendingPathComponent("png/rgb-8bit.png")
            for name in ["print.png", "print.jpg", "print.tif", "plain.png", "plain.jpg", "plain.tif"] {
                let out = folder.appendingPathComponent(name)
                let dpi = name.hasPrefix("print") ? ["--dpi", "600"] : []
                let result = try CLI.run(["convert", input.path, out.path] + dpi)
                #expect(result.status == 0, "\(result.stderr)")
            }
            func fields(_ name: String) throws -> [String: String] {
                try Self.resolution(folder.appendingPathComponent(name))
            }
            #expect(try fields("print.png")["PNG-pHYs:PixelsPerUnitX"] == "23622")
            #expect(try fields("print.jpg")["JFIF:XResolution"] == "600")
            #expect(
                try fields("print.tif")
                    == ["IFD0:XResolution": "600", "IFD0:YResolution": "600", "IFD0:ResolutionUnit": "2"])
            #expect(try fields("plain.png").isEmpty)
            #expect(try fields("plain.tif").isEmpty)
            #expect(try fields("plain.jpg")["JFIF:ResolutionUnit"] == "0")
            for name in ["print.png", "print.jpg", "print.tif"] {
                let result = try CLI.run(["info", folder.appendingPathComponent(name).path])
                #expect(result.stdout.contains("resolution:  600 dpi"), "\(name): \(result.stdout)")
            }
            let plain = try CLI.run(["info", "--json", folder.appendingPathComponent("plain.jpg").path])
            #expect(!plain.stdout.contains("dpi"), "\(plain.stdout)")
        }
    }
}
