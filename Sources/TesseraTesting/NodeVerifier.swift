import TesseraCore
import TesseraCatalog
import TesseraPluginHost

/// The checks every node passes, built-in or plugin, whatever it computes (STYLE.md rule 5):
///
/// - its declaration registers: every stored property a parameter or an input, each parameter with a doc
///   sentence and a default that lies inside its declared range (and that its type reads);
/// - rendering each output image in random tilings, tiles visited in a random order, gives the same
///   bits as rendering it whole;
/// - its kernel reads nothing outside the input regions it declares: handed input buffers larger than
///   it asked for, every pixel outside the declared regions NaN, no NaN may reach its output, which must
///   also equal the whole render;
/// - each format it computes in gives the bytes of its Float32 render: run again on its image inputs
///   held as 8-bit and as 16-bit file samples, each image output written as file samples of its layout,
///   tile by tile, through whatever path its kernels take for that format (a ``FormatKernel``'s
///   table, a ``ChannelKernel``'s lookup table, a point kernel's strips, a move) equals its whole
///   Float32 render rounded as writers round.
///
/// In a node's tests, configure the node as a graph would and check it; the outputs come back for the
/// node's own reference tests:
///
///     import TesseraTesting
///
///     @Test func invertPassesTheVerifier() throws {
///         let outputs = try NodeVerifier().verify(
///             Invert.self, parameters: ["amount": 0.5], inputs: ["input": .image(TestImages.rgba())])
///         // compare outputs["output"] with a reference...
///     }
///
/// `verify` throws a ``NodeVerificationError`` listing every failure; `check` returns them as values
/// (``NodeVerification/failures``), for a harness that reports them its own way. Neither depends on a
/// test framework. To check a node without choosing its inputs, or every node of a plugin's shared
/// library, see `checkCases(of:)` and ``checkPlugin(at:)``; `tessera verify` runs the latter from the
/// command line.
///
/// Runs are deterministic: the same ``seed`` picks the same tilings and regions.
///
/// - Cost: each image output is rendered whole once, then `tilings` times in tiles and `regions` times
///   through its kernel, then for each of two packed depths the node runs again and the output is
///   rendered whole and once in tiles: about `5 + tilings + regions` renders of the output.
public struct NodeVerifier: Sendable {
    /// Seeds the random tilings and regions.
    public var seed: UInt64
    /// How many random tilings each output image is rendered in.
    public var tilings: Int
    /// How many random regions of each kernel's output are rendered from poisoned inputs.
    public var regions: Int

    public init(seed: UInt64 = 0x5EED, tilings: Int = 3, regions: Int = 6) {
        self.seed = seed
        self.tilings = tilings
        self.regions = regions
    }

    /// Configures `type` with `parameters` (the others keep their defaults) and `inputs`, runs it and
    /// checks it; returns its outputs by port name.
    ///
    /// - Throws: ``NodeVerificationError`` when the node breaks a rule; the node's own error when it
    ///   cannot be configured or run.
    @discardableResult
    public func verify(
        _ type: any Node.Type, parameters: [String: any ParameterValue] = [:], inputs: [String: NodeValue] = [:]
    ) throws -> [String: NodeValue] {
        try check(type, parameters: parameters, inputs: inputs).outputsIfPassed()
    }

    /// The same checks for a declared node: a node type's, or one of a plugin's (`Plugin/declarations`,
    /// `Catalog/declaration(op:)`), run through the plugin ABI as the host runs it.
    @discardableResult
    public func verify(
        _ declaration: NodeDeclaration, parameters: [String: any ParameterValue] = [:],
        inputs: [String: NodeValue] = [:]
    ) throws -> [String: NodeValue] {
        try check(declaration, parameters: parameters, inputs: inputs).outputsIfPassed()
    }

    /// Runs the checks of `verify(_:parameters:inputs:)` and returns every failure rather than throwing
    /// it. A type that breaks the declaration rules gives a ``VerificationFailure``
    /// (``VerificationFailure/Check/declaration``) and does not run.
    ///
    /// - Throws: the node's own error when it cannot be configured or run, or an output cannot render.
    public func check(
        _ type: any Node.Type, parameters: [String: any ParameterValue] = [:], inputs: [String: NodeValue] = [:]
    ) throws -> NodeVerification {
        let declaration: NodeDeclaration
        do {
            declaration = try NodeDeclaration(type)
        } catch {
            return NodeVerification(
                op: type.info.op, subject: Self.subject(parameters: parameters, inputs: inputs),
                failures: [.declaration(of: type, error)])
        }
        return try check(declaration, parameters: parameters, inputs: inputs)
    }

    /// Runs the checks of `verify(_:parameters:inputs:)` for a declared node and returns every failure
    /// rather than throwing it.
    ///
    /// - Throws: the node's own error when it cannot be configured or run, or an output cannot render.
    public func check(
        _ declaration: NodeDeclaration, parameters: [String: any ParameterValue] = [:],
        inputs: [String: NodeValue] = [:]
    ) throws -> NodeVerification {
        let subject = Self.subject(parameters: parameters, inputs: inputs)
        var failures: [VerificationFailure] = []
        let outputs = try Self.outputs(of: declaration, parameters: parameters, inputs: inputs)
        var random = SplitMix(seed: seed)
        // In declaration order, so that the random tilings and regions do not depend on a dictionary's.
        let ports =
            declaration.outputs.map(\.name).filter { outputs[$0] != nil }
            + outputs.keys.filter { name in !declaration.outputs.contains { $0.name == name } }.sorted()
        for port in ports {
            guard case .image(let image)? = outputs[port] else { continue }
            let context = FailureContext(op: declaration.op, port: port, subject: subject)
            let whole = try image.pixels()
            failures += try checkTilings(image, whole: whole, context: context, random: &random)
            if let source = image.source as? KernelSource {
                failures += try checkRegions(source, of: image, whole: whole, context: context, random: &random)
                failures += checkAccess(declaration.access, of: source, in: image.extent, context: context)
            }
        }
        failures += try checkFormats(
            declaration, parameters: parameters, inputs: inputs, ports: ports, random: &random)
        failures += checkPreparation(declaration, parameters: parameters, inputs: inputs, outputs: outputs)
        return NodeVerification(op: declaration.op, subject: subject, outputs: outputs, failures: failures)
    }

    /// `declaration`'s node configured with `parameters` and `inputs` and run: its outputs by port name
    /// (a node's single unnamed output under its declared name).
    static func outputs(
        of declaration: NodeDeclaration, parameters: [String: any ParameterValue], inputs: [String: NodeValue]
    ) throws -> [String: NodeValue] {
        let node = try declaration.instantiate(parameters: parameters, inputs: inputs)
        var outputs: [String: NodeValue] = [:]
        for (port, value) in try node.run().values {
            outputs[port.isEmpty ? declaration.outputs.first?.name ?? "" : port] = value
        }
        return outputs
    }

    /// The node's ``ConfiguredNode/prepare(_:)``, configured with `parameters` alone and told the shapes
    /// of its image `inputs`, against what its run made (`outputs`): each output size it gives is the
    /// output's, and an input it says it only shrinks by a factor is at least that factor larger than the
    /// first output on both sides.
    func checkPreparation(
        _ declaration: NodeDeclaration, parameters: [String: any ParameterValue], inputs: [String: NodeValue],
        outputs: [String: NodeValue]
    ) -> [VerificationFailure] {
        guard case .type = declaration.maker,
            let node = try? declaration.instantiate(parameters: parameters, inputs: [:])
        else { return [] }
        var shapes: [String: ImageShape] = [:]
        for (name, value) in inputs {
            if case .image(let image) = value { shapes[name] = ImageShape(of: image) }
        }
        let preparation = node.prepare(shapes)
        let subject = Self.subject(parameters: parameters, inputs: inputs)
        var failures: [VerificationFailure] = []
        for (port, size) in preparation.outputSizes.sorted(by: { $0.key < $1.key }) {
            guard case .image(let image)? = outputs[port] else {
                failures.append(
                    VerificationFailure(
                        check: .prepare, op: declaration.op, port: port, subject: subject,
                        message: "prepare gives output '\(port)' a size, but the run made no image there"))
                continue
            }
            if image.width != size.width || image.height != size.height {
                failures.append(
                    VerificationFailure(
                        check: .prepare, op: declaration.op, port: port, subject: subject, region: image.extent,
                        message: "prepare said \(size), the run made \(image.width)x\(image.height)"))
            }
        }
        let first = declaration.outputs.first.flatMap { outputs[$0.name] }
        if case .image(let output)? = first {
            for (name, shrink) in preparation.inputShrinks.sorted(by: { $0.key < $1.key }) {
                guard let input = shapes[name] else { continue }
                let fits = { (outputSide: Int, inputSide: Int) in
                    Double(outputSide) * shrink <= Double(inputSide) * (1 + 1e-9)
                }
                if !fits(output.width, input.width) || !fits(output.height, input.height) {
                    failures.append(
                        VerificationFailure(
                            check: .prepare, op: declaration.op, port: declaration.outputs[0].name, subject: subject,
                            message:
                                "prepare says it shrinks '\(name)' (\(input.width)x\(input.height)) \(shrink) times, "
                                + "but the run made \(output.width)x\(output.height)"))
                }
            }
        }
        return failures
    }

    /// Renders `image` as tiles of a random size, visited in a random order, into one buffer.
    public func renderTiled(_ image: Image, random: inout SplitMix) throws -> PixelBuffer {
        try renderTiledWithTiles(image, random: &random).buffer
    }

    // MARK: The checks

    /// What every failure of one output shares.
    struct FailureContext {
        var op: String
        var port: String
        var subject: String

        func failure(
            _ check: VerificationFailure.Check, region: Rect, difference: Difference?, message: String
        ) -> VerificationFailure {
            VerificationFailure(
                check: check, op: op, port: port, subject: subject, region: region, sample: difference?.sample,
                expected: difference?.expected, got: difference?.got, message: message)
        }
    }

    func checkTilings(_ image: Image, whole: PixelBuffer, context: FailureContext, random: inout SplitMix) throws
        -> [VerificationFailure]
    {
        var failures: [VerificationFailure] = []
        for _ in 0..<tilings {
            let (tiled, tiles, size) = try renderTiledWithTiles(image, random: &random)
            guard let difference = Difference(whole, tiled) else { continue }
            let tile = tiles.first { $0.contains(x: difference.sample.x, y: difference.sample.y) } ?? image.extent
            failures.append(
                context.failure(
                    .tiling, region: tile, difference: difference,
                    message: "tiles of \(size) in a random order give other bits than the whole render"))
        }
        return failures
    }

    func checkRegions(
        _ source: KernelSource, of image: Image, whole: PixelBuffer, context: FailureContext, random: inout SplitMix
    ) throws -> [VerificationFailure] {
        var failures: [VerificationFailure] = []
        for _ in 0..<regions {
            let region = randomRegion(in: image.extent, random: &random)
            let poisoned = try renderPoisoned(source, region: region, random: &random)
            let expected = whole.cropped(to: region)
            if let leak = Difference(firstNaNIn: poisoned, notIn: expected) {
                failures.append(
                    context.failure(
                        .declaredRegion, region: region, difference: leak,
                        message:
                            "reads outside the input region it declares: rendered from inputs that are NaN outside "
                            + "the declared regions, a NaN came out"))
            }
            if let difference = Difference(expected, poisoned) {
                failures.append(
                    context.failure(
                        .regionRender, region: region, difference: difference,
                        message: "a region rendered from exactly its declared inputs differs from the whole render"))
            }
        }
        return failures
    }

    // MARK: Rendering

    /// The tiled render, its tiles in the order rendered, and the tile size in words (`13x40`).
    func renderTiledWithTiles(_ image: Image, random: inout SplitMix) throws
        -> (buffer: PixelBuffer, tiles: [Rect], size: String)
    {
        let width = Swift.min(1 + Int(random.next() % UInt64(Swift.max(1, image.width))), 97)
        let height = Swift.min(1 + Int(random.next() % UInt64(Swift.max(1, image.height))), 97)
        var tiles = image.extent.tiles(width: width, height: height)
        for i in tiles.indices.reversed() where i > 0 {
            tiles.swapAt(i, Int(random.next() % UInt64(i + 1)))
        }
        var result = PixelBuffer(region: image.extent, channels: image.channels, value: .nan)
        for tile in tiles { result.copy(from: try image.pixels(in: tile)) }
        return (result, tiles, "\(width)x\(height)")
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

    /// A point or area node's kernel against its declared access, on the whole output, its top-left pixel
    /// and its middle: each input region it declares (other than none) has the output region's size for a
    /// point node (the same pixels, or moved), and holds the output region for an area node. Other
    /// patterns map regions as they please.
    func checkAccess(_ access: AccessPattern, of source: KernelSource, in extent: Rect, context: FailureContext)
        -> [VerificationFailure]
    {
        guard access == .point || access == .area else { return [] }
        let middle = Rect(
            x: extent.width / 4, y: extent.height / 4, width: Swift.max(1, extent.width / 2),
            height: Swift.max(1, extent.height / 2))
        for region in [extent, Rect(x: 0, y: 0, width: 1, height: 1), middle] {
            for index in source.inputs.indices {
                let read = source.kernel.inputRegion(for: region, input: index)
                let fits =
                    read.isEmpty
                    || (access == .point
                        ? read.width == region.width && read.height == region.height : read.contains(region))
                guard !fits else { continue }
                let wanted = access == .point ? "a region of its size" : "a region holding it"
                return [
                    context.failure(
                        .access, region: region, difference: nil,
                        message:
                            "is declared \(access.rawValue), but for output region \(region) its kernel reads \(read) "
                            + "of input \(index), not \(wanted)")
                ]
            }
        }
        return []
    }

    func randomRegion(in extent: Rect, random: inout SplitMix) -> Rect {
        let x = Int(random.next() % UInt64(extent.width))
        let y = Int(random.next() % UInt64(extent.height))
        let width = 1 + Int(random.next() % UInt64(extent.width - x))
        let height = 1 + Int(random.next() % UInt64(extent.height - y))
        return Rect(x: x, y: y, width: width, height: height)
    }

    // MARK: Words

    /// `falloff: linear, radius: 0.25; input: 61x47 rgba`: a run's parameters and inputs, sorted by name.
    static func subject(parameters: [String: any ParameterValue], inputs: [String: NodeValue]) -> String {
        let settings = parameters.keys.sorted().compactMap { name in
            parameters[name].map { "\(name): \($0.literal.text)" }
        }
        let connected = inputs.keys.sorted().compactMap { name in inputs[name].map { "\(name): \(describe($0))" } }
        return [settings, connected].filter { !$0.isEmpty }.map { $0.joined(separator: ", ") }.joined(separator: "; ")
    }

    static func describe(_ value: NodeValue) -> String {
        switch value {
        case .image(let image): "\(image.width)x\(image.height) \(image.layout.rawValue)"
        case .number(let number): Literal.number(number).text
        case .boxes(let boxes): "\(boxes.count) boxes"
        case .contours(let contours): "\(contours.contours.count) contours"
        case .faces(let faces): "\(faces.count) faces"
        case .text(let lines): "\(lines.count) lines of text"
        case .hands(let hands): "\(hands.count) hands"
        case .barcodes(let codes): "\(codes.count) barcodes"
        case .bodies(let bodies): "\(bodies.count) bodies"
        case .rectangles(let quads): "\(quads.count) rectangles"
        }
    }
}

/// The first sample where two renders of the same region differ.
struct Difference {
    var sample: VerificationFailure.Sample
    var expected: Float?
    var got: Float

    init(sample: VerificationFailure.Sample, expected: Float?, got: Float) {
        self.sample = sample
        self.expected = expected
        self.got = got
    }

    /// Nil when `got` has the same region, channels and bits as `expected`.
    init?(_ expected: PixelBuffer, _ got: PixelBuffer) {
        guard !got.hasSameBits(as: expected) else { return nil }
        guard expected.region == got.region, expected.channels == got.channels else {
            // A kernel that reshaped its output: name the first sample, with no value to compare.
            self.init(index: 0, in: got, expected: nil)
            return
        }
        guard
            let index = expected.samples.indices.first(where: {
                expected.samples[$0].bitPattern != got.samples[$0].bitPattern
            })
        else { return nil }
        self.init(index: index, in: got, expected: expected.samples[index])
    }

    /// The first NaN of `got` where `expected` (of the same shape) holds none; nil when there is none.
    init?(firstNaNIn got: PixelBuffer, notIn expected: PixelBuffer) {
        let shaped = expected.region == got.region && expected.channels == got.channels
        guard
            let index = got.samples.indices.first(where: {
                got.samples[$0].isNaN && !(shaped && expected.samples[$0].isNaN)
            })
        else { return nil }
        self.init(index: index, in: got, expected: shaped ? expected.samples[index] : nil)
    }

    private init(index: Int, in buffer: PixelBuffer, expected: Float?) {
        let channels = Swift.max(1, buffer.channels)
        let pixel = index / channels
        let width = Swift.max(1, buffer.region.width)
        sample = VerificationFailure.Sample(
            x: buffer.region.minX + pixel % width, y: buffer.region.minY + pixel / width, channel: index % channels)
        self.expected = expected
        got = buffer.samples.isEmpty ? .nan : buffer.samples[index]
    }
}

extension VerificationFailure {
    /// `type` breaks the declaration rules: `error`'s message, without the op name it starts with.
    static func declaration(of type: any Node.Type, _ error: CatalogError) -> VerificationFailure {
        let op = type.info.op
        var message = Substring(error.description)
        for prefix in [op + ".", op + ": "] where message.hasPrefix(prefix) {
            message = message.dropFirst(prefix.count)
        }
        return VerificationFailure(check: .declaration, op: op, subject: "", message: String(message))
    }
}

extension NodeVerification {
    /// The outputs; a ``NodeVerificationError`` when the node broke a rule.
    func outputsIfPassed() throws(NodeVerificationError) -> [String: NodeValue] {
        guard passed else { throw NodeVerificationError(failures: failures) }
        return outputs
    }
}
