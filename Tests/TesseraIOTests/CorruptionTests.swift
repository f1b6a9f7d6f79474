import Foundation
import Testing
import TesseraCore
import TesseraIO

/// Damaged files, made by a seeded generator: every one must decode or fail with an error naming the
/// file. A trap or a signal would end the test process, which fails the run.
@Suite struct CorruptionTests {
    static let samples = [
        "png/rgba-16bit.png", "png/palette-4bit-trns.png", "png/rgb-8bit-interlaced.png", "png/gray-1bit.png",
        "tiff/rgb-8bit-tiles-lzw.tif", "tiff/rgba-32f-tiles-deflate-fpred.tif", "tiff/rgb-8bit-strips-jpeg.tif",
        "tiff/rgb-8bit-planar-strips-deflate.tif", "jpeg/color-progressive.jpg", "jpeg/orient-6.jpg",
    ]

    @Test(arguments: samples)
    func damagedFilesFailCleanly(_ name: String) throws {
        let original = [UInt8](try Data(contentsOf: Fixture.folder.appendingPathComponent(name)))
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15 ^ UInt64(original.count)
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        try withTemporaryFolder { folder in
            let path = folder.appendingPathComponent("damaged." + (name as NSString).pathExtension).path
            var failures = 0
            for round in 0..<60 {
                var bytes = original
                switch round % 3 {
                case 0: for _ in 0...next(5) { bytes[next(bytes.count)] = UInt8(next(256)) }
                case 1: bytes.removeLast(1 + next(bytes.count - 1))
                default:
                    bytes.insert(contentsOf: (0..<1 + next(40)).map { _ in UInt8(next(256)) }, at: next(bytes.count))
                }
                try Data(bytes).write(to: URL(fileURLWithPath: path))
                do {
                    _ = try ImageFile.load(path: path).1.pixels()
                } catch let error as ImageError {
                    failures += 1
                    #expect(error.path == path && !error.message.isEmpty)
                }
            }
            #expect(failures > 0, "some damage is detected")
        }
    }

    /// A PNG whose only damage is its image data's Adler-32 (the stream's last 4 bytes), each chunk's CRC
    /// made right again: every row is intact. Below `--fail-on error` it reads as the intact file (libvips
    /// reads it at every level), without computing the Adler-32, since the IDAT CRCs cover those bytes;
    /// at `error` it is refused.
    @Test func aDamagedAdler32AloneIsReadBelowError() throws {
        let intact = Fixture.folder.appendingPathComponent("png/rgb-8bit.png").path
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: intact)))
        // The last IDAT chunk: its data's last byte is the Adler-32's.
        var position = 8
        var lastIDAT: (start: Int, length: Int)?
        while position + 12 <= bytes.count {
            let length = bytes[position..<position + 4].reduce(0) { $0 << 8 | Int($1) }
            if bytes[position + 4..<position + 8].elementsEqual("IDAT".utf8) { lastIDAT = (position, length) }
            position += 12 + length
        }
        let chunk = try #require(lastIDAT)
        bytes[chunk.start + 8 + chunk.length - 1] ^= 0x55
        let crc = Self.crc32(bytes[chunk.start + 4..<chunk.start + 8 + chunk.length])
        for (index, shift) in [24, 16, 8, 0].enumerated() {
            bytes[chunk.start + 8 + chunk.length + index] = UInt8(truncatingIfNeeded: crc >> UInt32(shift))
        }
        try withTemporaryFolder { folder in
            let path = folder.appendingPathComponent("adler.png").path
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            let expected = try ImageFile.load(path: intact).1.pixels()
            for level in [FailOn.none, .truncated] {
                #expect(try ImageFile.load(path: path, options: DecodeOptions(failOn: level)).1.pixels() == expected)
            }
            #expect(throws: ImageError(path: path, message: "PNG: IDAT: incorrect data check")) {
                _ = try ImageFile.load(path: path, options: DecodeOptions(failOn: .error)).1.pixels()
            }
        }
    }

    /// CRC-32 as PNG computes it (ISO 3309), bit by bit: a test's own, independent of zlib's.
    static func crc32(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }
}
