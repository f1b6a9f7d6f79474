import Foundation
import Testing
import TesseraCore

@testable import TesseraIO

/// WebP, GIF, HEIC and AVIF against independent decoders and encoders (Scripts/make-format-fixtures.sh,
/// Fixtures/formats/README.md): dwebp, libvips' GIF loader (libnsgif), heif-convert, cwebp.
@Suite struct FormatTests {
    static func path(_ name: String) -> String { Fixture.folder.appendingPathComponent("formats/\(name)").path }

    static func pixels(_ name: String, options: DecodeOptions = DecodeOptions()) throws -> PixelBuffer {
        try ImageFile.load(path: path(name), options: options).1.pixels()
    }

    /// The largest difference in 8-bit steps, over RGB where the reference is opaque and over alpha.
    static func steps(_ ours: PixelBuffer, _ reference: PixelBuffer) -> Int {
        #expect(ours.region == reference.region && ours.channels == reference.channels)
        var largest = 0
        for pixel in 0..<(ours.samples.count / ours.channels) {
            let base = pixel * ours.channels
            let opaque = ours.channels == 1 || reference.samples[base + 3] == 1
            for c in 0..<ours.channels where opaque || c == 3 {
                let a = Int((ours.samples[base + c] * 255).rounded())
                let b = Int((reference.samples[base + c] * 255).rounded())
                largest = max(largest, abs(a - b))
            }
        }
        return largest
    }

    /// Peak signal-to-noise ratio over RGB, in dB.
    static func psnr(_ a: PixelBuffer, _ b: PixelBuffer) -> Double {
        var total = 0.0
        var count = 0
        for (index, (x, y)) in zip(a.samples, b.samples).enumerated() where index % 4 != 3 {
            let d = Double(x - y) * 255
            total += d * d
            count += 1
        }
        return 10 * log10(255 * 255 / (total / Double(count)))
    }

    @Test(arguments: [
        ("webp-lossless.webp", "webp-lossless.png"), ("webp-alpha.webp", "webp-alpha.png"),
        ("webp-lossy.webp", "webp-lossy-dwebp.png"), ("gif-palette.gif", "gif-palette.png"),
        ("gif-transparent.gif", "gif-transparent.png"), ("heic-rgb.heic", "heic-rgb-ref.png"),
        ("avif-rgb.avif", "avif-rgb-ref.png"),
    ])
    func decodesAsTheReferenceDecoderDoes(_ file: String, _ reference: String) throws {
        let (info, image) = try ImageFile.load(path: Self.path(file))
        let theirs = try Self.pixels(reference)
        #expect(
            image.layout
                == (theirs.channels == 4 && file.contains("alpha") || file.contains("transparent") ? .rgba : .rgb))
        #expect(info.format.rawValue == (file as NSString).pathExtension)
        // Lossless files and palettes exactly; lossy ones through the same libraries, exactly too here.
        #expect(Self.steps(try image.pixels(), theirs) == 0)
    }

    /// A region of a whole-decoded image is that part of the whole (the frame is kept as 8-bit
    /// samples and each request converts its own rows). Asked first, it decodes a still WebP only down
    /// to its last row; the whole image then decodes the rest.
    @Test(arguments: ["webp-alpha.webp", "webp-lossy.webp", "webp-lossless.webp", "gif-palette.gif", "heic-rgb.heic"])
    func regionsAreCutFromTheFrame(_ file: String) throws {
        let image = try ImageFile.load(path: Self.path(file)).1
        let region = Rect(x: 5, y: 7, width: 20, height: 11)
        var part = PixelBuffer(region: region, channels: image.channels)
        try image.source.render(into: &part)
        let whole = try image.pixels()
        for y in 0..<region.height {
            let start = ((region.y + y) * image.width + region.x) * image.channels
            let row = Array(whole.samples[start..<(start + region.width * image.channels)])
            #expect(Array(part.samples[(y * region.width * image.channels)...].prefix(row.count)) == row, "row \(y)")
        }
    }

    /// A GIF frame is shown over the ones before it: frame 1 keeps 5 pixels of frame 0 (transparent in it).
    @Test(arguments: [1, 2])
    func gifFramesAreComposited(_ frame: Int) throws {
        var options = DecodeOptions()
        options.frame = frame
        let info = try ImageFile.info(path: Self.path("gif-animated.gif"), options: options)
        #expect(info.details.contains("animated, 3 frames (frame \(frame) is read)"))
        #expect(info.details.contains("delay \(frame * 100 + 100) ms"))
        let theirs = try Self.pixels("gif-animated-frame\(frame).png")
        #expect(Self.steps(try Self.pixels("gif-animated.gif", options: options), theirs) == 0)
        options.frame = 3
        #expect(throws: ImageError.self) { try ImageFile.load(path: Self.path("gif-animated.gif"), options: options) }
    }

    /// WebP's ICCP, EXIF and XMP chunks are read; the EXIF orientation turns it upright, as in JPEG.
    @Test func webpMetadataIsReadAndItsOrientationApplied() throws {
        let (info, image) = try ImageFile.load(path: Self.path("webp-metadata.webp"))
        #expect(info.orientation == 6 && info.orientationApplied && (image.width, image.height) == (48, 64))
        let profile = try #require(image.metadata.iccProfile)
        #expect(try ColorProfile(bytes: profile).description == "sP3C")
        #expect(image.metadata.orientation == 1)
        #expect(String(decoding: try #require(image.metadata.xmp), as: UTF8.self).contains("Tessera tests"))
        #expect(image.metadata.exifSummary.contains { $0 == ("camera", "Tessera Test Camera") })
    }

    /// HEIF turns images with its own boxes (libheif applies them); EXIF's orientation is not applied
    /// (the HEIF standard, libvips and heif-convert agree), and is reset in what is kept.
    @Test func heifKeepsItsProfileAndIgnoresTheEXIFOrientation() throws {
        let (info, image) = try ImageFile.load(path: Self.path("heic-orientation.heic"))
        #expect((image.width, image.height) == (64, 48) && !info.orientationApplied)
        #expect(try ColorProfile(bytes: try #require(image.metadata.iccProfile)).description == "sP3C")
        #expect(image.metadata.orientation == 1)
        #expect(image.metadata.exifSummary.contains { $0 == ("camera", "Tessera Test Camera") })
        // heif-convert copied the EXIF (orientation 6) into its PNG without turning the pixels: compare as stored.
        var stored = DecodeOptions()
        stored.appliesOrientation = false
        #expect(Self.steps(try image.pixels(), try Self.pixels("heic-orientation-ref.png", options: stored)) <= 1)
    }

    /// Lossless WebP gives back every sample, alpha and the colors under transparent pixels included.
    @Test(arguments: ["webp-alpha.png", "webp-lossless.png"])
    func losslessWebPRoundTripsExactly(_ source: String) throws {
        try withTemporaryFolder { folder in
            let image = try ImageFile.load(path: Self.path(source)).1
            let file = folder.appendingPathComponent("out.webp").path
            var options = EncodeOptions()
            options.lossless = true
            try ImageFile.save(image, to: file, options: options)
            #expect(try ImageFile.load(path: file).1.pixels() == image.pixels())
            #expect(try ImageFile.info(path: file).details == ["lossless"])
        }
    }

    /// Lossy WebP at quality 80 is as close to the source as cwebp's at -q 80 (webp-lossy.webp), within
    /// 0.25 dB, and far from it in bytes' worth of detail: a real lossy encode.
    @Test func lossyWebPMatchesCwebp() throws {
        try withTemporaryFolder { folder in
            let source = try ImageFile.load(path: Self.path("webp-lossless.png")).1
            let file = folder.appendingPathComponent("out.webp").path
            var options = EncodeOptions()
            options.quality = 80
            try ImageFile.save(source, to: file, options: options)
            let original = try source.pixels()
            let ours = Self.psnr(try ImageFile.load(path: file).1.pixels(), original)
            let cwebp = Self.psnr(try Self.pixels("webp-lossy-dwebp.png"), original)
            #expect(abs(ours - cwebp) < 0.25, "ours \(ours) dB, cwebp \(cwebp) dB")
            #expect(ours < 45)
        }
    }

    /// HEIC (x265) and AVIF (aom) writes read back close to the source at quality 75, with the profile
    /// and EXIF kept. Without a quality they are written at libvips' 50: the same bytes as quality 50.
    @Test(arguments: ["heic", "avif"])
    func heifWritesReadBack(_ suffix: String) throws {
        let format = try ImageFormat.forWriting(path: "x.\(suffix)")
        try #require(HEIFCodec.encoder(for: format) != nil, "this libheif has no encoder for \(suffix)")
        try withTemporaryFolder { folder in
            let source = try ImageFile.load(path: Fixture.folder.appendingPathComponent("metadata.jpg").path).1
            let file = folder.appendingPathComponent("out.\(suffix)").path
            var options = EncodeOptions()
            for quality in [nil, 50] {
                options.quality = quality
                try ImageFile.save(
                    source, to: folder.appendingPathComponent("q\(quality ?? 0).\(suffix)").path, options: options)
            }
            let byDefault = try Data(contentsOf: folder.appendingPathComponent("q0.\(suffix)"))
            let at50 = try Data(contentsOf: folder.appendingPathComponent("q50.\(suffix)"))
            #expect(!byDefault.isEmpty && byDefault == at50)
            options.quality = 75
            try ImageFile.save(source, to: file, options: options)
            let (info, back) = try ImageFile.load(path: file)
            #expect(info.format == format && (back.width, back.height) == (source.width, source.height))
            #expect(Self.psnr(try back.pixels(), try source.pixels()) > 30)
            #expect(back.metadata.iccProfile == source.metadata.iccProfile)
            #expect(back.metadata.exifSummary.contains { $0 == ("copyright", "CC0 test fixture") })
        }
    }

    /// TIFF's Orientation tag (274) and PNG's eXIf chunk turn the image upright as JPEG's EXIF does;
    /// exiftool sets them on a copy of a fixture, and the expected pixels are the stored ones turned by
    /// index arithmetic here.
    @Test(arguments: [
        ("tiff/rgb-8bit-strips-lzw-pred.tif", 3), ("tiff/rgb-8bit-strips-lzw-pred.tif", 6),
        ("tiff/rgb-8bit-strips-lzw-pred.tif", 8), ("png/rgb-8bit.png", 6),
    ])
    func orientationIsApplied(_ fixture: String, _ orientation: Int) throws {
        try withTemporaryFolder { folder in
            let file = folder.appendingPathComponent("turned." + (fixture as NSString).pathExtension).path
            try FileManager.default.copyItem(atPath: Fixture.folder.appendingPathComponent(fixture).path, toPath: file)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/exiftool")
            process.arguments = ["-q", "-overwrite_original", "-Orientation#=\(orientation)", file]
            try process.run()
            process.waitUntilExit()
            try #require(process.terminationStatus == 0)
            var keep = DecodeOptions()
            keep.appliesOrientation = false
            let stored = try ImageFile.load(path: file, options: keep).1.pixels()
            let (info, image) = try ImageFile.load(path: file)
            #expect(info.orientation == orientation && info.orientationApplied)
            #expect(try ImageFile.info(path: file) == info)
            let turned = try image.pixels()
            let (w, h) = (stored.region.width, stored.region.height)
            #expect(turned.region.width == (orientation == 3 ? w : h))
            for y in 0..<turned.region.height {
                for x in 0..<turned.region.width {
                    let (sx, sy) =
                        switch orientation {
                        case 3: (w - 1 - x, h - 1 - y)
                        case 6: (y, h - 1 - x)
                        default: (w - 1 - y, x)
                        }
                    let a = (y * turned.region.width + x) * 4
                    let b = (sy * w + sx) * 4
                    if turned.samples[a..<(a + 4)] != stored.samples[b..<(b + 4)] {
                        Issue.record("pixel \(x),\(y) is not stored pixel \(sx),\(sy)")
                        return
                    }
                }
            }
        }
    }

    @Test func formatsAreToldByContent() throws {
        for (file, format) in [
            ("webp-lossy.webp", ImageFormat.webp), ("gif-palette.gif", .gif), ("heic-rgb.heic", .heic),
            ("avif-rgb.avif", .avif),
        ] {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: Self.path(file)))
            #expect(ImageFormat.detect(bytes) == format, "\(file)")
            #expect(ImageFormat.detect(bytes.prefix(11)) == nil || format == .gif, "\(file): too short to tell")
        }
    }
}
