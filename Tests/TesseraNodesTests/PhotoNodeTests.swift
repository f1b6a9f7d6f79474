import Testing
import TesseraCore
@testable import TesseraNodes
import TesseraTesting

/// The photo nodes against references made independently of Tessera by Scripts/make-photo-fixtures.py:
/// Core Image's documented formulas and Photoshop's levels written out in NumPy (float64), numpy's own
/// flips, turns and pads, OpenCV's warpAffine and SciPy's map_coordinates. Every run also passes the
/// shared node verifier (random tilings, reads inside the declared regions).
@Suite struct PhotoNodeTests {
    let verifier = NodeVerifier()

    func output(
        _ type: any Node.Type, _ parameters: [String: any ParameterValue] = [:], on image: Image,
        sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) throws -> Image {
        let outputs = try verifier.verify(type, parameters: parameters, inputs: ["input": .image(image)])
        return try #require(outputs["output"], sourceLocation: sourceLocation).image()
    }

    // MARK: The shared verifier, on made-up runs

    @Test(
        arguments: [
            Exposure.self, ColorControls.self, Vibrance.self, Levels.self, ToneCurve.self, Flip.self, Rotate.self,
            Pad.self,
        ] as [any Node.Type])
    func passesTheVerifiersOwnRuns(_ type: any Node.Type) throws {
        let runs = try NodeVerifier().verifyCases(of: type)
        #expect(!runs.isEmpty)
    }
}

// MARK: Point nodes: the formula in NumPy (float64) against Float32 here: within 1e-5 (measured below
// 1e-6; pow in levels is the widest).

extension PhotoNodeTests {
    static let pointTolerance: Float = 1e-5

    @Test(arguments: [(0.7, "photo-exposure-0.7.f32"), (-1.5, "photo-exposure--1.5.f32")])
    func exposureMatchesTheFormula(_ ev: Double, _ fixture: String) throws {
        let photo = try Fixtures.image("photo-alpha.png")
        let result = try output(Exposure.self, ["ev": ev], on: photo)
        #expect(result.layout == .rgba)
        let diff = difference(try result.pixels(), try Fixtures.reference(fixture))
        #expect(diff.max < Self.pointTolerance, "max \(diff.max)")
    }

    @Test func colorControlsMatchesCoreImagesFormula() throws {
        let vivid = try output(
            ColorControls.self, ["saturation": 1.4, "brightness": 0.05, "contrast": 1.2],
            on: try Fixtures.image("photo.png"))
        #expect(vivid.layout == .rgb)
        var diff = difference(try vivid.pixels(), try Fixtures.reference("photo-colorControls-vivid.f32"))
        #expect(diff.max < Self.pointTolerance, "vivid: max \(diff.max)")
        let muted = try output(
            ColorControls.self, ["saturation": 0.3, "brightness": -0.1, "contrast": 0.8],
            on: try Fixtures.image("photo-alpha.png"))
        diff = difference(try muted.pixels(), try Fixtures.reference("photo-colorControls-muted.f32"))
        #expect(diff.max < Self.pointTolerance, "muted: max \(diff.max)")
        // Gray stays one channel; saturation cannot change it.
        let gray = try output(ColorControls.self, ["saturation": 0.0], on: TestImages.gray())
        #expect(gray.layout == .gray)
        let unchanged = difference(try gray.pixels(), Fixtures.reference(of: try TestImages.gray().pixels()))
        #expect(unchanged.max <= 1e-6, "max \(unchanged.max)")
    }

    @Test(arguments: [
        (0.8, "photo.png", "photo-vibrance-0.8.f32"), (-0.6, "photo-alpha.png", "photo-vibrance--0.6.f32"),
    ])
    func vibranceMatchesItsFormula(_ amount: Double, _ input: String, _ fixture: String) throws {
        let result = try output(Vibrance.self, ["amount": amount], on: try Fixtures.image(input))
        let diff = difference(try result.pixels(), try Fixtures.reference(fixture))
        #expect(diff.max < Self.pointTolerance, "max \(diff.max)")
    }

    /// Vibrance's point: a muted color gains more saturation than a vivid one.
    @Test func vibranceFavorsMutedColors() throws {
        let colors: [Float] = [0.5, 0.45, 0.4, 1, 1, 0.1, 0.1, 1]  // muted, then vivid
        let image = Image(
            buffer: PixelBuffer(region: Rect(width: 2, height: 1), channels: 4, samples: colors), layout: .rgba)
        let pixels = try output(Vibrance.self, ["amount": 1.0], on: image).pixels().samples
        let spread = { (p: ArraySlice<Float>) in (p.prefix(3).max() ?? 0) - (p.prefix(3).min() ?? 0) }
        #expect(spread(pixels[0..<4]) / spread(colors[0..<4]) > 1.8)
        #expect(spread(pixels[4..<8]) / spread(colors[4..<8]) < 1.2)
    }

    @Test func levelsMatchesPhotoshopsFormula() throws {
        let all = try output(
            Levels.self,
            ["inputBlack": 0.1, "inputWhite": 0.85, "gamma": 1.4, "outputBlack": 0.05, "outputWhite": 0.95],
            on: try Fixtures.image("photo.png"))
        var diff = difference(try all.pixels(), try Fixtures.reference("photo-levels-rgb.f32"))
        #expect(diff.max < Self.pointTolerance, "rgb: max \(diff.max)")
        let red = try output(
            Levels.self, ["inputBlack": 0.2, "inputWhite": 0.9, "gamma": 0.7, "channel": Levels.Channel.red],
            on: try Fixtures.image("photo-alpha.png"))
        diff = difference(try red.pixels(), try Fixtures.reference("photo-levels-red.f32"))
        #expect(diff.max < Self.pointTolerance, "red: max \(diff.max)")
        try output(Levels.self, ["gamma": 2.2], on: TestImages.gray())
    }

    /// Against SciPy's PchipInterpolator: an S-curve, and a curve that turns (a flat top) and clips
    /// outside its points.
    @Test func toneCurveMatchesSciPysPCHIP() throws {
        let s = try output(
            ToneCurve.self, ["points": [0.0, 0, 0.25, 0.18, 0.5, 0.5, 0.75, 0.85, 1, 1]],
            on: try Fixtures.image("photo.png"))
        var diff = difference(try s.pixels(), try Fixtures.reference("photo-toneCurve-s.f32"))
        #expect(diff.max < Self.pointTolerance, "s: max \(diff.max)")
        let peak = try output(
            ToneCurve.self, ["points": [0.1, 0.0, 0.5, 0.7, 0.9, 0.4]], on: try Fixtures.image("photo-alpha.png"))
        diff = difference(try peak.pixels(), try Fixtures.reference("photo-toneCurve-peak.f32"))
        #expect(diff.max < Self.pointTolerance, "peak: max \(diff.max)")
        // Two points: a straight line.
        let line = try output(ToneCurve.self, ["points": [0.0, 0.2, 1, 0.8]], on: TestImages.gray())
        let expected = try TestImages.gray().pixels().samples.map { 0.2 + 0.6 * $0 }
        #expect(zip(try line.pixels().samples, expected).allSatisfy { abs($0 - $1) < 1e-6 })
    }

    @Test func toneCurveRefusesBadPoints() throws {
        for points in [[0.0, 0, 1], [0.5, 0, 0.5, 1], [0.0, 0]] {
            #expect(throws: NodeProblem.self) {
                try output(ToneCurve.self, ["points": points], on: TestImages.gray())
            }
        }
    }

    @Test func levelsRefusesAWhitePointBelowTheBlack() throws {
        #expect(throws: NodeProblem.self) {
            try output(Levels.self, ["inputBlack": 0.6, "inputWhite": 0.4], on: TestImages.gray())
        }
    }
}

// MARK: Flips, quarter turns and pads: exact, against numpy's fliplr/flipud/rot90/pad

extension PhotoNodeTests {
    @Test(arguments: [
        (Flip.Direction.horizontal, "photo-flip-horizontal.png"), (.vertical, "photo-flip-vertical.png"),
        (.both, "photo-flip-both.png"),
    ])
    func flipIsNumpysFlip(_ direction: Flip.Direction, _ fixture: String) throws {
        let result = try output(Flip.self, ["direction": direction], on: try Fixtures.image("photo-alpha.png"))
        #expect(try result.pixels() == Fixtures.image(fixture).pixels())
        try output(Flip.self, ["direction": direction], on: TestImages.gray())
    }

    @Test(arguments: [
        (90.0, "photo-rotate-90.png"), (180, "photo-rotate-180.png"), (270, "photo-rotate-270.png"),
        (-90, "photo-rotate-270.png"), (-270, "photo-rotate-90.png"), (450, "photo-rotate-90.png"),
    ])
    func quarterTurnsAreNumpysRot90(_ angle: Double, _ fixture: String) throws {
        let result = try output(Rotate.self, ["angle": angle], on: try Fixtures.image("photo-alpha.png"))
        let expected = try Fixtures.image(fixture)
        #expect(result.width == expected.width && result.height == expected.height && result.layout == .rgba)
        #expect(try result.pixels() == expected.pixels())
        try output(Rotate.self, ["angle": angle], on: TestImages.gray())
    }

    @Test func padMatchesNumpysPad() throws {
        let photo = try Fixtures.image("photo-alpha.png")
        let cases: [([String: any ParameterValue], String)] = [
            (
                ["aspectRatio": Ratio.terms(width: 16, height: 9), "color": [0.2, 0.4, 0.6, 1.0]],
                "photo-pad-color-16x9.png"
            ),
            (
                ["width": 120, "height": 90, "fill": Pad.Fill.extend, "position": Pad.Position.topLeft],
                "photo-pad-extend-120x90-topLeft.png"
            ),
            (["width": 300, "height": 100, "fill": Pad.Fill.mirror], "photo-pad-mirror-300x100.png"),
        ]
        for (parameters, fixture) in cases {
            let result = try output(Pad.self, parameters, on: photo)
            let expected = try Fixtures.image(fixture)
            let pixels = try result.pixels()
            #expect(result.width == expected.width && result.height == expected.height)
            // The color fill is 0.2 as a parameter and 51/255 in the file: one rounding apart at most.
            let diff = difference(pixels, Fixtures.reference(of: try expected.pixels()))
            #expect(diff.max <= 1e-7, "\(fixture): max \(diff.max)")
        }
        // Gray over gray stays gray; a transparent color gives alpha.
        #expect(
            try output(Pad.self, ["width": 70, "color": [0.5, 0.5, 0.5, 1.0]], on: TestImages.gray()).layout == .gray)
        #expect(
            try output(Pad.self, ["height": 60, "color": [0.0, 0, 0, 0]], on: TestImages.gray()).layout == .grayAlpha)
        #expect(
            try output(
                Pad.self, ["height": 60, "fill": Pad.Fill.mirror, "position": Pad.Position.bottomRight],
                on: TestImages.rgba()
            )
            .height == 60)
    }

    @Test func padNeverCrops() throws {
        let image = TestImages.gray()
        let kept = try output(Pad.self, ["width": 10, "height": image.height + 4], on: image)
        #expect(kept.width == image.width && kept.height == image.height + 4)
        #expect(throws: NodeProblem.self) { try output(Pad.self, [:], on: TestImages.gray()) }
    }
}

// MARK: Rotation by any angle against OpenCV's warpAffine (BORDER_CONSTANT)

extension PhotoNodeTests {
    /// OpenCV computes sample positions in fixed point (1/32 pixel for bilinear and bicubic, 1/1024 for
    /// nearest), so it differs from exact positions by up to 1/64 pixel times the local slope. Measured:
    /// bilinear max 0.0108 (mean 3e-4), bicubic max 0.0119 (mean 5e-4), transparent bilinear max 0.0148;
    /// tolerances 0.015 (0.02 with alpha) and mean 1e-3. The exact test below pins the geometry itself.
    @Test(arguments: [
        (30.0, Rotate.Interpolation.bilinear, "photo-rotate-30-bilinear.f32", Float(0.015), Float(1e-3)),
        (17.5, .bicubic, "photo-rotate-17.5-bicubic.f32", 0.015, 1e-3),
    ])
    func rotationMatchesOpenCV(
        _ angle: Double, _ interpolation: Rotate.Interpolation, _ fixture: String, _ maximum: Float, _ mean: Float
    ) throws {
        let result = try output(
            Rotate.self, ["angle": angle, "interpolation": interpolation, "background": [0.2, 0.4, 0.6, 1.0]],
            on: try Fixtures.image("photo-small.png"))
        #expect(result.layout == .rgb)
        let diff = difference(try result.pixels(), try Fixtures.reference(fixture), channels: 3)
        #expect(diff.max <= maximum && diff.mean <= mean, "max \(diff.max), mean \(diff.mean)")
    }

    /// Nearest picks the same pixel but where a position lies within OpenCV's 1/1024 pixel of a tie
    /// (measured: 2 of 3540 pixels); at most 0.5% may differ.
    @Test func nearestRotationPicksOpenCVsPixels() throws {
        let result = try output(
            Rotate.self,
            ["angle": -40.0, "interpolation": Rotate.Interpolation.nearest, "background": [0.2, 0.4, 0.6, 1.0]],
            on: try Fixtures.image("photo-small.png"))
        let pixels = try result.pixels()
        let reference = try Fixtures.reference("photo-rotate--40-nearest.f32")
        #expect(pixels.region.width == reference.width && pixels.region.height == reference.height)
        var differing = 0
        for p in 0..<(reference.width * reference.height) {
            if (0..<3).contains(where: { abs(pixels.samples[p * 4 + $0] - reference.samples[p * 3 + $0]) > 1e-6 }) {
                differing += 1
            }
        }
        #expect(differing * 200 <= reference.width * reference.height, "\(differing) pixels differ")
    }

    /// The exact bilinear turn (SciPy's map_coordinates in float64, `grid-constant` border) pins the
    /// geometry down to rounding: measured 1.8e-7, tolerance 1e-6.
    @Test func bilinearRotationIsExact() throws {
        let result = try output(
            Rotate.self, ["angle": 30.0, "background": [0.2, 0.4, 0.6, 1.0]], on: try Fixtures.image("photo-small.png"))
        let diff = difference(
            try result.pixels(), try Fixtures.reference("photo-rotate-30-bilinear-exact.f32"), channels: 3)
        #expect(diff.max <= 1e-6, "max \(diff.max)")
    }

    /// A transparent background (the default): alpha fades at the edges, colors do not darken.
    @Test func transparentRotationKeepsEdgeColors() throws {
        let result = try output(Rotate.self, ["angle": 30.0], on: try Fixtures.image("photo-small.png"))
        #expect(result.layout == .rgba)
        let diff = difference(try result.pixels(), try Fixtures.reference("photo-rotate-30-bilinear-transparent.f32"))
        #expect(diff.max <= 0.02 && diff.mean <= 1e-3, "max \(diff.max), mean \(diff.mean)")
    }

    @Test func rotationKeepsTheSizeWhenAsked() throws {
        let photo = try Fixtures.image("photo-small.png")
        let kept = try output(Rotate.self, ["angle": 10.0, "keepSize": true], on: photo)
        #expect(kept.width == 48 && kept.height == 36)
        let turned = try output(
            Rotate.self, ["angle": 90.0, "keepSize": true, "interpolation": Rotate.Interpolation.bicubic], on: photo)
        #expect(turned.width == 48 && turned.height == 36)
        let grown = try output(
            Rotate.self, ["angle": 45.0, "interpolation": Rotate.Interpolation.bicubic], on: TestImages.gray())
        #expect(grown.layout == .grayAlpha)
    }
}
