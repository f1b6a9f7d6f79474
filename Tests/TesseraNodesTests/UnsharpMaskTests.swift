import Testing
import TesseraCore
@testable import TesseraCatalog
@testable import TesseraGraph
@testable import TesseraPluginHost
@testable import TesseraRunner
@testable import TesseraNodes
import TesseraTesting

/// unsharpMask against Pillow (Scripts/make-gradient-blur-fixtures.py), on make-node-fixtures.py's
/// 96x72 crop of the example photo, in two ways:
///
/// - Pillow's formula with SciPy's exact Gaussian in float64: the node computes the same thing, so it
///   lands within Float32 rounding (1e-4; from sigma 4.5, where gaussianBlur's cosine series is within
///   0.25/255 of SciPy on photos, that times 1 + amount), except where `|v - blurred|` is within the
///   blur's error of the threshold and the two take different sides: at most 0.5% of the samples, each
///   off by at most amount times the threshold.
/// - Pillow's own UnsharpMask: its blur is three box filters rounded to 8 bits, and its border is its
///   own, so the comparison leaves out a border of 4 radius + 1 and allows a mean of 1 level and at most
///   10 levels at a few pixels (measured: means 0.3 to 0.6, at most 9.1 levels where a sharp edge meets
///   the threshold).
@Suite struct UnsharpMaskTests {
    let verifier = NodeVerifier()

    struct Setting: Sendable, CustomTestStringConvertible {
        var radius: Double
        var percent: Int
        var threshold: Int
        var stem: String { "\(Literal.number(radius).text)-\(percent)-\(threshold)" }
        var testDescription: String { stem }
    }

    static let settings = [
        Setting(radius: 2, percent: 150, threshold: 3), Setting(radius: 1, percent: 100, threshold: 0),
        Setting(radius: 5, percent: 80, threshold: 10),
    ]

    @Test(arguments: settings) func matchesPillowsFormula(_ setting: Setting) throws {
        let photo = try Fixtures.image("photo.png")
        let sharp = try sharpen(photo, setting)
        #expect(sharp.layout == photo.layout && sharp.depth == photo.depth)
        let pixels = try sharp.pixels()
        let reference = try Fixtures.reference("unsharp-exact-\(setting.stem).f32")
        // Where the two take different sides of the threshold, they differ by amount times the threshold.
        let flip = Float(setting.percent) / 100 * (Float(setting.threshold) + 0.5) / 255
        // The blur's own error, times 1 + amount: Float32 rounding for the taps, 0.25/255 for the cosine series.
        let amount = Float(setting.percent) / 100
        let close = (1 + amount) * (setting.radius >= GaussianBlur.cosineFromSigma ? 0.25 / 255 : 1e-5) + 1e-4
        var (off, largest): (Int, Float) = (0, 0)
        for pixel in 0..<(reference.width * reference.height) {
            for c in 0..<3 {
                let d = abs(pixels.samples[pixel * 4 + c] - reference.samples[pixel * 3 + c])
                if d > close { off += 1 }
                largest = max(largest, d.isNaN ? .infinity : d)
            }
        }
        #expect(off <= reference.samples.count / 200, "\(off) samples off")
        #expect(largest < max(flip, close), "max \(largest * 255)/255")
    }

    @Test(arguments: settings) func matchesPillow(_ setting: Setting) throws {
        let photo = try Fixtures.image("photo.png")
        let border = Int(4 * setting.radius + 1)
        let inner = Rect(x: border, y: border, width: photo.width - 2 * border, height: photo.height - 2 * border)
        let sharp = try sharpen(photo, setting).pixels().cropped(to: inner)
        let pillow = Fixtures.cropped(try Fixtures.reference("unsharp-pillow-\(setting.stem).f32"), to: inner)
        let diff = difference(sharp, pillow, channels: 3)
        #expect(diff.mean < 1 / 255, "mean \(diff.mean * 255)/255")
        #expect(diff.max < 10 / 255, "max \(diff.max * 255)/255")
    }

    @Test func passesTheNodeVerifier() throws {
        let runs = try verifier.verifyCases(of: UnsharpMask.self)
        #expect(runs.contains { $0.skipped == nil })
        // Both blur methods (taps, cosine from sigma 4.5), on every layout.
        for radius in [0.8, 6] {
            for image in [TestImages.rgba(), TestImages.rgba(alpha: false), TestImages.gray()] {
                let outputs = try verifier.verify(
                    UnsharpMask.self, parameters: ["radius": radius, "threshold": 2.0], inputs: ["input": .image(image)]
                )
                #expect(try #require(outputs["output"]).image().layout == image.layout)
            }
        }
    }

    /// Amount 0, or a threshold no difference reaches, gives the input; alpha is always kept.
    @Test func leavesTheImageWhenNothingIsSharpened() throws {
        let image = TestImages.rgba()
        let original = try image.pixels()
        for parameters: [String: any ParameterValue] in [["amount": 0.0], ["threshold": 255.0]] {
            let node = try NodeDeclaration(UnsharpMask.self).instantiate(
                parameters: parameters, inputs: ["input": .image(image)])
            let pixels = try #require(node.run().values[""]).image().pixels()
            #expect(pixels.hasSameBits(as: original))
        }
        let sharp = try sharpen(image, Setting(radius: 2, percent: 300, threshold: 0)).pixels()
        #expect(
            stride(from: 3, to: sharp.samples.count, by: 4).allSatisfy { sharp.samples[$0] == original.samples[$0] })
    }

    func sharpen(_ image: Image, _ setting: Setting) throws -> Image {
        let node = try NodeDeclaration(UnsharpMask.self).instantiate(
            parameters: [
                "radius": setting.radius, "amount": Double(setting.percent) / 100,
                "threshold": Double(setting.threshold),
            ], inputs: ["input": .image(image)])
        return try #require(node.run().values[""]).image()
    }
}
