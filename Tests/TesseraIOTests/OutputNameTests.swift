import Foundation
import Testing
import TesseraCore

@testable import TesseraIO

/// Outputs the file system accepts are written, whatever their names, and a tile is never allocated
/// larger than the image needs.
@Suite struct OutputNameTests {
    static let pixel = Image(
        buffer: PixelBuffer(region: Rect(width: 3, height: 2), channels: 4, samples: Array(repeating: 0.5, count: 24)),
        layout: .rgba, depth: .uint8)

    /// Names of up to 255 bytes (NAME_MAX), in ASCII and in two-byte characters: the temporary name
    /// beside them (a hidden prefix and about 30 bytes of suffix) must fit too.
    @Test(arguments: [
        String(repeating: "a", count: 251) + ".png", String(repeating: "é", count: 125) + ".png",
        String(repeating: "b", count: 226) + ".png",
    ])
    func longNamesAreWritten(name: String) throws {
        try withTemporaryFolder { folder in
            let path = folder.appendingPathComponent(name).path
            try ImageFile.save(Self.pixel, to: path)
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == [name])
            #expect(try ImageFile.info(path: path).width == 3)
        }
    }

    @Test func temporaryNamesFitAndStayUnique() {
        for name in ["a.png", String(repeating: "x", count: 255), String(repeating: "€", count: 85)] {
            let temporary = FileSystem.temporaryName(for: name)
            #expect(temporary.utf8.count <= 255 && temporary.hasPrefix(".") && temporary.hasSuffix(".tmp"))
            #expect(temporary != FileSystem.temporaryName(for: name))
        }
    }

    /// A tile larger than the image is written as the image's longer side rounded up to 16: its buffer is
    /// allocated whole, so a 4096 tile on a 3x2 image must not take 4096 x 4096 pixels.
    @Test func aTileLargerThanTheImageIsCutToIt() throws {
        try withTemporaryFolder { folder in
            let path = folder.appendingPathComponent("t.tif").path
            var options = EncodeOptions()
            options.tileSize = EncodeOptions.largestTile
            try ImageFile.save(Self.pixel, to: path, options: options)
            #expect(try ImageFile.info(path: path).details.contains { $0.contains("tiles 16x16") })
        }
    }
}
