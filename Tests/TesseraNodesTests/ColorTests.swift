import Testing
import TesseraCore
@testable import TesseraNodes

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
