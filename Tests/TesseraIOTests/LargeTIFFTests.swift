import CImageShims
import CTIFF
import Foundation
import Testing
import TesseraCore
import TesseraIO

/// A 20000x20000 tiled TIFF, written straight through libtiff so that making it costs little: every
/// tile is one of a few prepared patterns, and the pixel value at (x, y) is a known function of both.
@Suite(.serialized) struct LargeTIFFTests {
    static let side = 20000
    static let tile = 256

    static func value(x: Int, y: Int) -> UInt8 {
        let tileIndex = (y / tile) * ((side + tile - 1) / tile) + x / tile
        return UInt8(truncatingIfNeeded: (tileIndex % 7) * 31 + (y % tile) + (x % tile) / 16)
    }

    static func write(to path: String) throws {
        var error = [CChar](repeating: 0, count: 1024)
        let handle = try #require(tsr_tiff_open(path, "w", &error, 1024))
        defer { tsr_tiff_close(handle) }
        for (tag, value) in [
            (TIFFTAG_IMAGEWIDTH, side), (TIFFTAG_IMAGELENGTH, side), (TIFFTAG_TILEWIDTH, tile),
            (TIFFTAG_TILELENGTH, tile),
        ] {
            _ = tsr_tiff_set_u32(handle, UInt32(tag), UInt32(value))
        }
        for (tag, value) in [
            (TIFFTAG_BITSPERSAMPLE, 8), (TIFFTAG_SAMPLESPERPIXEL, 1),
            (TIFFTAG_PHOTOMETRIC, Int(PHOTOMETRIC_MINISBLACK)),
            (TIFFTAG_COMPRESSION, Int(COMPRESSION_ADOBE_DEFLATE)), (TIFFTAG_PLANARCONFIG, Int(PLANARCONFIG_CONTIG)),
        ] {
            _ = tsr_tiff_set_u16(handle, UInt32(tag), UInt16(value))
        }
        _ = tsr_tiff_set_u16(handle, UInt32(TIFFTAG_ZIPQUALITY), 1)
        // The pattern inside a tile depends only on tileIndex % 7: prepare the seven tiles once.
        let patterns: [[UInt8]] = (0..<7).map { k in
            (0..<(tile * tile)).map { i in UInt8(truncatingIfNeeded: k * 31 + i / tile + (i % tile) / 16) }
        }
        let across = (side + tile - 1) / tile
        let tif = handle.pointee.tif
        for index in 0..<(across * across) {
            var bytes = patterns[index % 7]
            let written = bytes.withUnsafeMutableBytes {
                TIFFWriteEncodedTile(tif, UInt32(index), $0.baseAddress, tmsize_t($0.count))
            }
            #expect(written > 0)
        }
    }

    @Test func aRegionDecodesOnlyTheTilesItTouches() throws {
        try withTemporaryFolder { folder in
            let path = folder.appendingPathComponent("huge.tif").path
            try Self.write(to: path)
            let reader = try TIFFReader(path: path)
            #expect(reader.info.width == Self.side && reader.info.height == Self.side)
            #expect(reader.chunksDecoded == 0, "opening decodes nothing")
            #expect(reader.preferredTileSize?.width == Self.tile)

            // 1000x1000 not aligned to the grid: columns 19...23 and rows 27...31 of 256-pixel tiles.
            let region = Rect(x: 5000, y: 7000, width: 1000, height: 1000)
            let touched =
                ((region.maxX - 1) / Self.tile - region.minX / Self.tile + 1)
                * ((region.maxY - 1) / Self.tile - region.minY / Self.tile + 1)
            #expect(touched == 25)
            let pixels = try reader.image.pixels(in: region)
            #expect(reader.chunksDecoded == touched)
            var wrong = 0
            for y in region.minY..<region.maxY {
                for x in region.minX..<region.maxX
                where UInt8((pixels[x, y, 0] * 255).rounded()) != Self.value(x: x, y: y) {
                    wrong += 1
                }
            }
            #expect(wrong == 0)

            // Aligned to the grid, the same size touches 4 x 4 tiles.
            _ = try reader.image.pixels(in: Rect(x: 5120, y: 7168, width: 1000, height: 1000))
            #expect(reader.chunksDecoded == touched + 16)
        }
    }
}
