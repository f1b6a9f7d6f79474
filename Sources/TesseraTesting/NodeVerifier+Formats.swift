import TesseraCore
import TesseraCatalog

extension NodeVerifier {
    /// The depths every image output is checked in packed: its image inputs are given as file samples
    /// of each depth (as a decoder gives them), and the output is asked for as file samples of its own
    /// layout in that depth.
    static let packedDepths: [SampleDepth] = [.uint8, .uint16]

    /// The ``VerificationFailure/Check/format`` check: for each of ``packedDepths``, the node runs again
    /// on its image inputs rounded to that depth and held packed, and each image output is written as
    /// file samples tile by tile, in a random tiling, through whatever path the kernels take for that
    /// format (a ``FormatKernel``'s table, a ``ChannelKernel``'s lookup, a point kernel's strips, a
    /// move). It must give the bytes of the Float32 render of the whole output, rounded as writers round.
    func checkFormats(
        _ declaration: NodeDeclaration, parameters: [String: any ParameterValue], inputs: [String: NodeValue],
        ports: [String], random: inout SplitMix
    ) throws -> [VerificationFailure] {
        guard inputs.values.contains(where: { if case .image = $0 { true } else { false } }) else { return [] }
        var failures: [VerificationFailure] = []
        for depth in Self.packedDepths {
            var packedInputs: [String: NodeValue] = [:]
            for (name, value) in inputs {
                guard case .image(let image) = value else {
                    packedInputs[name] = value
                    continue
                }
                packedInputs[name] = .image(try Self.packed(image, depth: depth))
            }
            let outputs = try Self.outputs(of: declaration, parameters: parameters, inputs: packedInputs)
            let subject = Self.subject(parameters: parameters, inputs: packedInputs) + " (inputs \(depth))"
            for port in ports {
                guard case .image(let image)? = outputs[port] else { continue }
                let context = FailureContext(op: declaration.op, port: port, subject: subject)
                if let failure = try checkPacked(image, context: context, random: &random) {
                    failures.append(failure)
                }
            }
        }
        return failures
    }

    /// `image`'s samples rounded to `depth`, held packed in that depth: file samples, as decoded.
    static func packed(_ image: Image, depth: SampleDepth) throws -> Image {
        let format = SampleFormat(depth: depth, bands: image.layout.fileChannels)
        let rowBytes = image.width * format.bytesPerPixel
        var bytes = [UInt8](repeating: 0, count: image.height * rowBytes)
        let pixels = try image.pixels()
        bytes.withUnsafeMutableBytes { raw in
            guard let base = raw.baseAddress else { return }
            pixels.encodeRows(with: image.encoder(for: format), into: base, rowBytes: rowBytes)
        }
        return Image(
            width: image.width, height: image.height, layout: image.layout, depth: depth,
            source: PackedBufferSource(format: format, width: image.width, bytes: bytes))
    }

    /// Nil when `image` written packed in its own layout and depth, in a random tiling, gives the bytes
    /// of its whole Float32 render rounded the same way.
    func checkPacked(_ image: Image, context: FailureContext, random: inout SplitMix) throws -> VerificationFailure? {
        let format = SampleFormat(depth: image.depth, bands: image.layout.fileChannels)
        let encoder = image.encoder(for: format)
        let rowBytes = image.width * format.bytesPerPixel
        var expected = [UInt8](repeating: 0, count: image.height * rowBytes)
        let whole = try image.pixels()
        expected.withUnsafeMutableBytes { raw in
            guard let base = raw.baseAddress else { return }
            whole.encodeRows(with: encoder, into: base, rowBytes: rowBytes)
        }
        let width = Swift.min(1 + Int(random.next() % UInt64(image.width)), 97)
        let height = Swift.min(1 + Int(random.next() % UInt64(image.height)), 97)
        var tiles = image.extent.tiles(width: width, height: height)
        for i in tiles.indices.reversed() where i > 0 {
            tiles.swapAt(i, Int(random.next() % UInt64(i + 1)))
        }
        // Bytes no tile writes stay 0xA5, so a path that skips pixels shows.
        var got = [UInt8](repeating: 0xA5, count: expected.count)
        var scratch = PixelBuffer(region: .empty, channels: image.channels)
        defer { scratch.recycle() }
        for tile in tiles {
            let tileRowBytes = tile.width * format.bytesPerPixel
            var bytes = [UInt8](repeating: 0x5A, count: tile.height * tileRowBytes)
            try bytes.withUnsafeMutableBytes { raw in
                guard let base = raw.baseAddress else { return }
                try image.encode(tile, with: encoder, scratch: &scratch, into: base, rowBytes: tileRowBytes)
            }
            for row in 0..<tile.height {
                let start = (tile.minY + row) * rowBytes + tile.minX * format.bytesPerPixel
                got.replaceSubrange(
                    start..<(start + tileRowBytes), with: bytes[(row * tileRowBytes)..<((row + 1) * tileRowBytes)])
            }
        }
        guard let index = expected.indices.first(where: { expected[$0] != got[$0] }) else { return nil }
        let pixel = (index % rowBytes) / format.bytesPerPixel
        let y = index / rowBytes
        let band = (index % rowBytes % format.bytesPerPixel) / format.depth.bytes
        let sampleStart = y * rowBytes + pixel * format.bytesPerPixel + band * format.depth.bytes
        let tile = tiles.first { $0.contains(x: pixel, y: y) } ?? image.extent
        return context.failure(
            .format, region: tile,
            difference: Difference(
                sample: VerificationFailure.Sample(x: pixel, y: y, channel: band),
                expected: Self.sample(expected, at: sampleStart, depth: format.depth),
                got: Self.sample(got, at: sampleStart, depth: format.depth)),
            message:
                "written as \(format) in tiles of \(width)x\(height) it gives other bytes than its Float32 render "
                + "rounded to \(format)")
    }

    /// The sample at byte `start` of file samples of `depth`, as a number (a level, or a float's value).
    private static func sample(_ bytes: [UInt8], at start: Int, depth: SampleDepth) -> Float {
        switch depth {
        case .uint8: Float(bytes[start])
        case .uint16: Float(UInt16(bytes[start]) | UInt16(bytes[start + 1]) << 8)
        case .float32:
            Float(
                bitPattern: UInt32(bytes[start]) | UInt32(bytes[start + 1]) << 8 | UInt32(bytes[start + 2]) << 16
                    | UInt32(bytes[start + 3]) << 24)
        }
    }
}
