import Testing
import TesseraCore
@testable import TesseraCatalog
@testable import TesseraGraph
@testable import TesseraPluginHost
@testable import TesseraRunner
@testable import TesseraNodes
import TesseraTesting

/// linearGradient and radialGradient against Core Image's definitions written out in NumPy
/// (Scripts/make-gradient-blur-fixtures.py) on a 64x48 image: Float32 arithmetic against float64, so
/// within 1e-5 everywhere.
@Suite struct GradientTests {
    let verifier = NodeVerifier()
    static let tolerance: Float = 1e-5

    struct Case: Sendable, CustomTestStringConvertible {
        var fixture: String
        var radial: Bool
        var parameters: [String: any ParameterValue]
        var testDescription: String { fixture }
    }

    static let cases: [Case] = [
        Case(
            fixture: "gradient-linear-pixels.f32", radial: false,
            parameters: [
                "point0": [5.0, 7], "point1": [50.0, 30], "color0": [1.0, 0.5, 0, 1], "color1": [0.0, 0.2, 1, 1],
            ]
        ),
        Case(
            fixture: "gradient-linear-reflect.f32", radial: false,
            parameters: [
                "point0": [0.5, 0.5], "point1": [0.5, 0.1], "units": Gradient.Units.relative,
                "falloff": Gradient.Falloff.smooth, "spread": Gradient.Spread.reflect,
            ]),
        Case(
            fixture: "gradient-linear-repeat.f32", radial: false,
            parameters: [
                "point0": [0.0, 0], "point1": [16.0, 0], "color0": [1.0, 1, 1, 0], "color1": [1.0, 0, 0, 1],
                "spread": Gradient.Spread.repeat,
            ]),
        Case(
            fixture: "gradient-radial-pixels.f32", radial: true,
            parameters: ["center": [30.0, 20], "radius0": 4.0, "radius1": 25.0, "color1": [0.2, 0.4, 0.6, 1]]),
        Case(
            fixture: "gradient-radial-relative.f32", radial: true,
            parameters: [
                "center": [0.5, 0.5], "radius0": 0.2, "radius1": 0.7, "units": Gradient.Units.relative,
                "falloff": Gradient.Falloff.smooth,
            ]),
        Case(
            fixture: "gradient-radial-inverted.f32", radial: true,
            parameters: [
                "center": [10.0, 40], "radius0": 30.0, "radius1": 0.0, "color0": [0.0, 0, 0, 0],
                "color1": [1.0, 1, 0, 1],
            ]),
        Case(
            fixture: "gradient-radial-disc.f32", radial: true,
            parameters: ["center": [32.0, 24], "radius0": 12.0, "radius1": 12.0]),
    ]

    @Test(arguments: cases) func matchesCoreImagesDefinition(_ test: Case) throws {
        var parameters = test.parameters
        parameters["width"] = 64
        parameters["height"] = 48
        let type: any Node.Type = test.radial ? RadialGradient.self : LinearGradient.self
        let image = try #require(try verifier.verify(type, parameters: parameters)["output"]).image()
        let reference = try Fixtures.reference(test.fixture)
        let opaque = reference.samples.enumerated().allSatisfy { $0.offset % 4 != 3 || $0.element == 1 }
        #expect(image.layout == (opaque ? .rgb : .rgba) && image.depth == .uint16)
        let diff = difference(try image.pixels(), reference)
        #expect(diff.max < Self.tolerance, "max \(diff.max)")
    }

    /// The shared checks on every choice, a `like` of each layout and a size of its own. (Not the
    /// verifier's made-up runs: with nothing connected and no size a source has nothing to make, and a
    /// made-up size from the hard range is up to a million pixels a side.)
    @Test func passTheNodeVerifier() throws {
        let sized: [String: any ParameterValue] = ["width": 37, "height": 23]
        let choices: [[String: any ParameterValue]] = [
            [:], ["units": Gradient.Units.relative, "falloff": Gradient.Falloff.smooth],
            ["color0": [1.0, 0, 0, 0.5]],
        ]
        for type: any Node.Type in [LinearGradient.self, RadialGradient.self] {
            for parameters in choices {
                for like in [TestImages.rgba(), TestImages.gray()] {
                    try verifier.verify(type, parameters: parameters, inputs: ["like": .image(like)])
                }
                try verifier.verify(type, parameters: parameters.merging(sized) { a, _ in a })
            }
        }
        for spread in [Gradient.Spread.reflect, .repeat] {
            try verifier.verify(
                LinearGradient.self, parameters: ["spread": spread, "point0": [3.0, 4], "point1": [9.0, 20]],
                inputs: ["like": .image(TestImages.rgba())])
        }
    }

    @Test func takeTheSizeOfLike() throws {
        let like = TestImages.gray()
        for type: any Node.Type in [LinearGradient.self, RadialGradient.self] {
            let image = try #require(try verifier.verify(type, inputs: ["like": .image(like)])["output"]).image()
            #expect(image.extent == like.extent && image.layout == .rgb)
        }
    }

    /// A relative radial gradient is an ellipse with the image's aspect: on a 200x100 image, the points
    /// at the middle of the right edge and of the bottom edge have the same value.
    @Test func relativeRadialGradientIsAnEllipse() throws {
        let image = try #require(
            try verifier.verify(
                RadialGradient.self,
                parameters: [
                    "width": 200, "height": 100, "units": Gradient.Units.relative, "center": [0.5, 0.5],
                    "radius0": 0.0, "radius1": 1.0,
                ])["output"]
        ).image().pixels()
        #expect(abs(image[199, 49, 0] - image[99, 99, 0]) < 0.01)
        #expect(abs(image[199, 49, 0] - 0.5) < 0.01)
    }

    @Test func refuseWhatCannotMakeAnImage() throws {
        let linear = try NodeDeclaration(LinearGradient.self)
        let mistakes: [([String: any ParameterValue], String)] = [
            (["width": 10], "width"),
            (["height": 10], "height"),
            (["width": 10, "height": 10, "point1": [0.0, 0]], "point1"),
        ]
        for (parameters, at) in mistakes {
            let node = try linear.instantiate(parameters: parameters, inputs: [:])
            #expect(throws: NodeProblem.self) { try node.validate() }
            #expect(node.validate(in: ValidationContext()).first?.parameter == at)
        }
        let unsized = try NodeDeclaration(RadialGradient.self).instantiate(parameters: [:], inputs: [:])
        #expect(throws: NodeProblem.self) { try unsized.run() }
    }
}
