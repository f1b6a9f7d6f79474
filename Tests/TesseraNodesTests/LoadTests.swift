import Foundation
import Testing
import TesseraCore
import TesseraIO
@testable import TesseraCatalog
@testable import TesseraGraph
@testable import TesseraPluginHost
@testable import TesseraRunner
@testable import TesseraNodes
import TesseraTesting

/// `load`'s shrink against references made by Pillow 9.4 with Debian's libjpeg-turbo 2.1.5, the
/// library Tessera links (Scripts/make-shrink-fixtures.py): a 203x149 crop of the example photo at its
/// own resolution, JPEG quality 90 in 4:2:0 and 4:4:4, and PNGs of 93x70 (sides not multiples of 8, so
/// the last blocks are partial).
@Suite struct LoadTests {
    let verifier = NodeVerifier()

    static let jpegs = ["shrink-photo", "shrink-photo-444"]
    static let shrinks: [Load.Shrink] = [.two, .four, .eight]

    /// The fixture `name` through the load node and the shared verifier (random tilings, as a graph).
    func loaded(
        _ file: String, shrink: Load.Shrink, keepOrientation: Bool = false,
        sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) throws -> Image {
        let path = FilePath(written: file, resolved: file.hasPrefix("/") ? file : Fixtures.path(file))
        let outputs = try verifier.verify(
            Load.self, parameters: ["path": path, "shrink": shrink, "keepOrientation": keepOrientation])
        return try #require(outputs["output"], sourceLocation: sourceLocation).image()
    }

    /// A JPEG shrunk by libjpeg's DCT scaling, as Pillow's `draft` asks libjpeg for it: the same
    /// samples (measured: identical, 0 levels apart). Tolerance: half a level.
    @Test(arguments: jpegs, shrinks)
    func dctScalingMatchesPillowsDraft(_ name: String, _ shrink: Load.Shrink) throws {
        let s = shrink.factor
        let image = try loaded(name + ".jpg", shrink: shrink)
        #expect(image.width == (203 + s - 1) / s && image.height == (149 + s - 1) / s)
        #expect(image.layout == .rgb && image.depth == .uint8)
        let reference = try Fixtures.image("\(name)-dct\(s).png").pixels()
        let diff = difference(try image.pixels(), Fixtures.reference(of: reference), channels: 3)
        print("\(name) 1/\(s): DCT scaling vs Pillow's draft, max \(diff.max * 255) levels")
        #expect(diff.max <= 0.5 / 255, "\(name) 1/\(s): max \(diff.max * 255) levels")
    }

    /// How far DCT scaling is from a full decode averaged over blocks (Pillow's `reduce`): close on
    /// average, not at every pixel. Measured, in levels of 255: mean 0.41 to 0.78; away from the last
    /// column and row, max 12.5 (4:2:0 at 1/2: chroma is scaled at half resolution and upsampled again),
    /// 5.2 (4:2:0 at 1/4), 4.75 (4:4:4 at 1/2) and under 3 at 1/8; in the last column and row up to 33,
    /// where the encoder padded the partial blocks by repeating their last pixels, which the block mean
    /// leaves out. So a DCT-scaled decode is not within 2/255 of a full decode and a box shrink at every
    /// pixel. Tolerances: mean 0.8 levels; inside, 13 levels for 4:2:0 and 5 for 4:4:4.
    @Test(arguments: jpegs, shrinks)
    func dctScalingIsNearAFullDecodeAveraged(_ name: String, _ shrink: Load.Shrink) throws {
        let s = shrink.factor
        let pixels = try loaded(name + ".jpg", shrink: shrink).pixels()
        let reference = try Fixtures.reference("\(name)-box\(s).f32")
        let all = difference(pixels, reference, channels: 3)
        let inside = Rect(width: reference.width - 1, height: reference.height - 1)
        let interior = difference(pixels.cropped(to: inside), Fixtures.cropped(reference, to: inside), channels: 3)
        print("\(name) 1/\(s): DCT vs block mean, mean \(all.mean * 255), inside max \(interior.max * 255) levels")
        #expect(all.mean <= 0.8 / 255, "\(name) 1/\(s): mean \(all.mean * 255) levels")
        let limit: Float = name == "shrink-photo" ? 13 : 5
        #expect(interior.max <= limit / 255, "\(name) 1/\(s): max \(interior.max * 255) levels inside")
    }

    /// Other formats are averaged over blocks, to the same size a JPEG would have: against Pillow's
    /// `reduce` on float images. Measured: at most 6.6e-7 apart (Float32 sums of up to 64 samples, where
    /// Pillow sums in double); tolerance 2e-6. An opaque image keeps alpha exactly 1.
    @Test(arguments: shrinks)
    func blockAverageMatchesPillowsReduce(_ shrink: Load.Shrink) throws {
        let s = shrink.factor
        let image = try loaded("shrink-rgb.png", shrink: shrink)
        #expect(image.width == (93 + s - 1) / s && image.height == (70 + s - 1) / s)
        let pixels = try image.pixels()
        let diff = difference(pixels, try Fixtures.reference("shrink-rgb-box\(s).f32"), channels: 3)
        print("block average 1/\(s) vs Pillow's reduce: max \(diff.max)")
        #expect(diff.max <= 2e-6, "1/\(s): max \(diff.max)")
        #expect(stride(from: 3, to: pixels.samples.count, by: 4).allSatisfy { pixels.samples[$0] == 1 })
    }

    /// With alpha, colors are averaged weighted by alpha (premultiplied), against NumPy: compared as
    /// what is seen (color times alpha, and alpha), since a color divided by a small alpha magnifies
    /// rounding. Measured: at most 8.9e-7; tolerance 2e-6.
    @Test(arguments: shrinks)
    func blockAverageWeighsColorsByAlpha(_ shrink: Load.Shrink) throws {
        let s = shrink.factor
        let pixels = try loaded("shrink-alpha.png", shrink: shrink).pixels()
        let reference = try Fixtures.reference("shrink-alpha-box\(s).f32")
        var seen: Float = 0
        for p in 0..<(reference.width * reference.height) {
            let a = pixels.samples[p * 4 + 3]
            let b = reference.samples[p * 4 + 3]
            seen = max(seen, abs(a - b))
            for c in 0..<3 { seen = max(seen, abs(pixels.samples[p * 4 + c] * a - reference.samples[p * 4 + c] * b)) }
        }
        print("block average with alpha 1/\(s) vs NumPy: premultiplied max \(seen)")
        #expect(seen <= 2e-6, "1/\(s): premultiplied max \(seen)")
    }

    /// The orientation applies after the shrink: the upright image is the stored one, shrunk, then
    /// turned as EXIF says (the red block at the stored top-left lands in the corner it names).
    @Test(arguments: 1...8)
    func orientationAppliesAfterTheShrink(_ orientation: Int) throws {
        let file = Fixtures.codecPath("jpeg/orient-\(orientation).jpg")
        let stored = try loaded(file, shrink: .two, keepOrientation: true).pixels()
        let upright = try loaded(file, shrink: .two).pixels()
        let (w, h) = (stored.region.width, stored.region.height)
        #expect((w, h) == (20, 12))
        let turned = orientation >= 5
        #expect(upright.region == Rect(width: turned ? h : w, height: turned ? w : h))
        for y in 0..<upright.region.height {
            for x in 0..<upright.region.width {
                let (sx, sy) = Self.stored(x, y, orientation: orientation, width: w, height: h)
                for c in 0..<4 where upright[x, y, c] != stored[sx, sy, c] {
                    Issue.record("orientation \(orientation): (\(x), \(y)) is not stored (\(sx), \(sy))")
                    return
                }
            }
        }
        // Where the stored top-left corner (red) goes: EXIF's table, in corners.
        let corners = [1: (0, 0), 2: (1, 0), 3: (1, 1), 4: (0, 1), 5: (0, 0), 6: (1, 0), 7: (1, 1), 8: (0, 1)]
        let (right, bottom) = try #require(corners[orientation])
        let x = right == 1 ? upright.region.width - 2 : 1
        let y = bottom == 1 ? upright.region.height - 2 : 1
        #expect(upright[x, y, 0] > 0.8 && upright[x, y, 1] < 0.3 && upright[x, y, 2] < 0.3, "red at (\(x), \(y))")
    }

    /// The stored pixel that upright pixel (x, y) shows, for EXIF orientation `orientation` of a stored
    /// image `width` x `height` (TIFF 6.0's Orientation tag, read as the row and column it starts from).
    static func stored(_ x: Int, _ y: Int, orientation: Int, width: Int, height: Int) -> (Int, Int) {
        switch orientation {
        case 2: (width - 1 - x, y)
        case 3: (width - 1 - x, height - 1 - y)
        case 4: (x, height - 1 - y)
        case 5: (y, x)
        case 6: (y, height - 1 - x)
        case 7: (width - 1 - y, height - 1 - x)
        case 8: (width - 1 - y, x)
        default: (x, y)
        }
    }

    /// Shrink 1 is the plain load: the same pixels as without the parameter.
    @Test func shrinkOneIsThePlainLoad() throws {
        let plain = try Fixtures.image("shrink-photo.jpg").pixels()
        #expect(try loaded("shrink-photo.jpg", shrink: .one).pixels() == plain)
    }
}
