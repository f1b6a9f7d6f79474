import Testing
import TesseraCore
@testable import TesseraNodes
import TesseraTesting

/// Color nodes against OpenCV (Scripts/make-node-fixtures.py). Tolerance 1e-5: both sides compute in
/// Float32 from the same 8-bit inputs, only the order of operations differs.
@Suite struct ColorTests {
    let verifier = NodeVerifier()

    @Test func colorMatrixTintMatchesOpenCV() throws {
        let photo = try Fixtures.image("photo.png")
        let outputs = try verifier.verify(
            ColorMatrix.self, parameters: ["b": [0.0, 0, 0, 0], "a": [0.0, 0, 0, 0.7]], inputs: ["input": .image(photo)]
        )
        let tinted = try #require(outputs["output"]).image()
        #expect(tinted.layout == .rgba)
        let diff = difference(try tinted.pixels(), try Fixtures.reference("colorMatrix-tint.f32"))
        #expect(diff.max < 1e-5, "max \(diff.max)")
    }

    @Test func colorMatrixWithBiasMatchesOpenCV() throws {
        let photo = try Fixtures.image("photo-alpha.png")
        let parameters: [String: any ParameterValue] = [
            "r": [0.5, 0.3, 0.2, 0], "g": [0.1, 0.8, 0.1, 0], "b": [0.2, -0.4, 1.1, 0], "a": [0.0, 0, 0, 0.5],
            "bias": [0.05, -0.1, 0, 0.25],
        ]
        let outputs = try verifier.verify(ColorMatrix.self, parameters: parameters, inputs: ["input": .image(photo)])
        let diff = difference(
            try #require(outputs["output"]).image().pixels(), try Fixtures.reference("colorMatrix-mixed.f32"))
        #expect(diff.max < 1e-5, "max \(diff.max)")
    }

    @Test func colorMatrixKeepsOpaqueRGBOpaque() throws {
        let outputs = try verifier.verify(
            ColorMatrix.self, parameters: ["r": [0.5, 0.5, 0, 0]],
            inputs: ["input": .image(TestImages.rgba(alpha: false))])
        #expect(try #require(outputs["output"]).image().layout == .rgb)
        let gray = try verifier.verify(ColorMatrix.self, inputs: ["input": .image(TestImages.gray())])
        #expect(try #require(gray["output"]).image().layout == .rgb)
    }
}

extension ColorTests {
    @Test func contrastMatchesTheFormula() throws {
        let photo = try Fixtures.image("photo.png")
        let outputs = try verifier.verify(
            Contrast.self, parameters: ["amount": 1.8, "pivot": 0.4], inputs: ["input": .image(photo)])
        let diff = difference(try #require(outputs["output"]).image().pixels(), try Fixtures.reference("contrast.f32"))
        #expect(diff.max < 1e-5, "max \(diff.max)")
        try verifier.verify(Contrast.self, parameters: ["amount": 0.3], inputs: ["input": .image(TestImages.rgba())])
        try verifier.verify(Contrast.self, parameters: ["amount": 2.0], inputs: ["input": .image(TestImages.gray())])
    }

    @Test func grayscaleMatchesOpenCV() throws {
        let photo = try Fixtures.image("photo.png")
        let outputs = try verifier.verify(
            Grayscale.self, parameters: ["weights": Grayscale.Weights.rec601], inputs: ["input": .image(photo)])
        let gray = try #require(outputs["output"]).image()
        #expect(gray.layout == .gray)
        let diff = difference(try gray.pixels(), try Fixtures.reference("grayscale.f32"))
        #expect(diff.max < 1e-5, "max \(diff.max)")
        let withAlpha = try verifier.verify(Grayscale.self, inputs: ["input": .image(TestImages.rgba())])
        #expect(try #require(withAlpha["output"]).image().layout == .grayAlpha)
    }

    @Test func normalizeMatchesOpenCV() throws {
        let photo = try Fixtures.image("photo.png")
        let gray = try #require(
            verifier.verify(
                Grayscale.self, parameters: ["weights": Grayscale.Weights.rec601], inputs: ["input": .image(photo)])[
                    "output"])
        let outputs = try verifier.verify(Normalize.self, inputs: ["input": gray])
        let diff = difference(try #require(outputs["output"]).image().pixels(), try Fixtures.reference("normalize.f32"))
        #expect(diff.max < 1e-5, "max \(diff.max)")
        // Per channel: every color channel reaches exactly 0 and 1.
        let perChannel = try verifier.verify(
            Normalize.self, parameters: ["perChannel": true], inputs: ["input": .image(TestImages.rgba())])
        let pixels = try #require(perChannel["output"]).image().pixels()
        for c in 0..<3 {
            let values = stride(from: c, to: pixels.samples.count, by: 4).map { pixels.samples[$0] }
            #expect(values.min() == 0 && values.max() == 1)
        }
        // A flat image becomes 0 rather than NaN.
        let flat = Image(buffer: PixelBuffer(region: Rect(width: 5, height: 4), channels: 1, value: 0.3), layout: .gray)
        let flattened = try #require(verifier.verify(Normalize.self, inputs: ["input": .image(flat)])["output"])
        #expect(try flattened.image().pixels().samples.allSatisfy { $0 == 0 })
    }
}

/// blendWithMask, composite, crop and constant.
@Suite struct CompositeTests {
    let verifier = NodeVerifier()

    /// The photo mirrored left to right, built here independently of any node.
    func mirror(_ image: Image) throws -> Image {
        let pixels = try image.pixels()
        var flipped = pixels
        for y in 0..<image.height {
            for x in 0..<image.width {
                for c in 0..<image.channels { flipped[x, y, c] = pixels[image.width - 1 - x, y, c] }
            }
        }
        return Image(buffer: flipped, layout: image.layout, depth: image.depth)
    }

    @Test func blendWithMaskMatchesCoreImageSemantics() throws {
        let photo = try Fixtures.image("photo.png")
        let mask = try Fixtures.image("mask.png")
        let outputs = try verifier.verify(
            BlendWithMask.self,
            inputs: ["input": .image(photo), "background": .image(try mirror(photo)), "mask": .image(mask)])
        let blended = try #require(outputs["output"]).image()
        #expect(blended.layout == .rgb)
        let diff = difference(try blended.pixels(), try Fixtures.reference("blendWithMask.f32"), channels: 3)
        #expect(diff.max < 1e-5, "max \(diff.max)")

        let alone = try verifier.verify(BlendWithMask.self, inputs: ["input": .image(photo), "mask": .image(mask)])
        let transparent = try #require(alone["output"]).image()
        #expect(transparent.layout == .rgba)
        let diffAlone = difference(try transparent.pixels(), try Fixtures.reference("blendWithMask-transparent.f32"))
        #expect(diffAlone.max < 1e-5, "max \(diffAlone.max)")
    }

    @Test func blendWithMaskReadsTheChosenChannel() throws {
        let rgba = TestImages.rgba()
        for channel in BlendWithMask.MaskChannel.allCases {
            try verifier.verify(
                BlendWithMask.self, parameters: ["maskChannel": channel],
                inputs: ["input": .image(TestImages.gray()), "background": .image(rgba), "mask": .image(rgba)])
        }
        // Alpha as the mask: where the mask's alpha is 1 the input shows.
        var maskPixels = PixelBuffer(region: Rect(width: 4, height: 1), channels: 4, value: 0)
        maskPixels[0, 0, 3] = 1
        let white = Image(buffer: PixelBuffer(region: Rect(width: 4, height: 1), channels: 1, value: 1), layout: .gray)
        let outputs = try verifier.verify(
            BlendWithMask.self, parameters: ["maskChannel": BlendWithMask.MaskChannel.alpha],
            inputs: ["input": .image(white), "mask": .image(Image(buffer: maskPixels, layout: .rgba))])
        let result = try #require(outputs["output"]).image().pixels()
        #expect(result.samples[3] == 1 && result.samples[7] == 0)
    }

    @Test func compositeIsSourceOver() throws {
        let photo = try Fixtures.image("photo.png")
        let faded = try Fixtures.image("photo-alpha.png")
        let outputs = try verifier.verify(
            Composite.self, inputs: ["input": .image(faded), "background": .image(try mirror(photo))])
        let diff = difference(try #require(outputs["output"]).image().pixels(), try Fixtures.reference("composite.f32"))
        #expect(diff.max < 1e-5, "max \(diff.max)")
        // Offset, partly outside: the background shows where the input does not reach.
        try verifier.verify(
            Composite.self, parameters: ["x": 40, "y": -10],
            inputs: ["input": .image(TestImages.rgba()), "background": .image(TestImages.gray())])
    }

    @Test func cropTakesTheRectangleAspectRatioAndMargin() throws {
        let photo = try Fixtures.image("photo.png")
        let whole = try photo.pixels()
        let outputs = try verifier.verify(
            Crop.self, parameters: ["rect": Rect(x: 10, y: 5, width: 30, height: 20)], inputs: ["input": .image(photo)])
        let cropped = try #require(outputs["output"]).image()
        #expect(cropped.extent == Rect(width: 30, height: 20))
        let expected = whole.cropped(to: Rect(x: 10, y: 5, width: 30, height: 20))
        #expect(try cropped.pixels().samples == expected.samples)

        func region(_ rect: Rect?, margin: Int = 0, ratio: Double? = nil) throws -> Rect {
            try Crop.region(rect: rect, margin: margin, aspectRatio: ratio, in: Rect(width: 96, height: 72))
        }
        // 4:3 centered in a 96x72 image is the whole image; 3:4 is 54x72 in the middle.
        #expect(try region(nil, ratio: 4.0 / 3) == Rect(width: 96, height: 72))
        #expect(try region(nil, ratio: 0.75) == Rect(x: 21, y: 0, width: 54, height: 72))
        // A box grown by a margin, then to 1:1 around its center, clamped inside the image.
        #expect(
            try region(Rect(x: 40, y: 30, width: 10, height: 6), margin: 2) == Rect(x: 38, y: 28, width: 14, height: 10)
        )
        #expect(
            try region(Rect(x: 40, y: 30, width: 10, height: 6), ratio: 1) == Rect(x: 40, y: 28, width: 10, height: 10))
        #expect(try region(Rect(x: 90, y: 0, width: 20, height: 10)) == Rect(x: 90, y: 0, width: 6, height: 10))
        #expect(throws: NodeProblem.self) { try region(Rect(x: 200, y: 0, width: 5, height: 5)) }
        try verifier.verify(
            Crop.self, parameters: ["aspectRatio": Ratio.terms(width: 2, height: 1)],
            inputs: ["input": .image(TestImages.rgba())])
    }

    @Test func constantHasTheColorAndSize() throws {
        let outputs = try verifier.verify(
            Constant.self, parameters: ["color": [0.25, 0.5, 0.75, 0.5]], inputs: ["like": .image(TestImages.gray())])
        let image = try #require(outputs["output"]).image()
        #expect(image.extent == TestImages.gray().extent && image.layout == .rgba)
        let pixels = try image.pixels()
        #expect(pixels.samples.count == 53 * 41 * 4)
        #expect(stride(from: 0, to: pixels.samples.count, by: 4).allSatisfy { pixels.samples[$0 + 2] == 0.75 })
        let sized = try verifier.verify(Constant.self, parameters: ["width": 7, "height": 3])
        #expect(try #require(sized["output"]).image().extent == Rect(width: 7, height: 3))
    }
}
