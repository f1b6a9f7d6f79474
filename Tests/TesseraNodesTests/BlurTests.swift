import Testing
import TesseraCore
@testable import TesseraCatalog
@testable import TesseraGraph
@testable import TesseraPluginHost
@testable import TesseraRunner
@testable import TesseraNodes
import TesseraTesting

/// gaussianBlur against SciPy's `gaussian_filter` (truncate 4; Scripts/make-blur-fixtures.py), on crops
/// of the example photo with 8-bit values. The tolerance is the node's promise on photos: a mean absolute
/// difference under 0.5/255 and a largest under 2/255 (libvips' default blur is 13/255 off at sigma 20,
/// OpenCV's 1.6/255). Small sigmas use SciPy's own taps and land within Float32 rounding; from sigma 4.5
/// on the cosine series lands within about 0.2/255.
@Suite struct BlurTests {
    let verifier = NodeVerifier()
    static let meanTolerance: Float = 0.5 / 255
    static let maxTolerance: Float = 2 / 255

    struct Reference: Sendable, CustomTestStringConvertible {
        var sigma: Double
        var edge: String
        var stem = "photo"
        var step = 2
        /// The fixture the photo is read from; photo.png is make-node-fixtures.py's 96x72 crop.
        var input = "photo.png"
        var fixture: String { "blur-\(stem)-\(Literal.number(sigma).text)-\(edge)-step\(step).f32" }
        var testDescription: String { fixture }
    }

    static let references: [Reference] =
        [0.5, 1, 2, 3, 5, 10, 20].map { Reference(sigma: $0, edge: "clamp") }
        + [1, 5, 20].map { Reference(sigma: $0, edge: "transparent") }
        + ["clamp", "transparent"].map {
            Reference(sigma: 50, edge: $0, stem: "photo-large", step: 8, input: "blur-photo-large.png")
        }

    @Test(arguments: references) func matchesSciPy(_ reference: Reference) throws {
        let photo = try Fixtures.image(reference.input)
        let blurred = try blur(photo, sigma: reference.sigma, edge: reference.edge)
        #expect(blurred.layout == photo.layout && blurred.width == photo.width && blurred.depth == photo.depth)
        let diff = difference(
            subsampled(try blurred.pixels(), step: reference.step), try Fixtures.reference(reference.fixture))
        #expect(diff.mean < Self.meanTolerance, "mean \(diff.mean * 255)/255")
        #expect(diff.max < Self.maxTolerance, "max \(diff.max * 255)/255")
    }

    /// With alpha, SciPy blurs color times alpha and alpha, then divides; compared premultiplied (what
    /// a composite shows), since a color under an alpha near 0 is a ratio of two tiny numbers.
    @Test(arguments: [2.0, 10]) func alphaMatchesPremultipliedSciPy(_ sigma: Double) throws {
        let photo = try Fixtures.image("photo-alpha.png")
        let blurred = try blur(photo, sigma: sigma, edge: "clamp")
        #expect(blurred.layout == .rgba)
        var reference = try Fixtures.reference("blur-photo-alpha-\(Literal.number(sigma).text)-clamp-step2.f32")
        for i in stride(from: 0, to: reference.samples.count, by: 4) {
            for c in 0..<3 { reference.samples[i + c] *= reference.samples[i + 3] }
        }
        let diff = difference(premultiplied(subsampled(try blurred.pixels(), step: 2)), reference)
        #expect(diff.mean < Self.meanTolerance, "mean \(diff.mean * 255)/255")
        #expect(diff.max < Self.maxTolerance, "max \(diff.max * 255)/255")
    }

    /// A white opaque square on transparent black: wherever the blur gives any alpha, the color is white.
    @Test(arguments: [1.5, 8]) func transparentPixelsDoNotDarken(_ sigma: Double) throws {
        var buffer = PixelBuffer(region: Rect(width: 100, height: 80), channels: 4)
        for y in 35..<45 { for x in 40..<53 { for c in 0..<4 { buffer[x, y, c] = 1 } } }
        let image = Image(buffer: buffer, layout: .rgba, depth: .uint8)
        for edge in ["clamp", "transparent"] {
            let pixels = try blur(image, sigma: sigma, edge: edge).pixels()
            var seen = 0
            for y in 0..<80 {
                for x in 0..<100 where pixels[x, y, 3] > 0 {
                    seen += 1
                    for c in 0..<3 where pixels[x, y, c] != 1 {
                        Issue.record("\(edge): (\(x), \(y)) has color \(pixels[x, y, c]) at alpha \(pixels[x, y, 3])")
                        return
                    }
                }
            }
            #expect(seen > 13 * 10, "the blur spreads alpha beyond the square")
            #expect(pixels[0, 0, 3] == 0 && pixels[0, 0, 0] == 0, "far from the square: transparent black")
            #expect(pixels[46, 40, 3] > 0.2)
        }
    }

    struct Setup: Sendable, CustomTestStringConvertible {
        var sigma: Double
        var edge: String
        var image: String
        var testDescription: String { "sigma \(sigma), \(edge), \(image)" }
    }

    /// The shared checks (tiling, declared regions) on both methods, both edges and every layout.
    @Test(arguments: [
        Setup(sigma: 0.1, edge: "clamp", image: "rgba"),  // one tap: a copy
        Setup(sigma: 0.8, edge: "clamp", image: "rgba"),
        Setup(sigma: 1.5, edge: "transparent", image: "gray"),
        Setup(sigma: 2.5, edge: "transparent", image: "rgb"),
        Setup(sigma: 4, edge: "transparent", image: "rgba"),
        Setup(sigma: 4.5, edge: "clamp", image: "rgb"),  // the cosine series from here on
        Setup(sigma: 6, edge: "clamp", image: "gray"),
        Setup(sigma: 9, edge: "transparent", image: "rgba"),
        Setup(sigma: 12, edge: "clamp", image: "rgba"),
    ])
    func passesTheNodeVerifier(_ setup: Setup) throws {
        let image =
            switch setup.image {
            case "gray": TestImages.gray()
            case "rgb": TestImages.rgba(alpha: false)
            default: TestImages.rgba()
            }
        let outputs = try verifier.verify(
            GaussianBlur.self, parameters: ["sigma": setup.sigma, "edge": try edgeChoice(setup.edge)],
            inputs: ["input": .image(image)])
        let blurred = try #require(outputs["output"]).image()
        #expect(blurred.layout == image.layout && blurred.extent == image.extent)
    }

    /// Images smaller than the margin, down to one pixel: every layout, both methods, both edges. With
    /// clamp, a constant image (a single pixel is one) stays what it was.
    @Test(arguments: [0.7, 20]) func tinyImagesPassTheNodeVerifier(_ sigma: Double) throws {
        for (width, height) in [(1, 1), (1, 5), (3, 2)] {
            let images = [
                TestImages.rgba(width: width, height: height),
                TestImages.rgba(width: width, height: height, alpha: false),
                TestImages.gray(width: width, height: height),
            ]
            for image in images {
                for edge in ["clamp", "transparent"] {
                    let outputs = try verifier.verify(
                        GaussianBlur.self, parameters: ["sigma": sigma, "edge": try edgeChoice(edge)],
                        inputs: ["input": .image(image)])
                    let blurred = try #require(outputs["output"]).image().pixels()
                    if width == 1 && height == 1 && edge == "clamp" {
                        let original = try image.pixels()
                        let drift = zip(blurred.samples, original.samples).map { abs($0 - $1) }.max() ?? 0
                        #expect(drift < 1e-5, "\(image.layout) at sigma \(sigma) drifts by \(drift)")
                    }
                }
            }
        }
    }

    /// The cosine series stays within its stated bounds of SciPy's taps (L1 norm of the difference: the
    /// largest error on any image in 0...1), in 1-D and as a 2-D kernel.
    @Test func cosineKernelIsCloseToTheGaussian() {
        for sigma in stride(from: GaussianBlur.cosineFromSigma, through: 60, by: 0.35) {
            let cosine = CosineGaussian(sigma: sigma).kernel
            let exact = GaussianTaps.reference(sigma: sigma)
            let (r, e) = (cosine.count / 2, exact.count / 2)
            let taps = (-e...e).map { n in (abs(n) <= r ? cosine[n + r] : 0, exact[n + e]) }
            let l1 = taps.reduce(0) { $0 + abs($1.0 - $1.1) }
            let l1Square = taps.reduce(0) { sum, a in sum + taps.reduce(0) { $0 + abs(a.0 * $1.0 - a.1 * $1.1) } }
            #expect(l1 < 0.7 / 255 && l1Square < 1.16 / 255, "sigma \(sigma): \(l1 * 255), \(l1Square * 255)")
            #expect(cosine.allSatisfy { $0 >= 0 }, "sigma \(sigma): negative taps")
        }
    }

    // MARK: Helpers

    func blur(_ image: Image, sigma: Double, edge: String) throws -> Image {
        let node = try NodeDeclaration(GaussianBlur.self).instantiate(
            parameters: ["sigma": sigma, "edge": try edgeChoice(edge)], inputs: ["input": .image(image)])
        return try #require(node.run().values[""]).image()
    }

    func edgeChoice(_ word: String) throws -> GaussianBlur.Edge {
        try #require(GaussianBlur.Edge(rawValue: word))
    }

    /// Every `step`-th pixel of every `step`-th row, as the fixtures hold them.
    func subsampled(_ buffer: PixelBuffer, step: Int) -> PixelBuffer {
        let width = (buffer.region.width + step - 1) / step
        let height = (buffer.region.height + step - 1) / step
        var result = PixelBuffer(region: Rect(width: width, height: height), channels: buffer.channels)
        for y in 0..<height {
            for x in 0..<width {
                for c in 0..<buffer.channels {
                    result[x, y, c] = buffer[buffer.region.minX + x * step, buffer.region.minY + y * step, c]
                }
            }
        }
        return result
    }

    func premultiplied(_ buffer: PixelBuffer) -> PixelBuffer {
        var result = buffer
        for i in stride(from: 0, to: result.samples.count, by: 4) {
            for c in 0..<3 { result.samples[i + c] *= result.samples[i + 3] }
        }
        return result
    }
}
