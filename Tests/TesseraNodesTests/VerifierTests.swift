import Testing
@testable import TesseraNodes
import TesseraTesting
import TesseraCore

/// The verifier itself must fail nodes that break its rules; otherwise every node passing it proves
/// nothing.
@Suite struct VerifierTests {
    /// Reads its right-hand neighbour but declares only the output region.
    struct Leaky: Node {
        static let info = NodeInfo(
            op: "leaky", summary: "", access: .point, outputs: [.init("output", .image, doc: "")], example: "")
        @Input(doc: "") var input: Image

        func run() throws -> NodeOutputs {
            NodeOutputs(
                .image(
                    Image(
                        width: input.width, height: input.height, layout: input.layout, depth: input.depth,
                        kernel: Kernel(), inputs: [KernelInput(input)])))
        }

        struct Kernel: ImageKernel {
            func render(into output: inout PixelBuffer, from inputs: [PixelBuffer]) {
                let input = inputs[0]
                for y in output.region.minY..<output.region.maxY {
                    for x in output.region.minX..<output.region.maxX {
                        let next = Swift.min(x + 1, input.region.maxX - 1)
                        for c in 0..<output.channels { output[x, y, c] = input[next, y, c] }
                    }
                }
            }
        }
    }

    /// Writes where each tile starts: different tilings give different bits.
    struct TileDependent: Node {
        static let info = NodeInfo(
            op: "tileDependent", summary: "", access: .point, outputs: [.init("output", .image, doc: "")], example: "")
        @Input(doc: "") var input: Image

        func run() throws -> NodeOutputs {
            NodeOutputs(
                .image(
                    Image(
                        width: input.width, height: input.height, layout: input.layout, depth: input.depth,
                        kernel: Kernel(), inputs: [KernelInput(input)])))
        }

        struct Kernel: ImageKernel {
            func render(into output: inout PixelBuffer, from inputs: [PixelBuffer]) {
                let start = Float(output.region.minX)
                PointLoop.map(&output, inputs[0]) { $0 + start }
            }
        }
    }

    /// Calls itself a ``ChannelKernel`` (each channel a function of itself alone) but makes gray from
    /// red, green and blue: its 8-bit lookup table, made from pixels whose channels are all equal,
    /// cannot give what its Float32 render gives.
    struct MixesChannels: Node {
        static let info = NodeInfo(
            op: "mixesChannels", summary: "", access: .point, outputs: [.init("output", .image, doc: "")],
            example: "")
        @Input(doc: "") var input: Image

        func run() throws -> NodeOutputs { NodeOutputs(.image(Image(mapping: input, with: Kernel()))) }

        struct Kernel: ChannelKernel {
            func render(into output: inout PixelBuffer, from inputs: [PixelBuffer]) {
                PointLoop.map(&output, inputs[0]) { pixel in
                    let gray = (pixel.x + pixel.y + pixel.z) / 3
                    return SIMD4(gray, gray, gray, pixel.w)
                }
            }
        }
    }

    /// A ``FormatKernel`` whose packed path writes each byte one level above what its Float32 render
    /// rounds to.
    struct OffByOne: Node {
        static let info = NodeInfo(
            op: "offByOne", summary: "", access: .point, outputs: [.init("output", .image, doc: "")], example: "")
        @Input(doc: "") var input: Image

        func run() throws -> NodeOutputs { NodeOutputs(.image(Image(mapping: input, with: Kernel()))) }

        struct Kernel: FormatKernel {
            func render(into output: inout PixelBuffer, from inputs: [PixelBuffer]) {
                output.copy(from: inputs[0])
            }

            func computes(_ output: SampleEncoder, from inputs: [SampleFormat?]) -> Bool {
                inputs[0]?.depth == .uint8 && output.packed == inputs[0]
            }

            func render(into output: PackedOutput, from inputs: [KernelSamples]) {
                guard case .packed(let input) = inputs[0] else { return }
                let count = output.region.width * input.format.bands
                for row in 0..<output.region.height {
                    let from = input.pointer(x: output.region.minX, y: output.region.minY + row)
                    let to = output.base + row * output.rowBytes
                    for i in 0..<count {
                        to.storeBytes(
                            of: from.load(fromByteOffset: i, as: UInt8.self) &+ 1, toByteOffset: i, as: UInt8.self)
                    }
                }
            }
        }
    }

    /// Says before any pixel that it halves its input and shrinks it twice over; its run copies it.
    struct MisPrepared: Node {
        static let info = NodeInfo(
            op: "misPrepared", summary: "", access: .geometry, outputs: [.init("output", .image, doc: "")], example: "")
        @Input(doc: "") var input: Image

        func prepare(_ inputs: [String: ImageShape]) -> Preparation {
            guard let input = inputs["input"] else { return Preparation() }
            return Preparation(
                outputSizes: ["output": .init(width: input.width / 2, height: input.height / 2)],
                inputShrinks: ["input": 2])
        }

        func run() throws -> NodeOutputs { NodeOutputs(.image(input)) }
    }

    /// Declared a point node, but its kernel averages each pixel with its left and right neighbours.
    struct NeighbourlyPoint: Node {
        static let info = NodeInfo(
            op: "neighbourlyPoint", summary: "", access: .point, outputs: [.init("output", .image, doc: "")],
            example: "")
        @Input(doc: "") var input: Image

        func run() throws -> NodeOutputs { NodeOutputs(.image(Image(mapping: input, with: Kernel()))) }

        struct Kernel: ImageKernel {
            func inputRegion(for output: Rect, input index: Int) -> Rect { output.insetBy(dx: -1, dy: 0) }
            func render(into output: inout PixelBuffer, from inputs: [PixelBuffer]) {
                for y in output.region.minY..<output.region.maxY {
                    for x in output.region.minX..<output.region.maxX {
                        for c in 0..<output.channels {
                            output[x, y, c] = (inputs[0][x - 1, y, c] + inputs[0][x, y, c] + inputs[0][x + 1, y, c]) / 3
                        }
                    }
                }
            }
        }
    }

    /// A parameter whose default lies outside its own range.
    struct BadDefault: Node {
        static let info = NodeInfo(
            op: "badDefault", summary: "", access: .point, outputs: [.init("output", .image, doc: "")], example: "")
        @Input(doc: "") var input: Image
        @Parameter(doc: "An amount.", range: 0...1) var amount = 2.0

        func run() throws -> NodeOutputs { NodeOutputs(.image(input)) }
    }

    /// Each failure the library finds, recorded as an issue: the verifier is the one in TesseraTesting
    /// that plugin authors use.
    static func record(_ verification: NodeVerification) {
        for failure in verification.failures { Issue.record(Comment(rawValue: failure.description)) }
    }

    @Test func catchesReadsOutsideTheDeclaredRegion() throws {
        withKnownIssue {
            Self.record(try NodeVerifier().check(Leaky.self, inputs: ["input": .image(TestImages.rgba())]))
        }
    }

    @Test func catchesTileDependentOutput() throws {
        withKnownIssue {
            Self.record(try NodeVerifier().check(TileDependent.self, inputs: ["input": .image(TestImages.gray())]))
        }
    }

    /// The failures say which check, node, output, region and pixel, and the values on each side.
    @Test func failuresNameTheRegionThePixelAndTheValues() throws {
        let leaky = try NodeVerifier().check(Leaky.self, inputs: ["input": .image(TestImages.rgba())])
        let leak = try #require(leaky.failures.first { $0.check == .declaredRegion })
        #expect(leak.op == "leaky" && leak.port == "output" && leak.subject == "input: 61x47 rgba")
        let region = try #require(leak.region)
        let sample = try #require(leak.sample)
        #expect(region.contains(x: sample.x, y: sample.y) && leak.got?.isNaN == true && leak.expected?.isNaN == false)
        #expect(leak.description.hasPrefix("leaky.output (input: 61x47 rgba): reads outside the input region"))
        #expect(leak.description.contains("\(sample) in region \(region): expected "))

        let tiled = try NodeVerifier().check(TileDependent.self, inputs: ["input": .image(TestImages.gray())])
        let tiling = try #require(tiled.failures.first { $0.check == .tiling })
        let tile = try #require(tiling.region)
        let pixel = try #require(tiling.sample)
        // The kernel adds the tile's left edge: a tile that does not start at 0 gets that much more.
        #expect(tile.minX > 0 && tile.contains(x: pixel.x, y: pixel.y))
        #expect(tiling.got == tiling.expected.map { $0 + Float(tile.minX) })
        #expect(
            tiled.failures.contains { $0.check == .regionRender }
                && !tiled.failures.contains { $0.check == .declaredRegion })
        #expect(throws: NodeVerificationError.self) {
            try NodeVerifier().verify(TileDependent.self, inputs: ["input": .image(TestImages.gray())])
        }
    }

    /// A packed path that disagrees with the Float32 render is found in the format it takes (8-bit
    /// here), named with the pixel and both levels; 16-bit inputs take the Float32 path and pass.
    @Test(arguments: [
        (TestImages.rgba(), "mixesChannels"), (TestImages.rgba(alpha: false), "offByOne"),
    ])
    func catchesAPackedPathThatDisagreesWithFloat32(_ image: Image, _ op: String) throws {
        let verification =
            op == "offByOne"
            ? try NodeVerifier().check(OffByOne.self, inputs: ["input": .image(image)])
            : try NodeVerifier().check(MixesChannels.self, inputs: ["input": .image(image)])
        #expect(verification.failures.map(\.check) == [.format], "\(verification.failures)")
        let failure = try #require(verification.failures.first)
        #expect(failure.subject.hasSuffix("(inputs uint8)"))
        #expect(failure.description.contains("written as uint8 x \(image.layout.fileChannels) in tiles of "))
        let expected = try #require(failure.expected)
        let got = try #require(failure.got)
        if op == "offByOne" {
            #expect(got == expected + 1 || (expected == 255 && got == 0))
        } else {
            #expect(got != expected)
        }
    }

    /// An output size and a shrink said in `prepare` that the run does not keep are both caught.
    @Test func catchesAPreparationTheRunDoesNotKeep() throws {
        let verification = try NodeVerifier().check(MisPrepared.self, inputs: ["input": .image(TestImages.rgba())])
        let messages = verification.failures.filter { $0.check == .prepare }.map(\.message)
        #expect(messages.count == 2, "\(messages)")
        #expect(messages.contains("prepare said 30x23, the run made 61x47"), "\(messages)")
        #expect(messages.contains { $0.contains("shrinks 'input' (61x47) 2.0 times") }, "\(messages)")
    }

    /// A kernel that reads a neighbourhood is not a point node's, whatever it declares.
    @Test func catchesAKernelThatIsNotItsDeclaredAccess() throws {
        let verification = try NodeVerifier().check(
            NeighbourlyPoint.self, inputs: ["input": .image(TestImages.rgba())])
        let access = verification.failures.filter { $0.check == .access }
        #expect(access.count == 1)
        #expect(access.first?.message.hasPrefix("is declared point, but for output region") == true, "\(access)")
        #expect(verification.failures.allSatisfy { $0.check == .access }, "\(verification.failures)")
    }

    @Test func catchesADefaultOutsideItsRange() throws {
        let verification = try NodeVerifier().check(BadDefault.self, inputs: ["input": .image(TestImages.gray())])
        #expect(verification.failures.map(\.check) == [.declaration])
        #expect(
            verification.failures.first?.description
                == "badDefault: amount: the default 2 is refused: 2 is out of range: 0...1")
        #expect(NodeVerifier().checkCases(of: BadDefault.self).flatMap(\.failures).map(\.check) == [.declaration])
    }

    /// The runs the verifier makes up: both test images at the defaults, each other choice, and numbers
    /// shaken inside their suggested ranges, each passing for a node that keeps the rules.
    @Test func makesUpRunsFromTheDeclaration() throws {
        let runs = NodeVerifier().checkCases(of: Contrast.self)
        #expect(runs.allSatisfy { $0.passed && $0.skipped == nil })
        #expect(runs.map(\.subject).prefix(2) == ["input: 61x47 rgba", "input: 53x41 gray"])
        #expect(runs.count == 3 && runs[2].subject.hasPrefix("amount: "))
        // A sink writes files: it is skipped, saying why.
        #expect(
            NodeVerifier().checkCases(of: Save.self).map(\.skipped) == ["a sink writes files; check it from a test"])
        #expect(throws: NodeVerificationError.self) { try NodeVerifier().verifyCases(of: TileDependent.self) }
    }

    /// A size whose hard range reaches a million pixels and which suggests none (`constant`'s width and
    /// height) is made up at a test image's scale: the run used to ask for terabytes and abort the process.
    @Test func hugeRangesAreTriedAtATestSize() throws {
        let runs = NodeVerifier().checkCases(of: Constant.self)
        let sized = try #require(runs.last)
        #expect(sized.subject.contains("width: ") && sized.subject.contains("height: "), "\(sized.subject)")
        #expect(sized.passed, "\(sized.failures)")
        guard case .image(let image)? = sized.outputs["output"] else {
            Issue.record("no image: \(sized.outputs.keys.sorted())")
            return
        }
        #expect((1...257).contains(image.width) && (1...257).contains(image.height))
    }
}
