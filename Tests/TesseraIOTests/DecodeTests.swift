import Foundation
import Testing
import TesseraCore
@testable import TesseraIO

@Suite struct DecodeTests {
    @Test(arguments: Fixture.all)
    func decodesLikeTheIndependentDecoder(_ fixture: Fixture) throws {
        let (info, image) = try ImageFile.load(path: fixture.path)
        #expect(info.format.rawValue == fixture.format)
        #expect(
            ImageFormat.detect(try Data(contentsOf: URL(fileURLWithPath: fixture.path)))?.rawValue == fixture.format)
        #expect(info.width == fixture.width && info.height == fixture.height)
        #expect(image.layout == fixture.pixelLayout, "layout")
        let expectedDepth: SampleDepth =
            fixture.sampleType == "float" ? .float32 : (fixture.bitDepth > 8 ? .uint16 : .uint8)
        #expect(image.depth == expectedDepth, "sample depth")
        try expectPixels(try image.pixels(), match: fixture)
    }

    @Test(arguments: Fixture.all.filter { $0.expectedStored != nil })
    func keepsTheStoredOrientationWhenAsked(_ fixture: Fixture) throws {
        let (info, image) = try ImageFile.load(path: fixture.path, options: DecodeOptions(appliesOrientation: false))
        #expect(info.orientation == fixture.orientation)
        #expect(!info.orientationApplied)
        try expectPixels(try image.pixels(), match: fixture, stored: true)
    }

    @Test(arguments: Fixture.all.filter { $0.format == "tiff" })
    func tiffRegionsMatchTheWholeImage(_ fixture: Fixture) throws {
        let (_, image) = try ImageFile.load(path: fixture.path)
        let whole = try image.pixels()
        // Regions that start and end mid-strip and mid-tile, and single pixels at the corners.
        let regions = [
            Rect(x: 3, y: 4, width: 20, height: 13), Rect(x: 0, y: 0, width: 1, height: 1),
            Rect(x: image.width - 1, y: image.height - 1, width: 1, height: 1),
            Rect(x: 15, y: 0, width: 2, height: image.height), Rect(x: 0, y: 9, width: image.width, height: 3),
        ].map { $0.intersection(image.extent) }.filter { !$0.isEmpty }
        for region in regions {
            let part = try image.pixels(in: region)
            #expect(part == whole.cropped(to: region), "\(region)")
        }
    }
}

@Suite struct StreamingTests {
    /// Tiles of `image` in a shuffled but fixed order.
    func shuffledTiles(_ image: Image, side: Int, seed: UInt64) -> [Rect] {
        var state = seed
        return image.extent.tiles(width: side, height: side).map { tile -> (UInt64, Rect) in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return (state, tile)
        }.sorted { $0.0 < $1.0 }.map(\.1)
    }

    @Test(arguments: Fixture.all.filter { $0.format != "tiff" && $0.width > 8 && $0.height > 8 })
    func anyTilingGivesTheSamePixels(_ fixture: Fixture) throws {
        let whole = try ImageFile.load(path: fixture.path).1.pixels()
        for (side, seed) in [(7, 1 as UInt64), (16, 2), (5, 3)] {
            let (_, image) = try ImageFile.load(path: fixture.path)
            var assembled = PixelBuffer(region: image.extent, channels: image.channels, value: .nan)
            for tile in shuffledTiles(image, side: side, seed: seed) {
                assembled.copy(from: try image.pixels(in: tile))
            }
            #expect(assembled == whole, "tiles of \(side) in shuffled order")
        }
    }

    @Test func downwardBandsDecodeEachRowOnce() throws {
        let fixture = try #require(Fixture.all.first { $0.file == "jpeg/color-progressive-optimized-large.jpg" })
        for path in [fixture.path, Fixture.folder.appendingPathComponent("png/rgb-8bit.png").path] {
            let (_, image) = try ImageFile.load(path: path)
            let source = try #require(image.source as? RowStreamSource)
            for band in image.extent.tiles(width: image.width, height: 10) {
                // Two tiles across each band: the second is served from the band already decoded.
                for tile in band.tiles(width: (image.width + 1) / 2, height: 10) { _ = try image.pixels(in: tile) }
            }
            #expect(source.restarts == 0)
            _ = try image.pixels(in: Rect(x: 0, y: 0, width: 1, height: 1))
            #expect(source.restarts == 1, "going back up starts again from the top")
        }
    }

    @Test func aDamagedFileFailsTheSameWayEveryTime() throws {
        try withTemporaryFolder { folder in
            let data = try Data(contentsOf: Fixture.folder.appendingPathComponent("png/rgb-8bit.png"))
            let path = folder.appendingPathComponent("cut.png").path
            try data.prefix(data.count / 2).write(to: URL(fileURLWithPath: path))
            let (_, image) = try ImageFile.load(path: path, options: DecodeOptions(failOn: .truncated))
            // Whichever region is asked first, and again later: the same error, no second decode.
            let expected = ImageError(path: path, message: "PNG: the file ends early (truncated)")
            #expect(throws: expected) { try image.pixels() }
            #expect(throws: expected) { try image.pixels(in: Rect(x: 0, y: 0, width: 1, height: 1)) }
        }
    }
}
