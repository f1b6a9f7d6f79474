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

            // Asked again, the region comes from the tiles decoded last.
            _ = try reader.image.pixels(in: region)
            #expect(reader.chunksDecoded == touched)

            // Aligned to the grid, the same size touches 4 x 4 tiles.
            let fresh = try TIFFReader(path: path)
            _ = try fresh.image.pixels(in: Rect(x: 5120, y: 7168, width: 1000, height: 1000))
            #expect(fresh.chunksDecoded == 16)
        }
    }
}

@Suite struct DoubleTIFFTests {
    @Test func float64SamplesAreNarrowedToFloat32() throws {
        try withTemporaryFolder { folder in
            let path = folder.appendingPathComponent("double.tif").path
            let values: [Double] = [0, 0.25, -0.5, 2, 1e-3, 0.1, 1, 0.75, 3.5, -1, 0.2, 0.3, 0.4, 0.6, 0.9]
            var error = [CChar](repeating: 0, count: 1024)
            let handle = try #require(tsr_tiff_open(path, "w", &error, 1024))
            _ = tsr_tiff_set_u32(handle, UInt32(TIFFTAG_IMAGEWIDTH), 5)
            _ = tsr_tiff_set_u32(handle, UInt32(TIFFTAG_IMAGELENGTH), 3)
            _ = tsr_tiff_set_u32(handle, UInt32(TIFFTAG_ROWSPERSTRIP), 2)
            for (tag, value) in [
                (TIFFTAG_BITSPERSAMPLE, 64), (TIFFTAG_SAMPLESPERPIXEL, 1),
                (TIFFTAG_SAMPLEFORMAT, Int(SAMPLEFORMAT_IEEEFP)),
                (TIFFTAG_PHOTOMETRIC, Int(PHOTOMETRIC_MINISBLACK)), (TIFFTAG_PLANARCONFIG, Int(PLANARCONFIG_CONTIG)),
            ] {
                _ = tsr_tiff_set_u16(handle, UInt32(tag), UInt16(value))
            }
            for strip in 0..<2 {
                var rows = Array(values[(strip * 10)..<min(values.count, strip * 10 + 10)])
                let written = rows.withUnsafeMutableBytes {
                    TIFFWriteEncodedStrip(handle.pointee.tif, UInt32(strip), $0.baseAddress, tmsize_t($0.count))
                }
                #expect(written > 0)
            }
            tsr_tiff_close(handle)

            let (info, image) = try ImageFile.load(path: path)
            #expect(info.isFloat && info.bitsPerSample == 64 && image.depth == .float32)
            #expect(try image.pixels().samples == values.map(Float.init))
        }
    }
}
