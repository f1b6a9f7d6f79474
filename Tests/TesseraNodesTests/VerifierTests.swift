import Testing
@testable import TesseraNodes
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

    @Test func catchesReadsOutsideTheDeclaredRegion() throws {
        withKnownIssue {
            try NodeVerifier().verify(Leaky.self, inputs: ["input": .image(TestImages.rgba())])
        }
    }

    @Test func catchesTileDependentOutput() throws {
        withKnownIssue {
            try NodeVerifier().verify(TileDependent.self, inputs: ["input": .image(TestImages.gray())])
        }
    }
}
