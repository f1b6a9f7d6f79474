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
            let info = try ImageFile.info(path: path)
            #expect(info.width * info.height > 1 << 30, "the header really claims \(info.width)x\(info.height)")
            do {
                _ = try ImageFile.load(path: path)
                Issue.record("a \(info.width)x\(info.height) header was accepted")
            } catch let error as ImageError {
                #expect(error.path == path)
                #expect(error.message.contains("more than the limit of 1073741824 pixels"), "\(error.message)")
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
}
