import Testing
import TesseraCore
@testable import TesseraCatalog
@testable import TesseraGraph
@testable import TesseraPluginHost
@testable import TesseraRunner
@testable import TesseraNodes
import TesseraTesting

/// Resize against Pillow's `Image.resize` on float images, one channel at a time
/// (Scripts/make-resize-fixtures.py). Pillow computes weights and sums in Double and rounds to Float32
/// between its two passes; the node keeps weights and sums in Float32. Measured: nearest picks the
/// same pixels (6e-8, the last bit of the 8-bit decode's division), bilinear differs by at most 2.4e-7,
/// bicubic 3.0e-7, lanczos3 3.6e-7. Tolerances: 1e-7 for nearest, 1e-6 for the filters.
@Suite struct ResizeTests {
    let verifier = NodeVerifier()

    /// The fixtures: a name, the parameters that size the output, and the channels the reference holds.
    static let cases: [(name: String, size: [String: any ParameterValue])] = [
        ("37x29", ["width": 37, "height": 29]),  // down by 2.59 x 2.48
        ("211x157", ["width": 211, "height": 157]),  // up by 2.20 x 2.18
        ("half", ["factor": 0.5]),
        ("double", ["factor": 2.0]),
    ]

    static func tolerance(_ interpolation: Resize.Interpolation) -> Float {
        interpolation == .nearest ? 1e-7 : 1e-6
    }

    func resized(
        _ image: Image, _ parameters: [String: any ParameterValue], like: Image? = nil,
        sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) throws -> Image {
        var inputs: [String: NodeValue] = ["input": .image(image)]
        if let like { inputs["like"] = .image(like) }
        let outputs = try verifier.verify(
            Resize.self, parameters: parameters, inputs: inputs)
        return try #require(outputs["output"], sourceLocation: sourceLocation).image()
    }

    // MARK: The shared verifier

    @Test(arguments: Resize.Interpolation.allCases)
    func passesTheVerifier(_ interpolation: Resize.Interpolation) throws {
        let images = [TestImages.rgba(), TestImages.rgba(alpha: false), TestImages.gray()]
        // Down a little, down a lot (a wide filter), up, and up in x while down in y.
        let sizes = [(37, 29), (7, 5), (150, 97), (131, 20)]
        for image in images {
            for (width, height) in sizes {
                let output = try resized(
                    image, ["width": width, "height": height, "interpolation": interpolation])
                #expect(output.width == width && output.height == height)
                #expect(output.layout == image.layout && output.depth == image.depth)
            }
        }
    }

    // MARK: Against Pillow

    @Test(arguments: Resize.Interpolation.allCases)
    func matchesPillow(_ interpolation: Resize.Interpolation) throws {
        let photo = try Fixtures.image("photo.png")
        for (name, size) in Self.cases {
            var parameters = size
            parameters["interpolation"] = interpolation
            let output = try resized(photo, parameters)
            #expect(output.layout == .rgb)
            let pixels = try output.pixels()
            let diff = difference(pixels, try Fixtures.reference("resize-\(interpolation.rawValue)-\(name).f32"))
            #expect(diff.max <= Self.tolerance(interpolation), "\(interpolation) \(name): max \(diff.max)")
            #expect(stride(from: 3, to: pixels.samples.count, by: 4).allSatisfy { pixels.samples[$0] == 1 })
        }
    }

    /// The one-channel path against the same references: the photo's red channel as a gray image.
    @Test(arguments: Resize.Interpolation.allCases)
    func grayMatchesPillow(_ interpolation: Resize.Interpolation) throws {
        let photo = try Fixtures.image("photo.png").pixels()
        var red = PixelBuffer(region: photo.region, channels: 1)
        for i in 0..<photo.region.area { red.samples[i] = photo.samples[i * 4] }
        let gray = Image(buffer: red, layout: .gray, depth: .uint8)
        for (name, size) in Self.cases {
            var parameters = size
            parameters["interpolation"] = interpolation
            let output = try resized(gray, parameters)
            #expect(output.layout == .gray)
            let diff = difference(
                try output.pixels(), try Fixtures.reference("resize-\(interpolation.rawValue)-\(name).f32"))
            #expect(diff.max <= Self.tolerance(interpolation), "\(interpolation) \(name): max \(diff.max)")
        }
    }

    /// Straight alpha, premultiplied inside: compared as what is seen (color times alpha, and alpha),
    /// since a color divided by a small alpha magnifies the rounding; and as straight color where
    /// alpha is at least 0.25.
    @Test(arguments: [("bicubic-37x29", 37, 29, Resize.Interpolation.bicubic), ("lanczos3-160x40", 160, 40, .lanczos3)])
    func alphaMatchesPillow(_ name: String, _ width: Int, _ height: Int, _ interpolation: Resize.Interpolation)
        throws
    {
        let photo = try Fixtures.image("photo-alpha.png")
        let output = try resized(photo, ["width": width, "height": height, "interpolation": interpolation])
        #expect(output.layout == .rgba)
        let pixels = try output.pixels()
        let reference = try Fixtures.reference("resize-alpha-\(name).f32")
        var seen: Float = 0
        var straight: Float = 0
        for p in 0..<(width * height) {
            let a = pixels.samples[p * 4 + 3]
            let b = reference.samples[p * 4 + 3]
            seen = max(seen, abs(a - b))
            for c in 0..<3 {
                let x = pixels.samples[p * 4 + c]
                let y = reference.samples[p * 4 + c]
                seen = max(seen, abs(x * a - y * b))
                if b >= 0.25 { straight = max(straight, abs(x - y)) }
            }
        }
        #expect(seen <= 1e-6, "\(name): premultiplied max \(seen)")
        #expect(straight <= 1e-6, "\(name): straight color max \(straight)")
    }

    // MARK: Without antialiasing (the shrink saliency uses)

    /// `antialias: false` samples two pixels a side at each output pixel's center, as OpenCV's bilinear
    /// `resize` does (Scripts/make-resize-fixtures.py, OpenCV on float32). Measured: at most 1.8e-7
    /// apart; tolerance 1e-6. Tilings give the same bits as a whole render.
    @Test(arguments: [(37, 29), (11, 7)])
    func withoutAntialiasingMatchesOpenCV(_ width: Int, _ height: Int) throws {
        let photo = try Fixtures.image("photo.png")
        let kernel = Resize.Kernel(
            input: (photo.width, photo.height), output: (width, height), layout: photo.layout,
            interpolation: .bilinear, antialias: false)
        let shrunk = Image(
            width: width, height: height, layout: photo.layout, depth: .float32, kernel: kernel,
            inputs: [KernelInput(photo)])
        let whole = try shrunk.pixels()
        let diff = difference(whole, try Fixtures.reference("resize-opencv-bilinear-\(width)x\(height).f32"))
        print("resize without antialiasing \(width)x\(height): max \(diff.max) from OpenCV")
        #expect(diff.max <= 1e-6, "max \(diff.max)")
        var random = SplitMix(seed: 7)
        #expect(try verifier.renderTiled(shrunk, random: &random).hasSameBits(as: whole))
    }

    // MARK: Sizing

    @Test func likeTakesTheOtherImagesSize() throws {
        let heat = TestImages.gray(width: 16, height: 16)
        let photo = TestImages.rgba(width: 61, height: 47)
        let output = try resized(heat, [:], like: photo)
        #expect(output.width == 61 && output.height == 47)
        #expect(output.layout == .gray)
    }

    @Test func oneSideKeepsTheAspectRatio() throws {
        let photo = TestImages.rgba(width: 96, height: 72)
        let byWidth = try resized(photo, ["width": 37])
        #expect(byWidth.width == 37 && byWidth.height == 28)  // 72 * 37 / 96 = 27.75
        let byHeight = try resized(photo, ["height": 36])
        #expect(byHeight.width == 48 && byHeight.height == 36)
        let byFactor = try resized(photo, ["factor": 0.3])
        #expect(byFactor.width == 29 && byFactor.height == 22)  // 28.8 and 21.6 rounded
        let tiny = try resized(photo, ["factor": 0.001])
        #expect(tiny.width == 1 && tiny.height == 1)
    }

    @Test func sameSizeIsTheInputItself() throws {
        let photo = TestImages.rgba()
        let output = try resized(photo, ["width": photo.width, "height": photo.height])
        #expect(try output.pixels().hasSameBits(as: try photo.pixels()))
    }

    /// Each way of asking for two sizes, or none, and the problem it gives: in validation where the
    /// parameters alone show it, when the node runs where `like` is involved.
    @Test func refusesConflictingOrMissingSizes() throws {
        let declaration = try NodeDeclaration(Resize.self)
        let image = NodeValue.image(TestImages.gray())
        let mistakes: [(parameters: [String: any ParameterValue], like: Bool, parameter: String, message: String)] = [
            (["factor": 0.5, "width": 10], false, "factor", "give either factor or width/height, not both"),
            (["factor": 0.5, "height": 10], false, "factor", "give either factor or width/height, not both"),
            (["width": 10], true, "width", "give either 'width' or the 'like' input, not both"),
            (["height": 10], true, "height", "give either 'height' or the 'like' input, not both"),
            (["factor": 2.0], true, "factor", "give either 'factor' or the 'like' input, not both"),
            ([:], false, "width", "the output size is missing: give width and/or height, or factor, or connect 'like'"),
            (["height": 1_000_000], false, "height", "gives a 1292683x1000000 output from 53x41; sides are at most"),
        ]
        for mistake in mistakes {
            var inputs = ["input": image]
            if mistake.like { inputs["like"] = image }
            let node = try declaration.instantiate(parameters: mistake.parameters, inputs: inputs)
            do {
                _ = try node.run()
                Issue.record("\(mistake.parameters) with like: \(mistake.like) was accepted")
            } catch let problem as NodeProblem {
                #expect(problem.parameter == mistake.parameter)
                #expect(problem.message.hasPrefix(mistake.message), "\(problem.message)")
            }
        }
    }

    @Test func validationNamesTheParameter() throws {
        let text = """
            version: 1
            nodes:
              photo: { op: load, path: photo.png }
              small: { op: resize, input: photo, width: 10, factor: 0.5 }
              out: { op: save, input: small, path: small.png }
            """
        let catalog = try Catalog(BuiltinNodes.all)
        do {
            _ = try Graph.parse(text, file: "g.yaml", baseFolder: "", catalog: catalog)
            Issue.record("a resize with width and factor validated")
        } catch {
            #expect(
                error.diagnostics.map(\.description) == [
                    "g.yaml:4:57: error: small.factor: give either factor or width/height, not both: "
                        + "they size the output two ways"
                ])
        }
    }

    /// The scheduler sizes an input's cache by probing the region one tile reads at (4 tiles, 4 tiles),
    /// which may lie past a small output. The kernel answers with what the filter would read there, so
    /// a 4x shrink still gets a cache of the 4 rows of tiles it needs (without it, a PNG decoder was
    /// restarted for every tile: 6x slower).
    @Test func probesOutsideTheOutputSeeTheFiltersReach() {
        let kernel = Resize.Kernel(
            input: (7680, 4320), output: (1920, 1080), layout: .rgb, interpolation: .bicubic)
        let probe = kernel.inputRegion(for: Rect(x: 1024, y: 1024, width: 256, height: 256), input: 0)
        #expect(probe.width >= 1024 + 8 && probe.height >= 1024 + 8)
        let outside = kernel.inputRegion(for: Rect(x: 4096, y: 4096, width: 256, height: 256), input: 0)
        #expect(outside.width >= 1024 && outside.height >= 1024)
        let inside = kernel.inputRegion(for: Rect(x: 256, y: 256, width: 256, height: 256), input: 0)
        #expect(inside == Rect(x: 1018, y: 1018, width: 1036, height: 1036))  // 1024 and 6 on each side
    }

    /// A shrink of a whole image read once, band by band (saliency's grid), gives the bits of the
    /// kernel's own render, whatever the bands: each output sample sums the same taps in the same order.
    @Test(arguments: Resize.Interpolation.allCases)
    func renderingWholeInBandsGivesTheKernelsBits(_ interpolation: Resize.Interpolation) throws {
        let images = [TestImages.rgba(), TestImages.rgba(alpha: false), TestImages.gray()]
        for image in images {
            for (width, height) in [(9, 7), (64, 64), (80, 90), (120, 13)] {
                for antialias in [true, false] {
                    let kernel = Resize.Kernel(
                        input: (image.width, image.height), output: (width, height), layout: image.layout,
                        interpolation: interpolation, antialias: antialias)
                    let rendered = try Image(
                        width: width, height: height, layout: image.layout, depth: .float32, kernel: kernel,
                        inputs: [KernelInput(image)]
                    ).pixels()
                    for bandRows in [1, 5, 16, 1000] {
                        let whole = try kernel.renderWhole(from: image, bandRows: bandRows)
                        #expect(
                            whole == rendered,
                            "\(interpolation) \(image.layout) \(width)x\(height) antialias \(antialias), bands of \(bandRows)"
                        )
                    }
                }
            }
        }
    }

    // MARK: What a user sees

    /// An opaque white square on transparent black: wherever the output is not fully transparent, its
    /// color is still white. Without premultiplication the black around would bleed into the edge.
    @Test(arguments: Resize.Interpolation.allCases)
    func transparentPixelsNeverDarkenEdges(_ interpolation: Resize.Interpolation) throws {
        for layout in [PixelLayout.rgba, .grayAlpha] {
            var buffer = PixelBuffer(region: Rect(width: 40, height: 40), channels: 4)
            for y in 12..<28 {
                for x in 12..<28 {
                    for c in 0..<4 { buffer[x, y, c] = 1 }
                }
            }
            let square = Image(buffer: buffer, layout: layout, depth: .uint8)
            for (width, height) in [(17, 13), (93, 101)] {
                let output = try resized(
                    square, ["width": width, "height": height, "interpolation": interpolation])
                let pixels = try output.pixels()
                var visible = 0
                for p in 0..<(width * height) {
                    let alpha = pixels.samples[p * 4 + 3]
                    #expect(alpha >= 0 && alpha <= 1)
                    guard alpha > 0 else { continue }
                    visible += 1
                    for c in 0..<3 where pixels.samples[p * 4 + c] != 1 {
                        Issue.record(
                            "\(interpolation) \(layout) \(width)x\(height): color \(pixels.samples[p * 4 + c])")
                        return
                    }
                }
                #expect(visible > 0)
            }
        }
    }

    /// Shrinking is antialiased: a one-pixel checkerboard shrunk by a non-integer factor is an even
    /// gray, where point sampling would give black and white.
    @Test(arguments: [Resize.Interpolation.bilinear, .bicubic, .lanczos3])
    func shrinkingDoesNotAlias(_ interpolation: Resize.Interpolation) throws {
        var buffer = PixelBuffer(region: Rect(width: 256, height: 256), channels: 1)
        for y in 0..<256 {
            for x in 0..<256 { buffer[x, y, 0] = (x + y) % 2 == 0 ? 1 : 0 }
        }
        let board = Image(buffer: buffer, layout: .gray, depth: .uint8)
        let output = try resized(board, ["width": 37, "height": 41, "interpolation": interpolation])
        let samples = try output.pixels().samples
        let spread = (samples.min() ?? 0, samples.max() ?? 1)
        #expect(spread.0 > 0.45 && spread.1 < 0.55, "\(interpolation): \(spread)")
    }
}
