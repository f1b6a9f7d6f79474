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

/// `colorSpace` against Little CMS's own tool and libvips (Scripts/make-color-fixtures.sh): a Display P3
/// image of saturated hues, converted to sRGB and written as 8 bits, is within 1/255 of `tificc` with
/// its built-in sRGB, and of `vips icc_transform` when converting to the profile libvips used.
@Suite struct ColorSpaceTests {
    let verifier = NodeVerifier()

    static func color(_ name: String) -> String { Fixtures.codecPath("color/\(name)") }

    /// The largest difference, in 8-bit steps, between `image` written as 8 bits and the 8-bit file `reference`.
    func stepsFrom(_ image: Image, _ reference: String) throws -> Int {
        let ours = try image.pixels()
        let theirs = try ImageFile.load(path: Self.color(reference)).1.pixels()
        #expect(ours.region == theirs.region && ours.channels == theirs.channels)
        var largest = 0
        for (a, b) in zip(ours.samples, theirs.samples) {
            largest = max(largest, abs(Int((min(max(a, 0), 1) * 255).rounded()) - Int((b * 255).rounded())))
        }
        return largest
    }

    func convert(_ image: Image, _ parameters: [String: any ParameterValue] = [:]) throws -> Image {
        try #require(
            try verifier.verify(ColorSpace.self, parameters: parameters, inputs: ["input": .image(image)])["output"]
        )
        .image()
    }

    @Test func displayP3ToSRGBMatchesLittleCMSAndLibvips() throws {
        let photo = try ImageFile.load(path: Self.color("p3-wheel.png")).1
        #expect(try ColorProfile(bytes: try #require(photo.metadata.iccProfile)).description == "sP3C")
        let srgb = try convert(photo)
        #expect(try stepsFrom(srgb, "p3-wheel-srgb-tificc.png") <= 1)
        #expect(try ColorProfile(bytes: try #require(srgb.metadata.iccProfile)).description == "sRGB")
        // The change is real: the P3 values read as sRGB are up to many steps away.
        #expect(try stepsFrom(photo, "p3-wheel-srgb-tificc.png") > 20)

        // libvips converts to its own sRGB profile (tabulated curves): converting to that, the same.
        let vips = try #require(try ImageFile.info(path: Self.color("p3-wheel-srgb-vips.png")).metadata.iccProfile)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-color-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("vips-srgb.icc").path
        try Data(vips).write(to: URL(fileURLWithPath: file))
        let viaVips = try convert(photo, ["profile": FilePath(written: file, resolved: file)])
        #expect(try stepsFrom(viaVips, "p3-wheel-srgb-vips.png") <= 1)
        #expect(viaVips.metadata.iccProfile == vips)
    }

    /// Linear sRGB is IEC 61966-2-1's decoding curve applied to each channel of an sRGB image.
    @Test func linearSRGBIsTheSRGBCurveUndone() throws {
        let photo = try Fixtures.image("photo.png")
        #expect(photo.metadata.iccProfile == nil)
        let linear = try convert(photo, ["to": ColorProfile.Named.linearSRGB]).pixels()
        let input = try photo.pixels()
        var largest: Float = 0
        for (index, (v, l)) in zip(input.samples, linear.samples).enumerated() where index % 4 != 3 {
            let expected = v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4)
            largest = max(largest, abs(l - expected))
        }
        #expect(largest < 2e-4, "max \(largest)")
    }

    /// To Display P3 and back gives the values again (out-of-gamut values are kept, not clipped), and
    /// alpha and gray inputs come through.
    @Test func roundTripsKeepValuesAndAlpha() throws {
        let rgba = TestImages.rgba()
        let p3 = try convert(rgba, ["to": ColorProfile.Named.displayP3])
        #expect(p3.layout == .rgba)
        #expect(try ColorProfile(bytes: try #require(p3.metadata.iccProfile)).description == "Display P3")
        let back = try convert(p3).pixels()
        let original = try rgba.pixels()
        let largest = zip(back.samples, original.samples).map { abs($0 - $1) }.max() ?? 0
        #expect(largest < 1e-3, "max \(largest)")
        #expect(try p3.pixels().samples != original.samples)

        let gray = try convert(TestImages.gray(), ["to": ColorProfile.Named.displayP3])
        #expect(gray.layout == .rgb)
        let grayBack = try convert(gray).pixels()
        let grayInput = try TestImages.gray().pixels()
        for (index, value) in grayInput.samples.enumerated() {
            #expect(abs(grayBack.samples[index * 4] - value) < 1e-3 && grayBack.samples[index * 4 + 3] == 1)
        }
        // Converting to the profile the image has changes nothing.
        #expect(try convert(p3, ["to": ColorProfile.Named.displayP3]).pixels() == p3.pixels())
    }

    @Test func aBadProfileFileIsNamed() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-color-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("broken.icc").path
        try Data("not a profile".utf8).write(to: URL(fileURLWithPath: file))
        let node = try NodeDeclaration(ColorSpace.self).instantiate(
            parameters: ["profile": FilePath(written: file, resolved: file)],
            inputs: ["input": .image(TestImages.rgba())])
        #expect {
            _ = try node.run()
        } throws: { error in
            "\(error)".contains("broken.icc") && "\(error)".contains("not a valid ICC profile")
        }
    }
}
