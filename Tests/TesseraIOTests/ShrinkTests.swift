import CImageShims
import Foundation
import Testing
import TesseraCore

@testable import TesseraIO

/// `DecodeOptions.shrink`: sizes, limits and the JPEG reader's scaled decode. The pixels are checked
/// against Pillow in Tests/TesseraNodesTests/LoadTests.swift.
@Suite struct ShrinkTests {
    static func path(_ name: String) -> String { Fixture.folder.appendingPathComponent(name).path }

    /// libjpeg itself decodes at the scaled size: the reader opened with a shrink reports ceil(side /
    /// shrink) and delivers exactly that many rows of that many pixels, then the file ends. Without
    /// DCT scaling (a full decode averaged afterwards) it would deliver the whole image.
    @Test(arguments: [1, 2, 4, 8])
    func theJPEGReaderDecodesOnlyTheScaledPixels(_ shrink: Int) throws {
        let file = Self.path("jpeg/color-progressive-optimized-large.jpg")  // 127x95
        var info = tsr_jpeg_info()
        var error = ShimError()
        let reader = try #require(
            tsr_jpeg_open(
                file, Int32(TSR_FAIL_ON_NONE), &info, 0, UInt32(shrink), &error.buffer, ShimError.capacity))
        defer { tsr_jpeg_close(reader) }
        let (width, height) = ((127 + shrink - 1) / shrink, (95 + shrink - 1) / shrink)
        #expect((info.width, info.height) == (127, 95))
        #expect((Int(info.output_width), Int(info.output_height)) == (width, height))
        var row = [UInt8](repeating: 0, count: width * 3)
        var rows = 0
        while rows < height, tsr_jpeg_read_rows(reader, &row, row.count, 1, &error.buffer, ShimError.capacity) == 0 {
            rows += 1
        }
        #expect(rows == height, "\(error.message)")
        #expect(tsr_jpeg_finish(reader, &error.buffer, ShimError.capacity) == 0, "\(error.message)")

        let decoder = try JPEGCodec.RowDecoder(
            path: file, options: DecodeOptions(maxMemory: 1 << 30), shrink: shrink)
        let pixels = try decoder.decodeAll()
        #expect(pixels.region == Rect(width: width, height: height))
    }

    /// Every format gives the same size for a shrink; `info` says what `load` gives, and the file's size.
    @Test(arguments: ["jpeg/color-baseline.jpg", "png/rgb-8bit.png", "jpeg/gray-progressive.jpg"])
    func everyFormatShrinksToTheSameSize(_ name: String) throws {
        for shrink in DecodeOptions.shrinkFactors {
            let options = DecodeOptions(shrink: shrink)
            let info = try ImageFile.info(path: Self.path(name), options: options)
            let (loaded, image) = try ImageFile.load(path: Self.path(name), options: options)
            let size = ((61 + shrink - 1) / shrink, (47 + shrink - 1) / shrink)
            #expect((info.width, info.height) == size && info == loaded)
            #expect((info.fullWidth, info.fullHeight) == (61, 47) && info.shrink == shrink)
            #expect((image.width, image.height) == size)
            #expect(try image.pixels().region == Rect(width: size.0, height: size.1))
        }
        let tiff = try ImageFile.load(path: Self.path("tiff/rgb-8bit-tiles-lzw.tif"), options: DecodeOptions(shrink: 8))
        #expect((tiff.1.width, tiff.1.height) == (5, 3))
    }

    @Test func otherShrinksAreRefused() throws {
        for read in [
            { _ = try ImageFile.info(path: Self.path("png/rgb-8bit.png"), options: DecodeOptions(shrink: 3)) },
            { _ = try ImageFile.load(path: Self.path("jpeg/color-baseline.jpg"), options: DecodeOptions(shrink: 16)) },
        ] {
            #expect {
                try read()
            } throws: { error in
                (error as? ImageError)?.message.hasPrefix("the shrink must be 1, 2, 4 or 8, not ") == true
            }
        }
    }

    /// The memory limit counts the decode as it is done: a JPEG at 1/8 needs its rows at 1/8 of the
    /// width, so it passes a limit the full decode is refused by; the pixel limit still counts the
    /// pixels the header claims.
    @Test func theLimitsCountTheScaledDecode() throws {
        let file = Self.path("jpeg/color-baseline.jpg")
        let tight = DecodeOptions(maxMemory: 4096)
        #expect {
            try ImageFile.load(path: file, options: tight)
        } throws: { error in
            (error as? ImageError)?.message.hasPrefix("JPEG: decoding 61x47 pixels needs 53.2 KiB at once") == true
        }
        var scaled = tight
        scaled.shrink = 8
        #expect(try ImageFile.load(path: file, options: scaled).1.pixels().region == Rect(width: 8, height: 6))
        scaled.maxMemory = 128
        #expect {
            try ImageFile.load(path: file, options: scaled)
        } throws: { error in
            (error as? ImageError)?.message.hasPrefix("JPEG: decoding 8x6 pixels (1/8 of 61x47) needs") == true
        }
        #expect(throws: ImageError.self) {
            try ImageFile.load(path: file, options: DecodeOptions(maxPixels: 61 * 47 - 1, shrink: 8))
        }
    }

    /// Where the file's pixels lie in a shrunk image: the partial blocks are the stored image's last
    /// column and row, which the orientation may move to the first.
    @Test func theContentLeavesOutThePartialBlocks() throws {
        let info = try ImageFile.info(path: Self.path("jpeg/color-baseline.jpg"), options: DecodeOptions(shrink: 8))
        #expect(info.content == (0, 0, 61.0 / 8, 47.0 / 8))
        var turned = info
        turned.orientationApplied = true
        let expected: [Int: (Double, Double)] = [
            1: (0, 0), 2: (8 - 61.0 / 8, 0), 3: (8 - 61.0 / 8, 6 - 47.0 / 8), 4: (0, 6 - 47.0 / 8),
            5: (0, 0), 6: (8 - 61.0 / 8, 0), 7: (8 - 61.0 / 8, 6 - 47.0 / 8), 8: (0, 6 - 47.0 / 8),
        ]
        for (orientation, origin) in expected {
            turned.orientation = orientation
            #expect((turned.content.x, turned.content.y) == origin, "orientation \(orientation)")
        }
        let whole = try ImageFile.info(path: Self.path("jpeg/color-baseline.jpg"))
        #expect(whole.content == (0, 0, 61, 47))
    }
}
