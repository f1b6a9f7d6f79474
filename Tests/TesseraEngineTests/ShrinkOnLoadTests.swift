import Foundation
import Testing

@testable import Tessera

/// Shrink-on-load in a running graph: what the run report says the decoding cost.
@Suite struct ShrinkOnLoadTests {
    static let photo = repositoryRoot.appendingPathComponent("Tests/TesseraNodesTests/Fixtures/shrink-photo.jpg")

    static let mosaic = repositoryRoot.appendingPathComponent("Tests/TesseraNodesTests/Fixtures/shrink-mosaic.jpg")

    static let png = repositoryRoot.appendingPathComponent("Tests/TesseraNodesTests/Fixtures/shrink-rgb.png")

    /// Runs `nodes` (the JPEG photo as `PHOTO`, a PNG as `PNG`) in `folder`.
    func run(_ nodes: [String], in folder: URL) throws -> RunReport {
        try Self.runGraph(
            nodes.map {
                $0.replacingOccurrences(of: "PHOTO", with: Self.photo.path)
                    .replacingOccurrences(of: "PNG", with: Self.png.path)
            }, in: folder)
    }

    /// Writes a graph of `nodes`, one a line, as `name` in `folder`, and runs it.
    @discardableResult
    static func runGraph(_ nodes: [String], named name: String = "g.yaml", in folder: URL) throws -> RunReport {
        let file = folder.appendingPathComponent(name)
        let text = (["version: 1", "nodes:"] + nodes.map { "  " + $0 }).joined(separator: "\n")
        try text.write(to: file, atomically: true, encoding: .utf8)
        return try Graph.load(path: file.path, catalog: .builtin()).run()
    }

    /// The pixels each node rendered, by name, running `nodes`.
    func renderedPixels(_ nodes: [String]) throws -> [String: Int] {
        try withTemporaryFolder { folder in
            let report = try run(nodes, in: folder)
            return Dictionary(uniqueKeysWithValues: report.nodes.map { ($0.node, $0.pixels) })
        }
    }

    /// Block averages and a thumbnail's resized samples are not file samples (`givesFileSamples`):
    /// read in two passes, such an image is kept whole in Float32, so each pass writes the samples a
    /// single pass writes (in 8 bits they would be rounded to 1/255). A DCT-scaled JPEG's are file
    /// samples, kept in 8 bits, and exact too.
    @Test(arguments: [
        "{ op: load, path: PNG, shrink: 4 }", "{ op: thumbnail, path: PHOTO, size: 24 }",
        "{ op: load, path: PHOTO, shrink: 2 }",
    ])
    func computedShrinksKeptWholeKeepTheirSamples(_ node: String) throws {
        try withTemporaryFolder { folder in
            func saved(_ name: String) throws -> PixelBuffer {
                try ImageFile.load(path: folder.appendingPathComponent(name).path).1.pixels()
            }
            let one = try run(["a: \(node)", "o: { op: save, input: a, path: one.tif, depth: float }"], in: folder)
            #expect(one.plan?.image("a")?.decision == .perPass)
            let two = try run(
                [
                    "a: \(node)", "o: { op: save, input: a, path: x.tif, depth: float }",
                    "p: { op: save, input: a, path: y.tif, depth: float }",
                ], in: folder)
            guard case .materialize = two.plan?.image("a")?.decision else {
                Issue.record(
                    "\(node) read in two passes is not kept whole: \(String(describing: two.plan?.image("a")))")
                return
            }
            let single = try saved("one.tif")
            #expect(try saved("x.tif") == single && saved("y.tif") == single, "\(node)")
        }
    }

    /// A 203x149 JPEG resized to 6 px: loaded with shrink 8, the load node renders its 26x19 pixels, 1/61
    /// of the 30,247 a plain load renders (`shrink: 1`); left to the plan (33.8x), it is decoded at 1/4,
    /// 51x38.
    @Test func aShrunkLoadRendersAFraction() throws {
        let resize = "small: { op: resize, input: photo, width: 6 }"
        let save = "out: { op: save, input: small, path: out.png }"
        let shrunk = try renderedPixels(["photo: { op: load, path: PHOTO, shrink: 8 }", resize, save])
        #expect(shrunk["photo"] == 26 * 19)
        let plain = try renderedPixels(["photo: { op: load, path: PHOTO, shrink: 1 }", resize, save])
        #expect(plain["photo"] == 203 * 149)
        let chosen = try renderedPixels(["photo: { op: load, path: PHOTO }", resize, save])
        #expect(chosen["photo"] == 51 * 38)
    }

    /// The thumbnail node streams its decode and resize: the run sees its output's pixels, once.
    @Test func aThumbnailRendersItsOutputOnce() throws {
        let pixels = try renderedPixels([
            "thumb: { op: thumbnail, path: PHOTO, size: 12 }", "out: { op: save, input: thumb, path: out.png }",
        ])
        #expect(pixels["thumb"] == 12 * 9)
    }

    // MARK: Chosen by the plan

    /// A photo-like JPEG of `side` x `side`: the example astronaut enlarged (lanczos3) and saved at quality
    /// 90, made in `folder` by a graph.
    static func photoJPEG(side: Int, in folder: URL) throws -> String {
        let path = folder.appendingPathComponent("photo-\(side).jpg")
        let made = try madePhotos.withLock { made in
            if let bytes = made[side] { return bytes }
            let bytes = try withTemporaryFolder { scratch in
                let astronaut = repositoryRoot.appendingPathComponent("Examples/images/astronaut.png").path
                let written = scratch.appendingPathComponent("photo.jpg")
                try runGraph(
                    [
                        "a: { op: load, path: \(astronaut) }",
                        "b: { op: resize, input: a, width: \(side), height: \(side), interpolation: lanczos3 }",
                        "c: { op: save, input: b, path: \(written.path), quality: 90 }",
                    ], named: "make.yaml", in: scratch)
                return try Data(contentsOf: written)
            }
            made[side] = bytes
            return bytes
        }
        try made.write(to: path)
        return path.path
    }

    /// The photos ``photoJPEG(side:in:)`` made, by side: made once for the tests that share them.
    static let madePhotos = Locked<[Int: Data]>([:])

    /// RGB noise, every sample drawn at random (a fixed seed), `width` x `height`, saved at quality 90:
    /// the most detail per pixel a JPEG holds.
    static func noiseJPEG(width: Int, height: Int, in folder: URL) throws -> String {
        var buffer = PixelBuffer(region: Rect(width: width, height: height), channels: 4)
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for y in 0..<height {
            for x in 0..<width {
                for c in 0..<3 {
                    state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                    buffer[x, y, c] = Float(state >> 40) / Float(1 << 24)
                }
                buffer[x, y, 3] = 1
            }
        }
        let path = folder.appendingPathComponent("noise.jpg").path
        try ImageFile.save(Image(buffer: buffer, layout: .rgb, depth: .uint8), to: path, options: EncodeOptions())
        return path
    }

    /// A JPEG at `path` loaded, resized by `resize` (a node named `small` reading `photo`) and saved as
    /// float; returns what was saved and the run's report. `shrink` is the load's, or none.
    func resized(_ path: String, _ resize: String, shrink: Int?, in folder: URL) throws -> (PixelBuffer, RunReport) {
        let out = folder.appendingPathComponent("out-\(shrink ?? 0).tif").path
        let report = try Self.runGraph(
            [
                "photo: { op: load, path: \(path)\(shrink.map { ", shrink: \($0)" } ?? "") }", "small: \(resize)",
                "out: { op: save, input: small, path: \(out), depth: float }",
            ], in: folder)
        return (try ImageFile.load(path: out).1.pixels(), report)
    }

    /// The largest and mean difference of two renders, in levels of 255, over red, green and blue.
    static func difference(_ a: PixelBuffer, _ b: PixelBuffer) -> (max: Double, mean: Double) {
        var largest = 0.0
        var total = 0.0
        for y in a.region.minY..<a.region.maxY {
            for x in a.region.minX..<a.region.maxX {
                for c in 0..<3 {
                    let d = Double(abs(a[x, y, c] - b[x, y, c])) * 255
                    largest = max(largest, d)
                    total += d
                }
            }
        }
        return (largest, total / Double(a.region.area * 3))
    }

    /// A JPEG whose only reader is a resize shrinking it 32 times or more is decoded at 1/4 or 1/8 (what
    /// the report's `load` pixels show), and the output is the size, and within 2/255, of the same graph
    /// decoding the whole file (`shrink: 1`). The mosaic of sharp photos (Scripts/make-shrink-fixtures.py)
    /// is the hard case: resized 14x it was decoded at 1/2 and came out 4.5 levels off, which is why 1/2
    /// is no longer chosen (RenderPlan.shrinkLeftToReaders). Measured (max / mean, levels of 255): the
    /// photo 0.37 / 0.06 at 1/4, 0.63 / 0.14 and 0.96 / 0.16 at 1/8; the noise 0.50 / 0.10, 0.58 / 0.15;
    /// the mosaic 1.82 / 0.12 at 1/4 (leaving 8), 1.01 / 0.20 at 1/8 (leaving 6).
    @Test(arguments: [
        ("photo", "{ op: resize, input: photo, width: 40 }", 4),
        ("photo", "{ op: resize, input: photo, width: 24, interpolation: lanczos3 }", 8),
        ("photo", "{ op: resize, input: photo, factor: 0.02, interpolation: bilinear }", 8),
        ("noise", "{ op: resize, input: photo, width: 24 }", 4),
        ("noise", "{ op: resize, input: photo, height: 10, interpolation: lanczos3 }", 8),
        ("mosaic", "{ op: resize, input: photo, width: 73, interpolation: lanczos3 }", 1),
        ("mosaic", "{ op: resize, input: photo, width: 32, interpolation: lanczos3 }", 4),
        ("mosaic", "{ op: resize, input: photo, width: 21, interpolation: lanczos3 }", 8),
    ])
    func aResizedJPEGIsDecodedSmallerAndWithinTwoLevels(image: String, resize: String, shrink: Int) throws {
        try withTemporaryFolder { folder in
            let path =
                switch image {
                case "photo": try Self.photoJPEG(side: 1536, in: folder)
                case "noise": try Self.noiseJPEG(width: 900, height: 600, in: folder)
                default: Self.mosaic.path
                }
            let (fast, report) = try resized(path, resize, shrink: nil, in: folder)
            let (whole, wholeReport) = try resized(path, resize, shrink: 1, in: folder)
            let plan = try #require(report.plan?.image("photo"))
            #expect(plan.shrinkOnLoad?.shrink ?? 1 == shrink)
            #expect(wholeReport.plan?.image("photo")?.shrinkOnLoad == nil)
            let full = try #require(plan.size)
            let decoded = try #require(plan.decodedSize)
            #expect(decoded.width == (full.width + shrink - 1) / shrink)
            // The output is at most 256 wide, one tile across: each decoded pixel is rendered once.
            #expect(report.nodes.first { $0.node == "photo" }?.pixels == decoded.width * decoded.height)
            #expect(wholeReport.nodes.first { $0.node == "photo" }?.pixels == full.width * full.height)
            #expect(fast.region == whole.region)
            let (largest, mean) = Self.difference(fast, whole)
            print("\(image) \(resize): decoded at 1/\(shrink), max \(largest), mean \(mean) levels off the full decode")
            #expect(largest <= 2, "\(image) at 1/\(shrink): max \(largest)")
        }
    }

    /// The graph sees the photo's full size: a `like` of it gives that size, though its pixels were
    /// decoded at 1/4.
    @Test func likeTakesTheFullSize() throws {
        try withTemporaryFolder { folder in
            let path = try Self.photoJPEG(side: 1536, in: folder)
            let out = folder.appendingPathComponent("big.png").path
            let report = try Self.runGraph(
                [
                    "photo: { op: load, path: \(path) }", "small: { op: resize, input: photo, width: 40 }",
                    "big: { op: resize, input: small, like: photo }", "out: { op: save, input: big, path: \(out) }",
                ], in: folder)
            #expect(report.plan?.image("photo")?.shrinkOnLoad?.shrink == 4)
            let info = try ImageFile.info(path: out)
            #expect(info.width == 1536 && info.height == 1536)
        }
    }

    /// A JPEG stored turned (EXIF orientation 6; 3, which puts the partial blocks first on both axes) is
    /// decoded smaller and turned, and resized to the same upright size as the whole decode, within
    /// 2/255 of it. The photo is cut to 1530x1003 as stored, so its blocks do not divide it.
    /// Measured: max 0.82 (6, at 1/8) and 0.32 (3, at 1/4) levels.
    @Test(arguments: [6, 3])
    func aTurnedJPEGIsDecodedSmallerUpright(orientation: Int) throws {
        try withTemporaryFolder { folder in
            let photo = try Self.photoJPEG(side: 1536, in: folder)
            let cut = folder.appendingPathComponent("cut.jpg").path
            try Self.runGraph(
                [
                    "a: { op: load, path: \(photo), shrink: 1 }", "b: { op: crop, input: a, rect: [3, 0, 1530, 1003] }",
                    "c: { op: save, input: b, path: \(cut), quality: 90 }",
                ], named: "cut.yaml", in: folder)
            var bytes = try Data(contentsOf: URL(fileURLWithPath: cut))
            bytes.insert(contentsOf: Self.exif(orientation: orientation), at: 2)  // after SOI
            let turned = folder.appendingPathComponent("turned.jpg").path
            try bytes.write(to: URL(fileURLWithPath: turned))
            let resize = "{ op: resize, input: photo, width: \(orientation == 6 ? 20 : 40) }"
            let (fast, report) = try resized(turned, resize, shrink: nil, in: folder)
            let (whole, _) = try resized(turned, resize, shrink: 1, in: folder)
            let plan = try #require(report.plan?.image("photo"))
            #expect(plan.size?.width == (orientation == 6 ? 1003 : 1530))
            #expect(plan.shrinkOnLoad?.shrink == (orientation == 6 ? 8 : 4))
            #expect(fast.region == whole.region)
            let (largest, mean) = Self.difference(fast, whole)
            print("orientation \(orientation): max \(largest), mean \(mean) levels off the full decode")
            #expect(largest <= 2, "orientation \(orientation): max \(largest)")
        }
    }

    /// An APP1 segment whose Exif IFD0 holds only the orientation tag (big-endian TIFF).
    static func exif(orientation: Int) -> [UInt8] {
        [0xFF, 0xE1, 0x00, 0x22] + Array("Exif\0\0".utf8) + [0x4D, 0x4D, 0x00, 0x2A, 0x00, 0x00, 0x00, 0x08]
            + [0x00, 0x01, 0x01, 0x12, 0x00, 0x03, 0x00, 0x00, 0x00, 0x01, 0x00, UInt8(orientation), 0x00, 0x00]
            + [0x00, 0x00, 0x00, 0x00]
    }
}
