import Testing
import TesseraCore
@testable import TesseraCatalog
@testable import TesseraGraph
@testable import TesseraPluginHost
@testable import TesseraRunner
@testable import TesseraNodes
import TesseraTesting

/// maskedBlur against Core Image's definition computed exactly (each pixel blurred by its own Gaussian
/// of sigma radius * mask, with SciPy; Scripts/make-gradient-blur-fixtures.py). The node mixes a stack
/// of Gaussian levels, which lands within 1.5/255 of the exact blur and 0.3/255 on average (the script
/// measures the stack at 0.8 to 1.3/255 and 0.06 to 0.13/255; the cosine Gaussian from sigma 4.5
/// adds its 0.2/255).
@Suite struct MaskedBlurTests {
    let verifier = NodeVerifier()
    static let maxTolerance: Float = 1.5 / 255
    static let meanTolerance: Float = 0.3 / 255

    struct Reference: Sendable, CustomTestStringConvertible {
        var radius: Double
        var photo: String
        var mask: String
        var fixture: String
        var step: Int
        var testDescription: String { fixture }
    }

    static let references = [
        Reference(radius: 3, photo: "photo.png", mask: "mask.png", fixture: "maskedBlur-photo-3.f32", step: 1),
        Reference(radius: 8, photo: "photo.png", mask: "mask.png", fixture: "maskedBlur-photo-8.f32", step: 1),
        Reference(
            radius: 20, photo: "blur-photo-large.png", mask: "maskedBlur-band.png",
            fixture: "maskedBlur-large-20-step2.f32", step: 2),
    ]

    @Test(arguments: references) func matchesTheExactVariableBlur(_ reference: Reference) throws {
        let photo = try Fixtures.image(reference.photo)
        let blurred = try blur(photo, mask: try Fixtures.image(reference.mask), radius: reference.radius)
        #expect(blurred.layout == photo.layout && blurred.extent == photo.extent)
        let diff = difference(
            BlurTests().subsampled(try blurred.pixels(), step: reference.step),
            try Fixtures.reference(reference.fixture))
        #expect(diff.mean < Self.meanTolerance, "mean \(diff.mean * 255)/255")
        #expect(diff.max < Self.maxTolerance, "max \(diff.max * 255)/255")
    }

    /// A mask of 0 gives the input bit for bit; a mask of 1 gives gaussianBlur of sigma radius (the same
    /// bits without alpha; with alpha within Float32 rounding, colors being mixed premultiplied).
    @Test(arguments: [2.0, 9]) func masksOfZeroAndOneAreTheLimits(_ radius: Double) throws {
        for image in [TestImages.rgba(), TestImages.rgba(alpha: false), TestImages.gray()] {
            let original = try image.pixels()
            let zero = try blur(image, mask: Self.constantMask(0, like: image), radius: radius).pixels()
            #expect(zero.hasSameBits(as: original), "\(image.layout)")
            let one = try blur(image, mask: Self.constantMask(1, like: image), radius: radius).pixels()
            let node = try NodeDeclaration(GaussianBlur.self).instantiate(
                parameters: ["sigma": radius], inputs: ["input": .image(image)])
            let gaussian = try #require(node.run().values[""]).image().pixels()
            if image.layout.hasAlpha {
                let drift = zip(one.samples, gaussian.samples).map { abs($0 - $1) }.max() ?? 1
                #expect(drift < 1e-5, "\(image.layout): \(drift)")
            } else {
                #expect(one.hasSameBits(as: gaussian), "\(image.layout)")
            }
        }
    }

    /// The shared checks, with a mask that varies from pixel to pixel (gray, RGB and RGBA masks), on small
    /// and large radii (exact taps and the cosine series) and images smaller than the margin.
    @Test func passesTheNodeVerifier() throws {
        let runs = try verifier.verifyCases(of: MaskedBlur.self)
        #expect(runs.contains { $0.skipped == nil })
        for radius in [0.2, 1.5, 12] {
            for (image, mask) in [
                (TestImages.rgba(), TestImages.gray(width: 61, height: 47)),
                (TestImages.rgba(alpha: false), TestImages.rgba(seed: 9)),
                (TestImages.gray(), TestImages.rgba(width: 40, height: 60, alpha: false)),
                (TestImages.rgba(width: 3, height: 2), TestImages.gray(width: 3, height: 2)),
            ] {
                let outputs = try verifier.verify(
                    MaskedBlur.self, parameters: ["radius": radius],
                    inputs: ["input": .image(image), "mask": .image(mask)])
                #expect(try #require(outputs["output"]).image().layout == image.layout)
            }
        }
    }

    @Test func levelsDoubleEveryThreeSteps() {
        #expect(MaskedBlur.levels(radius: 0) == [0])
        #expect(MaskedBlur.levels(radius: 0.2) == [0, 0.2])
        let levels = MaskedBlur.levels(radius: 10)
        #expect(levels.first == 0 && levels.last == 10 && levels.count == 18)
        #expect(abs(levels[4] / levels[1] - 2) < 1e-12)
    }

    // MARK: Helpers

    func blur(_ image: Image, mask: Image, radius: Double) throws -> Image {
        let node = try NodeDeclaration(MaskedBlur.self).instantiate(
            parameters: ["radius": radius], inputs: ["input": .image(image), "mask": .image(mask)])
        return try #require(node.run().values[""]).image()
    }

    static func constantMask(_ value: Float, like image: Image) -> Image {
        Image(buffer: PixelBuffer(region: image.extent, channels: 1, value: value), layout: .gray, depth: .uint8)
    }
}
