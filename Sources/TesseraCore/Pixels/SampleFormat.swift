/// How samples are packed, in a file or in a tile kept in an image's own format: a depth and 1 to 4
/// interleaved bands (gray, gray and alpha, RGB, RGBA), as libvips' band format and band count.
///
/// An image whose pixels are a decoder's file samples (``PixelSource/givesFileSamples``) has a
/// ``Image/nativeFormat``: the scheduler then moves its pixels in that format (8-bit RGB is 3 bytes a
/// pixel, not the 16 of Float32 RGBA) wherever no node needs them as floats, and a writer of the same
/// format copies them without conversion. Computed pixels are Float32 until a writer rounds them.
public struct SampleFormat: Hashable, Sendable, CustomStringConvertible {
    public var depth: SampleDepth
    /// Interleaved samples a pixel: 1 to 4.
    public var bands: Int

    public init(depth: SampleDepth, bands: Int) {
        precondition((1...4).contains(bands), "1 to 4 bands")
        self.depth = depth
        self.bands = bands
    }

    public var bytesPerPixel: Int { bands * depth.bytes }
    public var description: String { "\(depth) x \(bands)" }
}

extension SampleDepth {
    /// Bytes a sample: 1, 2 or 4.
    public var bytes: Int { bits / 8 }
}

extension Image {
    /// The format this image's pixels are exactly, when they are file samples as decoded (a loaded
    /// 8-bit RGB photo: `uint8 x 3`), so that they may be moved as such and read back as the same
    /// floats; nil for computed pixels, which are Float32.
    public var nativeFormat: SampleFormat? {
        source.givesFileSamples ? SampleFormat(depth: depth, bands: layout.fileChannels) : nil
    }

    /// The encoder that writes this image's pixels packed in `format`, rounding as writers do.
    public func encoder(for format: SampleFormat) -> SampleEncoder {
        Samples.encoder(channels: channels, fileChannels: format.bands, depth: format.depth)
    }
}

/// Packed samples of one region, by pointer: `region.height` rows of `region.width` pixels of
/// `format`, `rowBytes` apart. What a kernel that reads its inputs in their own format is handed
/// (``FormatKernel``).
public struct PackedSamples {
    public let region: Rect
    public let format: SampleFormat
    public let base: UnsafeRawPointer
    public let rowBytes: Int

    public init(region: Rect, format: SampleFormat, base: UnsafeRawPointer, rowBytes: Int) {
        self.region = region
        self.format = format
        self.base = base
        self.rowBytes = rowBytes
    }

    /// The bytes of pixel (x, y), in image coordinates.
    public func pointer(x: Int, y: Int) -> UnsafeRawPointer {
        base + (y - region.minY) * rowBytes + (x - region.minX) * format.bytesPerPixel
    }

    /// Decodes `count` pixels of row `y` from `x` into `target` as 1 (gray) or 4 Float32 channels,
    /// exactly as a decoder's render gives them.
    public func decode(x: Int, y: Int, count: Int, into target: UnsafeMutablePointer<Float>) {
        Samples.decode(
            row: pointer(x: x, y: y), depth: format.depth, fileChannels: format.bands, count: count, into: target)
    }

    /// Decodes the pixels of `target`'s region that these samples hold into it, as Float32.
    package func decode(into target: inout PixelBuffer) {
        let common = region.intersection(target.region)
        guard !common.isEmpty else { return }
        let rowLength = target.rowLength
        let start = target.index(x: common.minX, y: common.minY)
        target.samples.withUnsafeMutableBufferPointer { out in
            guard let out = out.baseAddress else { return }
            for row in 0..<common.height {
                decode(x: common.minX, y: common.minY + row, count: common.width, into: out + start + row * rowLength)
            }
        }
    }

    /// Copies the pixels of `area` that these samples hold to `bytes`, which holds `area`'s pixels in
    /// this format, rows `rowBytes` apart.
    package func copy(_ area: Rect, into bytes: UnsafeMutableRawPointer, rowBytes targetRowBytes: Int) {
        let common = region.intersection(area)
        guard !common.isEmpty else { return }
        let pixelBytes = format.bytesPerPixel
        for row in 0..<common.height {
            (bytes + (common.minY + row - area.minY) * targetRowBytes + (common.minX - area.minX) * pixelBytes)
                .copyMemory(from: pointer(x: common.minX, y: common.minY + row), byteCount: common.width * pixelBytes)
        }
    }
}

extension PackedSamples {
    /// Fills `bytes`, `area`'s pixels in this format (rows `rowBytes` apart), with these samples' pixels
    /// at the nearest coordinates inside them: ``EdgeMode/clamp``, as `PixelBuffer.clampExtend` does
    /// for Float32 (`area` must overlap or touch this region in each axis).
    package func clampExtend(into bytes: UnsafeMutableRawPointer, area: Rect, rowBytes targetRowBytes: Int) {
        let pixelBytes = format.bytesPerPixel
        let inner0 = Swift.max(area.minX, region.minX)
        let inner1 = Swift.min(area.maxX, region.maxX)
        for row in 0..<area.height {
            let y = Swift.min(Swift.max(area.minY + row, region.minY), region.maxY - 1)
            let target = bytes + row * targetRowBytes
            if inner1 > inner0 {
                (target + (inner0 - area.minX) * pixelBytes).copyMemory(
                    from: pointer(x: inner0, y: y), byteCount: (inner1 - inner0) * pixelBytes)
            }
            let left = pointer(x: region.minX, y: y)
            for x in area.minX..<Swift.max(area.minX, Swift.min(region.minX, area.maxX)) {
                (target + (x - area.minX) * pixelBytes).copyMemory(from: left, byteCount: pixelBytes)
            }
            let right = pointer(x: region.maxX - 1, y: y)
            for x in Swift.min(area.maxX, Swift.max(region.maxX, area.minX))..<area.maxX {
                (target + (x - area.minX) * pixelBytes).copyMemory(from: right, byteCount: pixelBytes)
            }
        }
    }
}

/// Where a kernel that writes its output's format itself puts it: `region.height` rows of
/// `region.width` pixels of `encoder.bytesPerPixel` bytes, `rowBytes` apart.
public struct PackedOutput {
    public let region: Rect
    public let encoder: SampleEncoder
    public let base: UnsafeMutableRawPointer
    public let rowBytes: Int

    public init(region: Rect, encoder: SampleEncoder, base: UnsafeMutableRawPointer, rowBytes: Int) {
        self.region = region
        self.encoder = encoder
        self.base = base
        self.rowBytes = rowBytes
    }

    /// Encodes `count` pixels of Float32 samples (1 or 4 channels, as the image has) into row `y`
    /// from `x`.
    public func encode(_ pixels: UnsafePointer<Float>, x: Int, y: Int, count: Int) {
        encoder.encode(
            pixels, count, base + (y - region.minY) * rowBytes + (x - region.minX) * encoder.bytesPerPixel)
    }
}

/// One input of a ``FormatKernel``: packed samples in the input's own format, or Float32.
public enum KernelSamples {
    case packed(PackedSamples)
    case floats(PixelBuffer)

    public var region: Rect {
        switch self {
        case .packed(let samples): samples.region
        case .floats(let buffer): buffer.region
        }
    }

    /// Row `y`'s `count` pixels from `x` as Float32 (1 or 4 channels), decoded into `scratch` when
    /// packed, else pointing into the buffer (valid while it lives).
    public func row(
        x: Int, y: Int, count: Int, scratch: UnsafeMutablePointer<Float>, _ body: (UnsafePointer<Float>) -> Void
    ) {
        switch self {
        case .packed(let samples):
            samples.decode(x: x, y: y, count: count, into: scratch)
            body(scratch)
        case .floats(let buffer):
            buffer.samples.withUnsafeBufferPointer { samples in
                guard let base = samples.baseAddress else { return }
                body(base + buffer.index(x: x, y: y))
            }
        }
    }
}

/// A kernel that reads its inputs in their own formats and writes its output in the one asked for,
/// choosing its working format in between: an area node (a blur) that would otherwise be handed its
/// input, margin included, as a Float32 tile and return one, or a point node with an integer path
/// for 8-bit samples. Its format table (``computes(_:from:)``) says for which formats it does; it must
/// write there the bytes its ``ImageKernel/render(into:from:)`` would encode to, which the node
/// verifier checks in 8 and 16 bits.
public protocol FormatKernel: ImageKernel {
    /// The kernel's format table: whether it renders output written by `output` itself from inputs
    /// held as `inputs` (each input's packed format, nil for one it is handed as Float32). Where it
    /// does not, the scheduler renders a Float32 tile and encodes it.
    func computes(_ output: SampleEncoder, from inputs: [SampleFormat?]) -> Bool

    /// Renders `output.region` into `output`, from `inputs` covering at least
    /// ``ImageKernel/inputRegion(for:input:)`` each, in formats its table accepts.
    func render(into output: PackedOutput, from inputs: [KernelSamples]) throws
}

/// A kernel that reads its inputs as they are held (``KernelSamples``: a decoded file's packed samples,
/// 3 bytes a pixel for 8-bit RGB, or Float32) and renders Float32: a resize's rows pass reads a JPEG's rows
/// packed and decodes each as it filters it, so no Float32 copy of its input region is made.
public protocol SampleKernel: ImageKernel {
    /// Renders `output.region` from `inputs`, each covering at least ``ImageKernel/inputRegion(for:input:)``.
    func render(into output: inout PixelBuffer, from inputs: [KernelSamples]) throws
}

extension SampleKernel {
    public func render(into output: inout PixelBuffer, from inputs: [PixelBuffer]) throws {
        try render(into: &output, from: inputs.map { .floats($0) })
    }
}

/// A point kernel each of whose output channels is a function of the same input channel alone
/// (alpha of alpha): contrast, exposure, levels, a tone curve. From 8-bit samples to 8-bit samples
/// the scheduler then renders it as a lookup table of 256 entries a channel, made by the kernel
/// itself from the 256 values, so the bytes are those of rendering each pixel.
public protocol ChannelKernel: ImageKernel {}

/// A kernel whose output is its single input's pixels moved, samples unchanged: a crop, a flip, a
/// quarter turn. The scheduler moves such an image's pixels in the input's own format (3 bytes a pixel
/// for 8-bit RGB) without converting them, and its samples are file samples where the input's are.
public protocol MoveKernel: ImageKernel {
    /// The input pixel that output pixel (x, y) is.
    func source(x: Int, y: Int) -> (x: Int, y: Int)
    /// How far the input pixel moves when the output pixel moves one to the right.
    var rowStep: (dx: Int, dy: Int) { get }
}

extension MoveKernel {
    /// Moves `output.region`'s pixels from `input`, which covers ``ImageKernel/inputRegion(for:input:)``,
    /// both packed in the same format.
    public func move(from input: PackedSamples, into output: UnsafeMutableRawPointer, rowBytes: Int, region: Rect) {
        let size = input.format.bytesPerPixel
        let step = rowStep.dx * size + rowStep.dy * input.rowBytes
        for row in 0..<region.height {
            let start = source(x: region.minX, y: region.minY + row)
            let from = input.pointer(x: start.x, y: start.y)
            let to = output + row * rowBytes
            if step == size {
                to.copyMemory(from: from, byteCount: region.width * size)
                continue
            }
            switch size {
            case 1: Self.move(UInt8.self, from, step, to, region.width)
            case 2: Self.move(UInt16.self, from, step, to, region.width)
            case 3: Self.move((UInt16, UInt8).self, from, step, to, region.width)
            case 4: Self.move(UInt32.self, from, step, to, region.width)
            case 6: Self.move((UInt32, UInt16).self, from, step, to, region.width)
            case 8: Self.move(UInt64.self, from, step, to, region.width)
            case 12: Self.move((UInt64, UInt32).self, from, step, to, region.width)
            default: Self.move((UInt64, UInt64).self, from, step, to, region.width)
            }
        }
    }

    /// Copies `count` pixels of `T`'s size, `step` bytes apart from `from`, next to each other at `to`.
    @inline(__always)
    private static func move<T>(
        _ type: T.Type, _ from: UnsafeRawPointer, _ step: Int, _ to: UnsafeMutableRawPointer, _ count: Int
    ) {
        let size = MemoryLayout<T>.size
        var source = from
        for x in 0..<count {
            (to + x &* size).copyMemory(from: source, byteCount: size)
            source += step
        }
    }
}

/// A kernel whose output is its single input moved, samples unchanged: output pixel (x, y) is input
/// pixel (x + `offset.x`, y + `offset.y`). Such a node (crop) asks its input for the moved region
/// itself, in whatever format it is read.
public protocol TranslationKernel: MoveKernel {
    var offset: (x: Int, y: Int) { get }
}

extension TranslationKernel {
    public func inputRegion(for output: Rect, input index: Int) -> Rect {
        output.offsetBy(dx: offset.x, dy: offset.y)
    }

    public func source(x: Int, y: Int) -> (x: Int, y: Int) { (x + offset.x, y + offset.y) }
    public var rowStep: (dx: Int, dy: Int) { (1, 0) }
}

/// Pixels held in memory in their own format, rows packed one after another: an image a program
/// supplied from its buffer (``Image/init(packed:width:height:layout:depth:)``), kept in 3 bytes a
/// pixel for 8-bit RGB where Float32 would take 16. Its samples are file samples of its format.
package final class PackedBufferSource: PixelSource {
    let format: SampleFormat
    let width: Int
    let bytes: [UInt8]
    var rowBytes: Int { width * format.bytesPerPixel }

    package init(format: SampleFormat, width: Int, bytes: [UInt8]) {
        self.format = format
        self.width = width
        self.bytes = bytes
    }

    package var givesFileSamples: Bool { true }

    /// The samples of the whole image.
    private func withSamples(_ body: (PackedSamples) -> Void) {
        bytes.withUnsafeBytes { raw in
            guard let base = raw.baseAddress else { return }
            body(
                PackedSamples(
                    region: Rect(width: width, height: bytes.count / rowBytes), format: format, base: base,
                    rowBytes: rowBytes))
        }
    }

    package func render(into buffer: inout PixelBuffer) throws {
        withSamples { $0.decode(into: &buffer) }
    }

    /// Copies the samples when the encoder writes them as held.
    package func encode(
        _ region: Rect, with encoder: SampleEncoder, scratch: inout PixelBuffer, into target: UnsafeMutableRawPointer,
        rowBytes targetRowBytes: Int
    ) throws {
        guard encoder.packed == format else {
            try encodeRendering(region, with: encoder, scratch: &scratch, into: target, rowBytes: targetRowBytes)
            return
        }
        withSamples { $0.copy(region, into: target, rowBytes: targetRowBytes) }
    }
}
