import Foundation
import Testing
import TesseraCore
import TesseraIO

/// Headers that claim huge images are refused before any pixel memory is allocated: a 65535 x 65535
/// RGBA Float32 image would need 68 GB, so reaching the allocation would kill the test process.
@Suite struct LimitTests {
    static func fixture(_ name: String) throws -> Data {
        try Data(contentsOf: Fixture.folder.appendingPathComponent(name))
    }

    /// CRC-32 as PNG uses it (ISO 3309), written out here so the test does not depend on the code under test.
    static func crc32(_ bytes: some Sequence<UInt8>) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    static func bigEndian(_ value: UInt32) -> [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) } }

    static func hugePNG() throws -> Data {
        var data = try fixture("png/rgba-8bit.png")
        // IHDR data starts at byte 16: width, height; its CRC covers "IHDR" and the 13 data bytes.
        data.replaceSubrange(16..<24, with: bigEndian(65535) + bigEndian(65535))
        data.replaceSubrange(29..<33, with: bigEndian(crc32(data[12..<29])))
        return data
    }

    static func hugeJPEG() throws -> Data {
        var data = try fixture("jpeg/color-baseline.jpg")
        // SOF0 (FF C0): length (2), precision (1), height (2), width (2); libjpeg's own cap is 65500.
        let bytes = [UInt8](data)
        let sof = try #require((0..<bytes.count - 1).first { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xC0 })
        data.replaceSubrange((sof + 5)..<(sof + 9), with: [0xFD, 0xE8, 0xFD, 0xE8])  // 65000 x 65000
        return data
    }

    static func hugeTIFF() throws -> Data {
        var bytes = [UInt8](try fixture("tiff/gray-8bit-strips-none.tif"))
        #expect(bytes[0] == 0x49, "little-endian fixture")
        func u16(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 }
        let ifd = u16(4) | u16(6) << 16
        for entry in 0..<u16(ifd) {
            let at = ifd + 2 + entry * 12
            if u16(at) == 256 || u16(at) == 257 {  // ImageWidth, ImageLength
                let type = u16(at + 2)
                let value: [UInt8] = type == 3 ? [0xA0, 0x86, 0, 0] : [0xA0, 0x86, 0x01, 0]  // 100000 as LONG
                bytes.replaceSubrange((at + 8)..<(at + 12), with: type == 3 ? [0xFF, 0xFF, 0, 0] : value)
            }
        }
        return Data(bytes)
    }

    @Test(arguments: ["png", "jpg", "tif"])
    func hugeHeadersAreRefused(kind: String) throws {
        try withTemporaryFolder { folder in
            let path = folder.appendingPathComponent("huge.\(kind)").path
            let data = try kind == "png" ? Self.hugePNG() : kind == "jpg" ? Self.hugeJPEG() : Self.hugeTIFF()
            try data.write(to: URL(fileURLWithPath: path))
            // `info` refuses what `load` refuses, with the same message.
            for read in [{ _ = try ImageFile.info(path: path) }, { _ = try ImageFile.load(path: path) }] {
                do {
                    try read()
                    Issue.record("a huge header was accepted")
                } catch let error as ImageError {
                    #expect(error.path == path)
                    #expect(error.message.contains("is more than the limit of 1073741824 pixels"), "\(error.message)")
                }
            }
        }
    }

    @Test func theLimitCanBeLowered() throws {
        let path = Fixture.folder.appendingPathComponent("png/rgb-8bit.png").path
        #expect(
            throws: ImageError(
                path: path,
                message:
                    "61x47 is more than the limit of 2000 pixels (raise the limit: --max-pixels, or maxPixels in a graph)"
            )
        ) {
            try ImageFile.load(path: path, options: DecodeOptions(maxPixels: 2000))
        }
        #expect(try ImageFile.load(path: path, options: DecodeOptions(maxPixels: 61 * 47)).1.width == 61)
    }

    @Test func infoHonoursThePixelLimit() throws {
        let path = Fixture.folder.appendingPathComponent("png/rgb-8bit.png").path
        #expect(throws: ImageError.self) { try ImageFile.info(path: path, options: DecodeOptions(maxPixels: 2000)) }
        #expect(try ImageFile.info(path: path, options: DecodeOptions(maxPixels: 61 * 47)).width == 61)
    }

    /// Each codec counts the memory its decoding needs at once, and refuses more than `maxMemory` before
    /// allocating, with the same kind of message as the pixel limit.
    @Test(arguments: [
        ("png/rgba-16bit.png", "PNG: decoding 37x23 pixels needs 20.5 KiB at once"),
        ("png/rgb-8bit-interlaced.png", "PNG: decoding 37x23 pixels needs 16 KiB at once"),
        ("jpeg/color-progressive.jpg", "JPEG: decoding 61x47 pixels needs 62.2 KiB at once"),
        ("jpeg/orient-6.jpg", "JPEG: decoding"),
        ("tiff/rgb-8bit-tiles-lzw.tif", "TIFF: keeping 6 tiles of 16x16 pixels decoded needs 4.5 KiB at once"),
        ("tiff/rgb-8bit-strips-lzw-pred.tif", "TIFF: keeping"),
        ("tiff/rgb-8bit-planar-strips-deflate.tif", "TIFF: keeping"),
    ])
    func theMemoryLimitIsCheckedBeforeDecoding(name: String, message: String) throws {
        let path = Fixture.folder.appendingPathComponent(name).path
        let tight = DecodeOptions(maxMemory: 1024)
        for read in [
            { _ = try ImageFile.info(path: path, options: tight) },
            { _ = try ImageFile.load(path: path, options: tight) },
        ] {
            do {
                try read()
                Issue.record("\(name) was read within 1 KiB")
            } catch let error as ImageError {
                #expect(error.path == path)
                #expect(error.message.hasPrefix(message), "\(error.message)")
                #expect(
                    error.message.hasSuffix(
                        "more than the limit of 1 KiB (raise the limit: --max-memory, or maxMemory in a graph)"),
                    "\(error.message)")
            }
        }
        #expect(
            try ImageFile.load(path: path, options: DecodeOptions(maxMemory: 64 << 20)).1.pixels().samples.count > 0)
    }

    /// Writers pad a small image to one tile of their usual size: a 256x256 tile over a 16x16 image
    /// (Scripts/make-bomb-fixtures.py) is valid and decodes; only tiles far past the image are refused.
    @Test func aTileLargerThanASmallImageDecodes() throws {
        let path = Fixture.folder.appendingPathComponent("bombs/tile-256-over-16x16.tif").path
        let pixels = try ImageFile.load(path: path).1.pixels()
        #expect(pixels.region == Rect(width: 16, height: 16))
        // Each tile row holds 0, 1, ..., 255: the image's column x is x / 255.
        #expect(abs(pixels.samples[5] - 5 / 255) < 1e-6)
        #expect(abs(pixels.samples[16 * 9 + 15] - 15 / 255) < 1e-6)
    }

    @Test func byteCountsReadAndPrintInBinaryUnits() {
        #expect(DecodeOptions.parseBytes("4096") == 4096)
        #expect(DecodeOptions.parseBytes("512M") == 512 << 20)
        #expect(DecodeOptions.parseBytes("2G") == 2 << 30)
        #expect(DecodeOptions.parseBytes("2GiB") == 2 << 30)
        #expect(DecodeOptions.parseBytes("1.5g") == 3 << 29)
        #expect(DecodeOptions.parseBytes("10KB") == 10 << 10)
        for bad in ["", "G", "-1", "0", "many", "1e30"] { #expect(DecodeOptions.parseBytes(bad) == nil, "\(bad)") }
        #expect(DecodeOptions.describe(bytes: 512) == "512 B")
        #expect(DecodeOptions.describe(bytes: 4 << 30) == "4 GiB")
        #expect(DecodeOptions.describe(bytes: 21_000) == "20.5 KiB")
        #expect(DecodeOptions(maxMemory: 0).maxMemory == DecodeOptions.defaultMaxMemory)
        #expect(DecodeOptions.defaultMaxMemory > 0)
    }
}
