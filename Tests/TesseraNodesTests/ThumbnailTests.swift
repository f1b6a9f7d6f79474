import Foundation
import Testing
import TesseraCore
import TesseraIO
@testable import TesseraCatalog
@testable import TesseraGraph
@testable import TesseraPluginHost
@testable import TesseraRunner
@testable import TesseraNodes
import TesseraTesting

/// The `thumbnail` node: its sizing (tables), its choice of DCT shrink, and its pixels against the same
/// pipeline in Pillow (Scripts/make-shrink-fixtures.py: a 203x149 JPEG of the example photo).
@Suite struct ThumbnailTests {
    let verifier = NodeVerifier()

    func thumbnail(
        _ file: String, _ parameters: [String: any ParameterValue],
        sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) throws -> Image {
        var parameters = parameters
        parameters["path"] = FilePath(written: file, resolved: file.hasPrefix("/") ? file : Fixtures.path(file))
        let outputs = try verifier.verify(Thumbnail.self, parameters: parameters)
        return try #require(outputs["output"], sourceLocation: sourceLocation).image()
    }

    // MARK: Sizing

    /// (image, box, fit) -> thumbnail size.
    static let sizes: [((Int, Int), (Int?, Int?), Thumbnail.Fit, (Int, Int))] = [
        ((6400, 4270), (320, 320), .down, (320, 214)),  // 213.5 rounds up
        ((4270, 6400), (320, 320), .down, (214, 320)),
        ((6400, 4270), (320, 100), .down, (150, 100)),  // the height decides
        ((6400, 4270), (320, nil), .down, (320, 214)),
        ((6400, 4270), (nil, 100), .down, (150, 100)),
        ((200, 100), (320, 320), .down, (200, 100)),  // inside the box: never enlarged
        ((200, 100), (320, 320), .both, (320, 160)),
        ((200, 100), (320, 320), .up, (320, 160)),
        ((6400, 4270), (320, 320), .up, (6400, 4270)),  // larger than the box: only enlarged
        ((6400, 4270), (320, 320), .both, (320, 214)),
        ((6400, 4270), (320, 240), .force, (320, 240)),
        ((6400, 4270), (320, nil), .force, (320, 4270)),
        ((100, 1), (10, 10), .down, (10, 1)),  // never below a pixel
        ((320, 214), (320, 320), .down, (320, 214)),
    ]

    @Test func sizesFitTheBox() {
        for (full, box, fit, expected) in Self.sizes {
            let size = Thumbnail.fitted((full.0, full.1), in: (box.0, box.1), fit: fit)
            #expect(size == expected, "\(full) in \(box) \(fit): \(size)")
        }
    }

    /// vips_thumbnail's rule: the largest shrink leaving the resize a factor of 2 or more.
    @Test func theShrinkLeavesAFactorOfTwo() {
        let cases: [((Int, Int), (Int, Int), Int)] = [
            ((6400, 4270), (320, 214), 8),  // factor 20
            ((5120, 3840), (320, 240), 8),  // exactly 16
            ((5119, 3840), (320, 240), 4),  // just under 16
            ((2560, 1920), (320, 240), 4),  // 8
            ((1600, 1067), (320, 213), 2),  // 5
            ((1200, 900), (320, 240), 1),  // 3.75
            ((6400, 4270), (320, 4270), 1),  // force: one side is not shrunk
        ]
        for (full, target, expected) in cases {
            let shrink = Thumbnail.loadShrink(from: (full.0, full.1), to: (target.0, target.1))
            #expect(shrink == expected, "\(full) -> \(target): \(shrink)")
        }
    }

    // MARK: Pixels

    /// The boxes of the fixtures, and the shrink each decodes at: 12 (1/8), 24 (1/4), 40 (1/2).
    static let boxes = [12, 24, 40]

    /// Against Pillow's pipeline: its DCT-scaled decode (`draft`), resized with LANCZOS on float images,
    /// mapping the part the file covers (`box`; the last pixels hold partial blocks). Pillow weighs a
    /// partial pixel as a whole one, where the resize weighs what the file covers of it, so the output
    /// pixels whose filter reaches one (the last column and row, 2 to 4 pixels in) are left out here;
    /// the next test holds them to the full decode. Measured on the rest: at most 2.4e-7 apart (the
    /// decodes are identical; the resize's own difference from Pillow); tolerance 1e-6.
    @Test(arguments: boxes)
    func matchesPillowsPipeline(_ box: Int) throws {
        let image = try thumbnail("shrink-photo.jpg", ["size": box])
        let reference = try Fixtures.reference("shrink-photo-thumb\(box).f32")
        #expect(image.width == reference.width && image.height == reference.height)
        let shrink = [12: 8, 24: 4, 40: 2][box] ?? 1
        // The output columns and rows whose taps include the last, partial, decoded pixel.
        func reachingPartial(_ side: Int, _ output: Int) -> Set<Int> {
            let decoded = (side + shrink - 1) / shrink
            let axis = Resize.Axis(
                input: decoded, output: output, filter: .lanczos3, part: (0, Double(side) / Double(shrink)))
            return Set((0..<output).filter { axis.first[$0] + axis.count[$0] == decoded })
        }
        let columns = reachingPartial(203, image.width)
        let rows = reachingPartial(149, image.height)
        #expect(columns.count <= 4 && rows.count <= 4)
        let pixels = try image.pixels()
        var largest: Float = 0
        for y in 0..<image.height where !rows.contains(y) {
            for x in 0..<image.width where !columns.contains(x) {
                for c in 0..<3 {
                    let index = y * image.width + x
                    largest = max(
                        largest, abs(pixels.samples[index * 4 + c] - reference.samples[index * reference.channels + c]))
                }
            }
        }
        print("thumbnail \(box) vs Pillow's pipeline, away from the partial pixels: max \(largest)")
        #expect(largest <= 1e-6, "\(box): max \(largest)")
    }

    /// Without shrink-on-load, the same resize of the full decode. Measured: at most 4.2e-7; the same
    /// tolerance.
    @Test(arguments: boxes)
    func withoutShrinkOnLoadItIsTheFullDecodeResized(_ box: Int) throws {
        let image = try thumbnail("shrink-photo.jpg", ["size": box, "shrinkOnLoad": false])
        let diff = difference(try image.pixels(), try Fixtures.reference("shrink-photo-full\(box).f32"), channels: 3)
        print("thumbnail \(box) without shrink-on-load vs Pillow: max \(diff.max)")
        #expect(diff.max <= 1e-6, "\(box): max \(diff.max)")
    }

    /// What shrink-on-load costs in accuracy, against a full decode and the same resize, on this sharp
    /// photo (its own resolution, a face and a flag; softer photos differ less: Docs/HowItWorks.md).
    /// Measured, in levels of 255: box 12 (1/8) mean 1.56, max 7.8; box 24 (1/4) mean 0.73, max 4.8;
    /// box 40 (1/2) mean 0.35, max 3.5 (weighing the partial pixels as whole ones, as Pillow does: max
    /// 14.4, 19.3 and 11.2, all in the last rows). Not within 2/255 at every pixel: the thumbnail leaves
    /// the resize a factor of 2, as libvips does, for speed.
    /// Tolerances: mean 2, max 10.
    @Test(arguments: boxes)
    func shrinkOnLoadIsNearTheFullDecode(_ box: Int) throws {
        let fast = try thumbnail("shrink-photo.jpg", ["size": box]).pixels()
        let diff = difference(fast, try Fixtures.reference("shrink-photo-full\(box).f32"), channels: 3)
        print("thumbnail \(box): shrink-on-load vs full decode, mean \(diff.mean * 255), max \(diff.max * 255) levels")
        #expect(diff.mean <= 2 / 255 && diff.max <= 10 / 255, "\(box): mean \(diff.mean * 255), max \(diff.max * 255)")
    }

    /// The box applies to the upright image: a 40x24 photo stored turned (orientation 6) is 24x40
    /// upright, so a 10-pixel box makes it 6x10, the stored top-left (red) at the top right.
    @Test func theOrientationIsAppliedFirst() throws {
        let image = try thumbnail(Fixtures.codecPath("jpeg/orient-6.jpg"), ["size": 10])
        #expect(image.width == 6 && image.height == 10)
        let pixels = try image.pixels()
        #expect(pixels[5, 0, 0] > 0.6 && pixels[5, 0, 1] < 0.4, "red at the top right")
        let kept = try thumbnail(Fixtures.codecPath("jpeg/orient-6.jpg"), ["size": 10, "keepOrientation": true])
        #expect(kept.width == 10 && kept.height == 6)
    }

    /// With an orientation, the partial blocks of a DCT-scaled image come first on a mirrored axis, and
    /// the resize maps the file's part from that corner: the upright thumbnail is the stored one turned.
    /// The photo (203x149, partial blocks at 1/4) gets each EXIF orientation in turn; box 24 decodes at
    /// 1/4. Measured: at most 3e-7 apart (weights of mirrored positions); tolerance 1e-5. Mapping the
    /// part from the top-left whatever the orientation gave 0.085 to 0.27 (orientations 2 to 4, 6 to 8).
    @Test(arguments: 1...8)
    func aTurnedThumbnailIsTheStoredOneTurned(_ orientation: Int) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-thumb-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("turned.jpg").path
        var bytes = try Data(contentsOf: URL(fileURLWithPath: Fixtures.path("shrink-photo.jpg")))
        bytes.insert(contentsOf: Self.exif(orientation: orientation), at: 2)  // after SOI
        try bytes.write(to: URL(fileURLWithPath: file))
        let upright = try thumbnail(file, ["size": 24]).pixels()
        let stored = try thumbnail(file, ["size": 24, "keepOrientation": true]).pixels()
        let (w, h) = (stored.region.width, stored.region.height)
        #expect((w, h) == (24, 18))
        var worst: Float = 0
        for y in 0..<upright.region.height {
            for x in 0..<upright.region.width {
                let (sx, sy) = LoadTests.stored(x, y, orientation: orientation, width: w, height: h)
                for c in 0..<3 { worst = max(worst, abs(upright[x, y, c] - stored[sx, sy, c])) }
            }
        }
        print("thumbnail turned by \(orientation) vs the stored one turned: max \(worst)")
        #expect(worst <= 1e-5, "orientation \(orientation): max \(worst)")
    }

    /// An APP1 segment whose Exif IFD0 holds only the orientation tag (big-endian TIFF).
    static func exif(orientation: Int) -> [UInt8] {
        [0xFF, 0xE1, 0x00, 0x22] + Array("Exif\0\0".utf8) + [0x4D, 0x4D, 0x00, 0x2A, 0x00, 0x00, 0x00, 0x08]
            + [0x00, 0x01, 0x01, 0x12, 0x00, 0x03, 0x00, 0x00, 0x00, 0x01, 0x00, UInt8(orientation), 0x00, 0x00]
            + [0x00, 0x00, 0x00, 0x00]
    }

    /// Other formats are shrunk as they decode (the same shrinks as a JPEG's): a PNG (or a TIFF) averaged
    /// over blocks, a still WebP by libwebp's rescaler. The photo's decoded pixels written as a PNG and
    /// as a lossless WebP give thumbnails as near Pillow's full resize as the JPEG's DCT scaling does.
    /// Measured, in levels of 255: PNG box 12 (1/8) mean 1.37, max 6.8; box 24 (1/4) mean 0.71, max 4.9;
    /// box 40 (1/2) mean 0.30, max 3.3; WebP mean 1.31, 0.81 and 0.49, max 5.7, 6.3 and 3.5.
    /// Tolerances: the JPEG's, mean 2, max 10.
    @Test(arguments: boxes, ["png", "webp"])
    func otherFormatsShrinkNearTheFullResize(_ box: Int, _ format: String) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-thumbnail-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("photo.\(format)").path
        var lossless = EncodeOptions()
        lossless.lossless = true
        try ImageFile.save(try ImageFile.load(path: Fixtures.path("shrink-photo.jpg")).1, to: file, options: lossless)
        let image = try thumbnail(file, ["size": box])
        let diff = difference(try image.pixels(), try Fixtures.reference("shrink-photo-full\(box).f32"), channels: 3)
        print("thumbnail \(box) of a \(format) vs the full resize: mean \(diff.mean * 255), max \(diff.max * 255)")
        #expect(diff.mean <= 2 / 255 && diff.max <= 10 / 255, "\(box): mean \(diff.mean * 255), max \(diff.max * 255)")
        let full = try thumbnail(file, ["size": box, "shrinkOnLoad": false])
        let whole = difference(try full.pixels(), try Fixtures.reference("shrink-photo-full\(box).f32"), channels: 3)
        #expect(whole.max <= 1e-6, "\(box): without shrink-on-load, max \(whole.max)")
    }

    // MARK: The streamed resize

    /// The thumbnail's resize, streamed row by row, gives the resize node's bits: the same kernels,
    /// weights by absolute coordinate, sums in the same order.
    @Test(arguments: Resize.Interpolation.allCases)
    func theStreamedResizeIsTheResizeNode(_ interpolation: Resize.Interpolation) throws {
        for image in [TestImages.rgba(), TestImages.rgba(alpha: false), TestImages.gray()] {
            for (width, height) in [(37, 29), (7, 5), (150, 97), (131, 20)] {
                let node = try verifier.verify(
                    Resize.self, parameters: ["width": width, "height": height, "interpolation": interpolation],
                    inputs: ["input": .image(image)])
                let expected = try #require(node["output"]).image().pixels()
                let streamed = Resize.streamed(image, to: (width, height), interpolation: interpolation)
                #expect(try streamed.pixels() == expected, "\(interpolation) \(width)x\(height)")
            }
        }
    }
}
