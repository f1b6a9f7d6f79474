import Testing
import TesseraCore
@testable import TesseraEngine
@testable import TesseraNodes

/// The checks every node passes (STYLE.md rule 5), whatever it computes:
///
/// - its declaration registers: defaults inside their ranges, every property declared;
/// - rendering its output in random tilings gives the same bits as rendering it whole;
/// - its kernel reads nothing outside the input regions it declares: every input pixel outside them is
///   NaN, and no NaN may reach the output (which must also equal the whole render).
///
/// Call it from each node's tests with the node configured as a graph would configure it.
struct NodeVerifier {
    var seed: UInt64 = 0x5EED

    /// Configures `type` with `parameters` and `inputs`, runs it, checks every image output, and
    /// returns the outputs (by port name) for the node's own reference tests.
    @discardableResult
    func verify(
        _ type: any Node.Type, parameters: [String: any ParameterValue] = [:], inputs: [String: NodeValue] = [:],
        sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) throws -> [String: NodeValue] {
        try verify(
            NodeDeclaration(type), parameters: parameters, inputs: inputs, sourceLocation: sourceLocation)
    }

    /// The same checks for a declared node: a node type's, or a plugin's.
    @discardableResult
    func verify(
        _ declaration: NodeDeclaration, parameters: [String: any ParameterValue] = [:],
        inputs: [String: NodeValue] = [:], sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) throws -> [String: NodeValue] {
        for parameter in declaration.parameters {
            if let range = parameter.range, let value = parameter.defaultValue?.number {
                #expect(
                    range.contains(value), "\(parameter.name) default outside its range", sourceLocation: sourceLocation
                )
            }
        }
        let node = try declaration.instantiate(parameters: parameters, inputs: inputs)
        var outputs: [String: NodeValue] = [:]
        for (port, value) in try node.run().values {
            outputs[port.isEmpty ? declaration.outputs.first?.name ?? "" : port] = value
        }
        var random = SplitMix(seed: seed)
        for (port, value) in outputs {
            guard case .image(let image) = value else { continue }
            let whole = try image.pixels()
            for _ in 0..<3 {
                let same = sameBits(try renderTiled(image, random: &random), whole)
                #expect(
                    same, "\(declaration.op).\(port): a random tiling differs from the whole render",
                    sourceLocation: sourceLocation)
            }
            if let source = image.source as? KernelSource {
                for _ in 0..<6 {
                    let region = randomRegion(in: image.extent, random: &random)
                    let poisoned = try renderPoisoned(source, region: region, random: &random)
                    let leaked = poisoned.samples.contains { $0.isNaN }
                    #expect(
                        !leaked,
                        "\(declaration.op).\(port): reads outside its declared input region for \(region)",
                        sourceLocation: sourceLocation)
                    let same = sameBits(poisoned, whole.cropped(to: region))
                    #expect(
                        same,
                        "\(declaration.op).\(port): a region rendered from its declared inputs differs for \(region)",
                        sourceLocation: sourceLocation)
                }
            }
        }
        return outputs
    }

    /// Renders `image` as tiles of a random size, visited in a random order, into one buffer.
    func renderTiled(_ image: Image, random: inout SplitMix) throws -> PixelBuffer {
        let width = 1 + Int(random.next() % UInt64(Swift.max(1, image.width)))
        let height = 1 + Int(random.next() % UInt64(Swift.max(1, image.height)))
        var tiles = image.extent.tiles(width: Swift.min(width, 97), height: Swift.min(height, 97))
        for i in tiles.indices.reversed() where i > 0 {
            tiles.swapAt(i, Int(random.next() % UInt64(i + 1)))
        }
        var result = PixelBuffer(region: image.extent, channels: image.channels, value: .nan)
        for tile in tiles { result.copy(from: try image.pixels(in: tile)) }
        return result
    }

    /// Renders `region` through the kernel directly, handing it input buffers larger than it declared
    /// (by a random margin) whose pixels outside the declared regions are NaN.
    func renderPoisoned(_ source: KernelSource, region: Rect, random: inout SplitMix) throws -> PixelBuffer {
        var buffers: [PixelBuffer] = []
        for (index, input) in source.inputs.enumerated() {
            let declared = source.kernel.inputRegion(for: region, input: index)
            let margin = 1 + Int(random.next() % 9)
            let around = (declared.isEmpty ? region : declared).insetBy(dx: -margin, dy: -margin)
            var buffer = PixelBuffer(region: around, channels: input.image.channels, value: .nan)
            if !declared.isEmpty { buffer.copy(from: try input.image.pixels(in: declared, edge: input.edge)) }
            buffers.append(buffer)
        }
        var output = PixelBuffer(region: region, channels: source.channels, value: .nan)
        try source.kernel.render(into: &output, from: buffers)
        return output
    }

    func randomRegion(in extent: Rect, random: inout SplitMix) -> Rect {
        let x = Int(random.next() % UInt64(extent.width))
        let y = Int(random.next() % UInt64(extent.height))
        let width = 1 + Int(random.next() % UInt64(extent.width - x))
        let height = 1 + Int(random.next() % UInt64(extent.height - y))
        return Rect(x: x, y: y, width: width, height: height)
    }
}

/// Whether two buffers hold the same region and the same bits (NaN included).
func sameBits(_ a: PixelBuffer, _ b: PixelBuffer) -> Bool {
    a.region == b.region && a.channels == b.channels
        && zip(a.samples, b.samples).allSatisfy { $0.bitPattern == $1.bitPattern }
}

/// A small deterministic random generator (SplitMix64), so failures reproduce.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func unit() -> Float { Float(next() >> 40) / Float(1 << 24) }
}

/// Test images: smooth gradients with noise, a varying alpha, odd sizes so tiles never divide evenly.
enum TestImages {
    static func rgba(width: Int = 61, height: Int = 47, alpha: Bool = true, seed: UInt64 = 1) -> Image {
        var random = SplitMix(seed: seed)
        var buffer = PixelBuffer(region: Rect(width: width, height: height), channels: 4)
        for y in 0..<height {
            for x in 0..<width {
                let fx = Float(x) / Float(width)
                let fy = Float(y) / Float(height)
                buffer[x, y, 0] = Swift.min(1, fx * 0.8 + random.unit() * 0.2)
                buffer[x, y, 1] = Swift.min(1, fy * 0.8 + random.unit() * 0.2)
                buffer[x, y, 2] = Swift.min(1, (1 - fx) * 0.5 + random.unit() * 0.5)
                buffer[x, y, 3] = alpha ? Swift.min(1, 0.2 + fy * 0.8 + random.unit() * 0.05) : 1
            }
        }
        return Image(buffer: buffer, layout: alpha ? .rgba : .rgb, depth: .uint8)
    }

    static func gray(width: Int = 53, height: Int = 41, seed: UInt64 = 2) -> Image {
        var random = SplitMix(seed: seed)
        var buffer = PixelBuffer(region: Rect(width: width, height: height), channels: 1)
        for y in 0..<height {
            for x in 0..<width {
                buffer[x, y, 0] = Swift.min(1, Float(x + y) / Float(width + height) * 0.7 + random.unit() * 0.3)
            }
        }
        return Image(buffer: buffer, layout: .gray, depth: .uint8)
    }
}
