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
