/// The pixel math of an image-producing node: which input pixels an output region needs, and how to
/// compute it from them. This is all a node says about its pixels; which regions are asked for, in
/// which order, on which thread, and what is cached is the scheduler's business.
///
/// A kernel must be a pure function of its inputs: the pixels it writes for a point may not depend on
/// the region being rendered. That is what makes the output the same for every tile size and thread
/// count, and the shared node verifier checks it.
///
///     struct Invert: ImageKernel {
///         func render(into output: inout PixelBuffer, from inputs: [PixelBuffer]) {
///             // output.region == inputs[0].region here: a point kernel reads the same region.
///         }
///     }
public protocol ImageKernel: Sendable {
    /// The region of input `index` that rendering `output` reads, in that input's coordinates. It may
    /// reach past the input's extent (pixels there follow the input's ``EdgeMode``); `.empty` means
    /// this output region needs nothing from that input. The default is `output` itself: a point
    /// operation.
    func inputRegion(for output: Rect, input index: Int) -> Rect

    /// Renders `output.region`. Each `inputs[i]` covers at least `inputRegion(for: output.region,
    /// input: i)`, and may cover more: index through each buffer's own region.
    func render(into output: inout PixelBuffer, from inputs: [PixelBuffer]) throws
}

extension ImageKernel {
    public func inputRegion(for output: Rect, input index: Int) -> Rect { output }
}

/// What an input reads like outside its extent.
public enum EdgeMode: Sendable {
    /// The nearest edge pixel (Core Image's `clampedToExtent`).
    case clamp
    /// Zero in every channel: transparent black.
    case transparent
}

/// One input of a kernel: an image and how it reads outside its extent.
public struct KernelInput: Sendable {
    public var image: Image
    public var edge: EdgeMode

    public init(_ image: Image, edge: EdgeMode = .clamp) {
        self.image = image
        self.edge = edge
    }
}

/// The source of a node's output image: a kernel over input images. Rendering a region renders the
/// input regions the kernel declares (padded by their edge modes), then the kernel.
///
/// A class, so the scheduler can tell images apart and walk from an output back through its inputs.
package final class KernelSource: PixelSource {
    package let kernel: any ImageKernel
    package let inputs: [KernelInput]
    package let channels: Int
    /// A ``ChannelKernel``'s tables, by the 8-bit format they map (made once, by the first tile).
    private let tables = Locked<[SampleFormat: [UInt8]]>([:])

    package init(kernel: any ImageKernel, inputs: [KernelInput], channels: Int) {
        self.kernel = kernel
        self.inputs = inputs
        self.channels = channels
    }

    /// Moved file samples (a crop or a turn of a decoded image) are file samples themselves.
    package var givesFileSamples: Bool {
        kernel is any MoveKernel && inputs.count == 1 && inputs[0].image.source.givesFileSamples
    }

    package func render(into output: inout PixelBuffer) throws {
        if let sampleKernel = kernel as? any SampleKernel {
            let region = output.region
            let regions = inputs.indices.map { kernel.inputRegion(for: region, input: $0) }
            try renderFormats(region, regions: regions, packable: packable(regions)) { samples in
                try sampleKernel.render(into: &output, from: samples)
            }
            return
        }
        // The input buffers come from this thread's spares and go back to them: a worker rendering tile
        // after tile allocates nothing per tile.
        var buffers = SpareSamples.current.takeFrame()
        defer {
            for buffer in buffers { buffer.recycle() }
            SpareSamples.current.giveFrame(buffers)
        }
        for (index, input) in inputs.enumerated() {
            let region = kernel.inputRegion(for: output.region, input: index)
            var buffer = PixelBuffer.scratch(region: region, channels: input.image.channels)
            do {
                try input.image.render(region, edge: input.edge, into: &buffer)
            } catch {
                buffer.recycle()
                throw error
            }
            buffers.append(buffer)
        }
        try kernel.render(into: &output, from: buffers)
    }

    /// How a region is written packed: the one path ``encode(_:with:scratch:into:rowBytes:)`` takes,
    /// chosen before any pixel is rendered. Every path writes the bytes of a Float32 render encoded.
    package enum PackedPath: String, Sendable {
        /// A translation (crop) asks its input for the moved region in the same encoding.
        case translate
        /// A ``MoveKernel`` reads its input in its own format and moves the samples.
        case move
        /// A ``FormatKernel`` renders from the inputs as held, its table accepting their formats.
        case formatKernel
        /// A ``ChannelKernel`` from 8 bits to the same 8 bits, through a table of 256 entries a channel.
        case lookup
        /// A point kernel with a packed input: strips of rows decoded, rendered and encoded in cache.
        case strips
        /// A Float32 tile, rendered and encoded.
        case float32
    }

    /// The path writing `region` for `encoder` takes, and which inputs it reads packed.
    package func packedPath(_ region: Rect, for encoder: SampleEncoder) -> (
        PackedPath, regions: [Rect], packable: [Bool]
    ) {
        let regions = inputs.indices.map { kernel.inputRegion(for: region, input: $0) }
        if inputs.count == 1, kernel is any MoveKernel, inputs[0].image.extent.contains(regions[0]) {
            if kernel is any TranslationKernel { return (.translate, regions, [true]) }
            if let format = encoder.packed, format == inputs[0].image.nativeFormat { return (.move, regions, [true]) }
        }
        let packable = packable(regions)
        let formats = inputs.indices.map { packable[$0] ? inputs[$0].image.nativeFormat : nil }
        if let formatKernel = kernel as? any FormatKernel, formatKernel.computes(encoder, from: formats) {
            return (.formatKernel, regions, packable)
        }
        if kernel is any ChannelKernel, inputs.count == 1, let format = formats[0], format.depth == .uint8,
            encoder.packed == format
        {
            return (.lookup, regions, packable)
        }
        // Strips pay where the output is narrower than Float32; a float file takes the tile.
        if packable.contains(true), regions.allSatisfy({ $0 == region }), encoder.packed?.depth != .float32 {
            return (.strips, regions, packable)
        }
        return (.float32, regions, packable)
    }

    /// Writes `region` packed by `encoder` by the path ``packedPath(_:for:)`` picks: only the
    /// ``PackedPath/float32`` path makes a Float32 tile.
    package func encode(
        _ region: Rect, with encoder: SampleEncoder, scratch: inout PixelBuffer, into bytes: UnsafeMutableRawPointer,
        rowBytes: Int
    ) throws {
        let (path, regions, packable) = packedPath(region, for: encoder)
        switch path {
        case .translate:
            try inputs[0].image.encode(regions[0], with: encoder, scratch: &scratch, into: bytes, rowBytes: rowBytes)
        case .move:
            // The input's samples, read in its format and moved.
            guard let move = kernel as? any MoveKernel, let format = encoder.packed else { return }
            let area = regions[0]
            let areaRowBytes = area.width * format.bytesPerPixel
            var storage = [Float].scratch(count: (area.height * areaRowBytes + 3) / 4)
            defer { storage.recycleScratch() }
            try storage.withUnsafeMutableBytes { raw in
                guard let base = raw.baseAddress else { return }
                try inputs[0].image.encode(area, with: encoder, scratch: &scratch, into: base, rowBytes: areaRowBytes)
                move.move(
                    from: PackedSamples(region: area, format: format, base: base, rowBytes: areaRowBytes),
                    into: bytes, rowBytes: rowBytes, region: region)
            }
        case .formatKernel, .lookup, .strips:
            try renderFormats(region, regions: regions, packable: packable) { samples in
                let output = PackedOutput(region: region, encoder: encoder, base: bytes, rowBytes: rowBytes)
                switch path {
                case .formatKernel: try (kernel as? any FormatKernel)?.render(into: output, from: samples)
                case .lookup: try renderLookup(into: output, from: samples)
                default: try renderStrips(region, from: samples, with: encoder, into: bytes, rowBytes: rowBytes)
                }
            }
        case .float32:
            try encodeRendering(region, with: encoder, scratch: &scratch, into: bytes, rowBytes: rowBytes)
        }
    }

    /// Which inputs can be read packed for `regions`: those with a native format, where the region lies
    /// inside or reaches past the edge of an input that clamps there (edge pixels repeat the same bytes);
    /// transparent edges are Float32 (alpha 0 even where the format has none).
    private func packable(_ regions: [Rect]) -> [Bool] {
        inputs.indices.map { index in
            inputs[index].image.nativeFormat != nil
                && (inputs[index].edge == .clamp || inputs[index].image.extent.contains(regions[index]))
        }
    }

    /// Renders each input's region, packed in its own format where `packable` says so (and the region
    /// lies inside it) or as Float32 with its edge mode, and hands them to `body`; the storage comes
    /// from the thread's spares and goes back to them.
    private func renderFormats(
        _ region: Rect, regions: [Rect], packable: [Bool],
        _ body: ([KernelSamples]) throws -> Void
    ) throws {
        var floats: [PixelBuffer] = []
        var packed: [[Float]] = []
        defer {
            for buffer in floats { buffer.recycle() }
            for storage in packed { storage.recycleScratch() }
        }
        var samples: [KernelSamples] = []
        for (index, input) in inputs.enumerated() {
            let area = regions[index]
            if packable[index], !area.isEmpty, let format = input.image.nativeFormat {
                let rowBytes = area.width * format.bytesPerPixel
                var storage = [Float].scratch(count: (area.height * rowBytes + 3) / 4)
                // Room for a source that converts Float32 pixels to write them, taken only if it does.
                var scratch = PixelBuffer(region: .empty, channels: input.image.channels)
                defer { scratch.recycle() }
                try storage.withUnsafeMutableBytes { raw in
                    guard let base = raw.baseAddress else { return }
                    try Self.encodePacked(
                        input.image, area, format: format, scratch: &scratch, into: base, rowBytes: rowBytes)
                }
                packed.append(storage)
                // The storage stays alive (and unmoved) in `packed` until `body` returns.
                let base = packed[packed.count - 1].withUnsafeBytes { $0.baseAddress }
                guard let base else { throw ImageError(message: "no storage for \(area)") }
                samples.append(.packed(PackedSamples(region: area, format: format, base: base, rowBytes: rowBytes)))
            } else {
                var buffer = PixelBuffer.scratch(region: area, channels: input.image.channels)
                do {
                    try input.image.render(area, edge: input.edge, into: &buffer)
                } catch {
                    buffer.recycle()
                    throw error
                }
                floats.append(buffer)
                samples.append(.floats(buffer))
            }
        }
        try body(samples)
    }

    /// Writes `area` of `image` packed in `format`; where it reaches past the extent, the pixels inside
    /// that clamping reads, each row and column repeated outward. `scratch` is for a source that
    /// converts Float32 pixels to write them.
    private static func encodePacked(
        _ image: Image, _ area: Rect, format: SampleFormat, scratch: inout PixelBuffer,
        into base: UnsafeMutableRawPointer, rowBytes: Int
    ) throws {
        let encoder = image.encoder(for: format)
        if image.extent.contains(area) {
            try image.encode(area, with: encoder, scratch: &scratch, into: base, rowBytes: rowBytes)
            return
        }
        let inside = image.clampedInside(area)
        let insideRowBytes = inside.width * format.bytesPerPixel
        var storage = [Float].scratch(count: (inside.height * insideRowBytes + 3) / 4)
        defer { storage.recycleScratch() }
        try storage.withUnsafeMutableBytes { raw in
            guard let insideBase = raw.baseAddress else { return }
            try image.encode(inside, with: encoder, scratch: &scratch, into: insideBase, rowBytes: insideRowBytes)
            PackedSamples(region: inside, format: format, base: insideBase, rowBytes: insideRowBytes)
                .clampExtend(into: base, area: area, rowBytes: rowBytes)
        }
    }

    /// A ``ChannelKernel`` from 8-bit samples to 8-bit samples of the same bands, through its table
    /// (``makeTable(_:encoder:)``).
    private func renderLookup(into output: PackedOutput, from samples: [KernelSamples]) throws {
        guard case .packed(let input) = samples[0] else { return }
        let bands = input.format.bands
        let table = try tables.withLock({ $0[input.format] }) ?? makeTable(input.format, encoder: output.encoder)
        let region = output.region
        let count = region.width &* bands
        table.withUnsafeBufferPointer { table in
            guard let table = table.baseAddress else { return }
            // One table of 256 a band, band after band: band c of a pixel is `table[c * 256 + value]`.
            let (t0, t1, t2, t3) = (table, table + 256, table + 512, table + 768)
            for row in 0..<region.height {
                let from = input.pointer(x: region.minX, y: region.minY + row).assumingMemoryBound(to: UInt8.self)
                let to = (output.base + row * output.rowBytes).assumingMemoryBound(to: UInt8.self)
                var i = 0
                switch bands {
                case 1:
                    while i < count {
                        to[i] = t0[Int(from[i])]
                        i &+= 1
                    }
                case 2:
                    while i < count {
                        to[i] = t0[Int(from[i])]
                        to[i &+ 1] = t1[Int(from[i &+ 1])]
                        i &+= 2
                    }
                case 3:
                    while i < count {
                        to[i] = t0[Int(from[i])]
                        to[i &+ 1] = t1[Int(from[i &+ 1])]
                        to[i &+ 2] = t2[Int(from[i &+ 2])]
                        i &+= 3
                    }
                default:
                    while i < count {
                        to[i] = t0[Int(from[i])]
                        to[i &+ 1] = t1[Int(from[i &+ 1])]
                        to[i &+ 2] = t2[Int(from[i &+ 2])]
                        to[i &+ 3] = t3[Int(from[i &+ 3])]
                        i &+= 4
                    }
                }
            }
        }
    }

    /// The table of a ``ChannelKernel`` for 8-bit `format`: the kernel renders the value `v` in every
    /// band, decoded as rows are (alpha 1 where the format has none), and `encoder` writes the result.
    private func makeTable(_ format: SampleFormat, encoder: SampleEncoder) throws -> [UInt8] {
        let bands = format.bands
        let values = Rect(x: 0, y: 0, width: 256, height: 1)
        let bytes = (0..<256).flatMap { [UInt8](repeating: UInt8($0), count: bands) }
        var levels = PixelBuffer(region: values, channels: inputs[0].image.channels)
        bytes.withUnsafeBytes { row in
            levels.samples.withUnsafeMutableBufferPointer { target in
                guard let row = row.baseAddress, let target = target.baseAddress else { return }
                Samples.decode(row: row, depth: .uint8, fileChannels: bands, count: 256, into: target)
            }
        }
        var mapped = PixelBuffer(region: values, channels: channels)
        try kernel.render(into: &mapped, from: [levels])
        var table = [UInt8](repeating: 0, count: 256 * bands)
        table.withUnsafeMutableBytes { raw in
            guard let base = raw.baseAddress else { return }
            mapped.encodeRows(with: encoder, into: base, rowBytes: 256 * bands)
        }
        // Band after band: 256 entries of band 0, then of band 1, ...
        let planar = (0..<bands).flatMap { band in (0..<256).map { table[$0 * bands + band] } }
        tables.withLock { $0[format] = planar }
        return planar
    }

    /// A point kernel over `region` in strips of rows: each strip's packed inputs decoded into small
    /// Float32 buffers, rendered, and encoded, so no Float32 tile is made.
    private func renderStrips(
        _ region: Rect, from samples: [KernelSamples], with encoder: SampleEncoder,
        into bytes: UnsafeMutableRawPointer, rowBytes: Int
    ) throws {
        // About 64 KB of Float32 RGBA a strip: the strip's inputs and output stay in the core's cache.
        let stripRows = Swift.max(1, 4096 / Swift.max(1, region.width))
        var stripInputs = SpareSamples.current.takeFrame()
        var output = PixelBuffer.scratch(
            region: Rect(
                x: region.minX, y: region.minY, width: region.width, height: Swift.min(stripRows, region.height)),
            channels: channels)
        defer {
            output.recycle()
            // The Float32 inputs are the caller's to give back; the strips decoded here are these.
            for (index, input) in samples.enumerated() {
                if case .packed = input {
                    let strip = stripInputs[index]
                    strip.recycle()
                }
            }
            SpareSamples.current.giveFrame(stripInputs)
        }
        for (index, input) in samples.enumerated() {
            switch input {
            case .floats(let buffer): stripInputs.append(buffer)
            case .packed: stripInputs.append(.scratch(region: output.region, channels: inputs[index].image.channels))
            }
        }
        var y = region.minY
        while y < region.maxY {
            let strip = Rect(x: region.minX, y: y, width: region.width, height: Swift.min(stripRows, region.maxY - y))
            for (index, input) in samples.enumerated() {
                guard case .packed(let packed) = input else { continue }
                stripInputs[index].reshape(to: strip)
                let rowLength = stripInputs[index].rowLength
                stripInputs[index].samples.withUnsafeMutableBufferPointer { target in
                    guard let base = target.baseAddress else { return }
                    for row in 0..<strip.height {
                        packed.decode(
                            x: strip.minX, y: strip.minY + row, count: strip.width, into: base + row * rowLength)
                    }
                }
            }
            output.reshape(to: strip)
            try kernel.render(into: &output, from: stripInputs)
            output.encodeRows(with: encoder, into: bytes + (y - region.minY) * rowBytes, rowBytes: rowBytes)
            y += strip.height
        }
    }
}

extension Image {
    /// An image computed by `kernel` from `inputs`.
    public init(
        width: Int, height: Int, layout: PixelLayout, depth: SampleDepth, kernel: some ImageKernel,
        inputs: [KernelInput]
    ) {
        self.init(
            width: width, height: height, layout: layout, depth: depth,
            source: KernelSource(kernel: kernel, inputs: inputs, channels: layout.channels))
    }

    /// An image of `input`'s size, layout and depth computed by `kernel` from `input` alone, read
    /// without a margin: what a point node (and a flip) returns.
    public init(mapping input: Image, with kernel: some ImageKernel) {
        self.init(
            width: input.width, height: input.height, layout: input.layout, depth: input.depth, kernel: kernel,
            inputs: [KernelInput(input)])
    }

    /// The pixels of `region`, which may reach past the extent: pixels outside follow `edge`.
    /// An empty region gives an empty buffer.
    public func pixels(in region: Rect, edge: EdgeMode) throws -> PixelBuffer {
        var buffer = PixelBuffer(region: .empty, channels: channels)
        try render(region, edge: edge, into: &buffer)
        return buffer
    }

    /// Renders `region`, which may reach past the extent (pixels outside follow `edge`), into `buffer`,
    /// reshaped to it.
    func render(_ region: Rect, edge: EdgeMode, into buffer: inout PixelBuffer) throws {
        buffer.reshape(to: region)
        if region.isEmpty { return }
        if extent.contains(region) { return try render(into: &buffer) }
        let inside: Rect
        switch edge {
        case .transparent:
            inside = region.intersection(extent)
            buffer.samples.withUnsafeMutableBufferPointer { $0.update(repeating: 0) }
            if inside.isEmpty { return }
        case .clamp:
            // The pixels the clamped coordinates land on, then each row and column replicated outward.
            inside = clampedInside(region)
        }
        var part = PixelBuffer.scratch(region: inside, channels: channels)
        defer { part.recycle() }
        try render(into: &part)
        switch edge {
        case .transparent: buffer.copy(from: part)
        case .clamp: part.clampExtend(into: &buffer)
        }
    }
}

extension Image {
    /// The pixels a `region` reaching past the extent reads with ``EdgeMode/clamp``: its corners'
    /// coordinates clamped into the extent, and all between.
    package func clampedInside(_ region: Rect) -> Rect {
        let x0 = Swift.min(Swift.max(region.minX, 0), width - 1)
        let x1 = Swift.min(Swift.max(region.maxX - 1, 0), width - 1)
        let y0 = Swift.min(Swift.max(region.minY, 0), height - 1)
        let y1 = Swift.min(Swift.max(region.maxY - 1, 0), height - 1)
        return Rect(x: x0, y: y0, width: x1 - x0 + 1, height: y1 - y0 + 1)
    }
}

extension PixelBuffer {
    /// Fills `result` (whose region must overlap or touch this buffer's in each axis) with this
    /// buffer's pixels at the nearest coordinates inside it.
    func clampExtend(into result: inout PixelBuffer) {
        let target = result.region
        let channels = self.channels
        let sourceRegion = region
        let targetRowLength = result.rowLength
        let sourceRowLength = rowLength
        samples.withUnsafeBufferPointer { source in
            result.samples.withUnsafeMutableBufferPointer { out in
                guard let from = source.baseAddress, let to = out.baseAddress else { return }
                let inner0 = Swift.max(target.minX, sourceRegion.minX)
                let inner1 = Swift.min(target.maxX, sourceRegion.maxX)
                for row in 0..<target.height {
                    let sy = Swift.min(Swift.max(target.minY + row, sourceRegion.minY), sourceRegion.maxY - 1)
                    let sourceRow = from + (sy - sourceRegion.minY) * sourceRowLength
                    let targetRow = to + row * targetRowLength
                    if inner1 > inner0 {
                        (targetRow + (inner0 - target.minX) * channels).update(
                            from: sourceRow + (inner0 - sourceRegion.minX) * channels,
                            count: (inner1 - inner0) * channels)
                    }
                    let first = sourceRow
                    let last = sourceRow + (sourceRegion.width - 1) * channels
                    for x in target.minX..<Swift.min(inner0, target.maxX) {
                        (targetRow + (x - target.minX) * channels).update(from: first, count: channels)
                    }
                    for x in Swift.max(inner1, target.minX)..<target.maxX {
                        (targetRow + (x - target.minX) * channels).update(from: last, count: channels)
                    }
                }
            }
        }
    }
}
