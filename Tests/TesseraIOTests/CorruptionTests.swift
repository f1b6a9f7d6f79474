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
}
