/// How an image's channels are meant, and so which channels a file written from it holds.
///
/// In memory an image has 1 channel (``gray``) or 4 (every other layout). A ``grayAlpha`` image keeps
/// its gray value in red, green and blue; an ``rgb`` image keeps alpha at 1.
public enum PixelLayout: String, Sendable, CaseIterable {
    case gray
    case grayAlpha
    case rgb
    case rgba

    /// Channels in memory: 1 or 4.
    public var channels: Int { self == .gray ? 1 : 4 }
    /// Channels in a file: 1 to 4.
    package var fileChannels: Int {
        switch self {
        case .gray: 1
        case .grayAlpha: 2
        case .rgb: 3
        case .rgba: 4
        }
    }
    public var hasAlpha: Bool { self == .grayAlpha || self == .rgba }
    public var isGray: Bool { self == .gray || self == .grayAlpha }
}

/// The sample type an image came from, which a writer keeps unless told otherwise.
public enum SampleDepth: String, Sendable, CaseIterable {
    case uint8
    case uint16
    case float32

    public var bits: Int {
        switch self {
        case .uint8: 8
        case .uint16: 16
        case .float32: 32
        }
    }
}

/// Something that produces the pixels of an image for any region of it, on request.
///
/// A source must give the same samples for a pixel whatever region it is asked for, and may be asked
/// from several threads at once.
public protocol PixelSource: Sendable {
    /// Fills `buffer`, whose region lies inside the image, with the image's pixels.
    func render(into buffer: inout PixelBuffer) throws

    /// The region shape this source produces most cheaply (a tiled file's tile size), if it has one.
    var preferredTileSize: (width: Int, height: Int)? { get }

    /// How many regions of ``preferredTileSize`` (a TIFF's strips or tiles) the source keeps decoded, so
    /// that one asked for again while still among them is not decoded again: the scheduler keeps a
    /// source whose requests would decode its chunks again and again (a quarter turn of a TIFF in
    /// strips) in cells of its own. 0 where it keeps none.
    var keptChunkCount: Int { get }

    /// Whether this source decodes front to back (PNG, JPEG), so that asking for rows above the last
    /// request starts over: the scheduler then asks for whole rows, top to bottom, and keeps them.
    var prefersSequentialRows: Bool { get }

    /// Whether every sample is a file sample of the image's ``SampleDepth`` as decoders make it (an
    /// 8-bit value `v` as `Float(v) * (1 / 255)`, a 16-bit one over 65535; any value for a float image),
    /// so that an image kept whole may be stored in that depth and read back bit for bit. Decoders
    /// say so; computed pixels do not.
    var givesFileSamples: Bool { get }

    /// Writes the pixels of `region` as file samples: `region.height` rows of `region.width *
    /// encoder.bytesPerPixel` bytes, `rowBytes` apart, from `bytes`. The default renders into `scratch`
    /// and encodes row by row; the scheduler's sinks encode on the workers, as each tile renders.
    func encode(
        _ region: Rect, with encoder: SampleEncoder, scratch: inout PixelBuffer, into bytes: UnsafeMutableRawPointer,
        rowBytes: Int
    ) throws
}

/// A source whose encoded rows already lie in memory (the scheduler's bands, encoded for a writer as
/// their tiles render): a writer whose library takes its rows as they are may write them from there
/// instead of copying them out first.
package protocol LendsEncodedRows {
    /// Calls `body` with the bytes of `region` as `encoder` writes them, rows `rowBytes` apart, where
    /// they lie in memory, and returns true; returns false without calling it where they do not (a
    /// region across two bands, or narrower than the image). The bytes are valid until `body` returns.
    func lendEncodedRows(
        _ region: Rect, with encoder: SampleEncoder, _ body: (_ bytes: UnsafeRawPointer, _ rowBytes: Int) throws -> Void
    ) throws -> Bool
}

/// How a writer stores pixels in its file: `bytesPerPixel` bytes a pixel, made from Float32 samples
/// (1 or 4 channels a pixel, as the image has) by `encode`, which writes `count` pixels.
public struct SampleEncoder: Sendable {
    /// Names the encoding ("uint8, 4 channels to 3"): two encoders with the same format write the same
    /// bytes.
    public let format: String
    public let bytesPerPixel: Int
    /// The packed format the encoder writes when it only rounds (no flattening over a background):
    /// a source whose ``Image/nativeFormat`` is the same may copy its samples instead.
    public let packed: SampleFormat?
    public let encode:
        @Sendable (_ samples: UnsafePointer<Float>, _ count: Int, _ into: UnsafeMutableRawPointer) -> Void

    public init(
        format: String, bytesPerPixel: Int, packed: SampleFormat? = nil,
        encode:
            @escaping @Sendable (_ samples: UnsafePointer<Float>, _ count: Int, _ into: UnsafeMutableRawPointer)
            -> Void
    ) {
        self.format = format
        self.bytesPerPixel = bytesPerPixel
        self.packed = packed
        self.encode = encode
    }
}

extension PixelSource {
    public var preferredTileSize: (width: Int, height: Int)? { nil }
    public var keptChunkCount: Int { 0 }
    public var prefersSequentialRows: Bool { false }
    public var givesFileSamples: Bool { false }

    public func encode(
        _ region: Rect, with encoder: SampleEncoder, scratch: inout PixelBuffer, into bytes: UnsafeMutableRawPointer,
        rowBytes: Int
    ) throws {
        try encodeRendering(region, with: encoder, scratch: &scratch, into: bytes, rowBytes: rowBytes)
    }

    /// The default ``encode(_:with:scratch:into:rowBytes:)``: renders `region` into `scratch`, as
    /// Float32, and encodes it; for sources that copy their samples when they can and convert
    /// otherwise.
    package func encodeRendering(
        _ region: Rect, with encoder: SampleEncoder, scratch: inout PixelBuffer, into bytes: UnsafeMutableRawPointer,
        rowBytes: Int
    ) throws {
        scratch.reshape(to: region)
        try render(into: &scratch)
        scratch.encodeRows(with: encoder, into: bytes, rowBytes: rowBytes)
    }
}

extension PixelBuffer {
    /// Encodes every row of the buffer: row `i` to `bytes + i * rowBytes`.
    package func encodeRows(with encoder: SampleEncoder, into bytes: UnsafeMutableRawPointer, rowBytes: Int) {
        let width = region.width
        let rowLength = self.rowLength
        samples.withUnsafeBufferPointer { samples in
            guard let base = samples.baseAddress else { return }
            for row in 0..<region.height {
                encoder.encode(base + row * rowLength, width, bytes + row * rowBytes)
            }
        }
    }
}

/// An image: a size, a layout and a source of pixels, produced region by region on demand.
///
/// Samples are Float32. Integer files map their full range to 0...1 (8-bit 255 and 16-bit 65535 are
/// 1.0), as stored, with no gamma or color conversion: linear-light math is always an explicit step.
/// Float files keep their values, including any outside 0...1.
///
/// Alpha is straight (not premultiplied): a pixel's color is the same whatever its alpha, as PNG and
/// most TIFFs store it. Operations that mix neighbouring pixels (blur, resize) premultiply inside
/// themselves so transparent pixels never darken edges; point operations work on the straight values.
public struct Image: Sendable {
    public let width: Int
    public let height: Int
    public let layout: PixelLayout
    /// The sample type of the data this image was made from; writers keep it by default.
    public let depth: SampleDepth
    public let source: any PixelSource
    /// The profile, EXIF and XMP that travel with the pixels (``ImageMetadata``).
    public var metadata = ImageMetadata()

    public init(width: Int, height: Int, layout: PixelLayout, depth: SampleDepth, source: any PixelSource) {
        precondition(width > 0 && height > 0, "images are at least 1x1")
        self.width = width
        self.height = height
        self.layout = layout
        self.depth = depth
        self.source = source
    }

    /// An image over pixels already in memory; `buffer.region` must start at the origin.
    public init(buffer: PixelBuffer, layout: PixelLayout, depth: SampleDepth = .float32) {
        precondition(buffer.region.x == 0 && buffer.region.y == 0, "an image buffer starts at the origin")
        precondition(buffer.channels == layout.channels, "the buffer's channels do not fit the layout")
        self.init(
            width: buffer.region.width, height: buffer.region.height, layout: layout, depth: depth,
            source: BufferSource(buffer: buffer))
    }

    /// The same image, metadata included, with its pixels served by `source` (a cache, a scheduler's
    /// parallel reader): `source` must give the same pixels.
    package func withSource(_ source: any PixelSource) -> Image {
        var image = Image(width: width, height: height, layout: layout, depth: depth, source: source)
        image.metadata = metadata
        return image
    }

    /// The same image with `metadata`.
    public func withMetadata(_ metadata: ImageMetadata) -> Image {
        var image = self
        image.metadata = metadata
        return image
    }

    public var channels: Int { layout.channels }
    public var extent: Rect { Rect(width: width, height: height) }

    /// Renders the pixels of `region`, which must lie inside ``extent``. An image over a buffer in memory
    /// gives that buffer itself when the whole of it is asked for (shared until written: no copy).
    public func pixels(in region: Rect) throws -> PixelBuffer {
        if let stored = source as? BufferSource, stored.buffer.region == region, stored.buffer.channels == channels {
            return stored.buffer
        }
        var buffer = PixelBuffer(region: region, channels: channels)
        try render(into: &buffer)
        return buffer
    }

    /// Renders the pixels of `buffer.region`, which must lie inside ``extent``, into `buffer`: the
    /// allocation-free form of ``pixels(in:)`` for loops that reuse one buffer.
    public func render(into buffer: inout PixelBuffer) throws {
        try checkRequest(buffer.region, channels: buffer.channels)
        try source.render(into: &buffer)
    }

    /// A request must lie inside the image, and its buffer hold the image's channels.
    private func checkRequest(_ region: Rect, channels bufferChannels: Int) throws {
        guard extent.contains(region), !region.isEmpty else {
            throw ImageError(message: "region \(region) is not inside the image (\(extent))")
        }
        guard bufferChannels == channels else {
            throw ImageError(message: "a \(bufferChannels)-channel buffer cannot hold a \(channels)-channel image")
        }
    }

    /// Renders every pixel.
    public func pixels() throws -> PixelBuffer { try pixels(in: extent) }

    /// Writes `region`'s pixels, which must lie inside ``extent``, as file samples (see
    /// ``PixelSource/encode(_:with:scratch:into:rowBytes:)``): how writers read. `scratch` must have
    /// this image's channel count.
    public func encode(
        _ region: Rect, with encoder: SampleEncoder, scratch: inout PixelBuffer, into bytes: UnsafeMutableRawPointer,
        rowBytes: Int
    ) throws {
        try checkRequest(region, channels: scratch.channels)
        try source.encode(region, with: encoder, scratch: &scratch, into: bytes, rowBytes: rowBytes)
    }
}

/// A source over a buffer in memory.
package struct BufferSource: PixelSource {
    package let buffer: PixelBuffer

    package init(buffer: PixelBuffer) { self.buffer = buffer }

    package func render(into target: inout PixelBuffer) throws {
        target.copy(from: buffer)
    }
}

/// A failure to read, write or compute an image: what went wrong and, where a file is involved, which.
public struct ImageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file concerned, as the user named it.
    public var path: String?
    public var message: String

    public init(path: String? = nil, message: String) {
        self.path = path
        self.message = message
    }

    public var description: String { path.map { "\($0): \(message)" } ?? message }
}
