import TesseraCore

/// Interleaved samples in a caller's memory: how the C API (`tessera_image`) and Python's NumPy arrays
/// hand images to a graph's `input` nodes and read kept images back.
///
/// Rows are `rowBytes` apart (at least `width * channels` samples); samples are 8- or 16-bit unsigned
/// integers scaled to 0...1 (0 and 255 or 65535), or 32-bit floats as they are. Channels are 1 gray,
/// 2 gray and alpha, 3 RGB, 4 RGBA.
public struct SampleBufferLayout: Sendable, Equatable {
    public var width: Int
    public var height: Int
    public var channels: Int
    public var depth: SampleDepth
    /// Bytes from the start of one row to the next.
    public var rowBytes: Int

    /// A layout with rows packed one after another unless `rowBytes` says otherwise.
    public init(width: Int, height: Int, channels: Int, depth: SampleDepth, rowBytes: Int? = nil) {
        self.width = width
        self.height = height
        self.channels = channels
        self.depth = depth
        self.rowBytes = rowBytes ?? width * channels * depth.bits / 8
    }

    /// The bytes the buffer spans: every row but the last in full, and the last row's samples.
    public var byteCount: Int { height == 0 ? 0 : (height - 1) * rowBytes + width * channels * depth.bits / 8 }

    /// Why samples laid out so cannot be an image, or nil.
    public var problem: String? {
        let sampleBytes = depth.bits / 8
        if width < 1 || height < 1 { return "the image is \(width)x\(height): both sides must be at least 1" }
        if width > 1_000_000 || height > 1_000_000 { return "the image is \(width)x\(height): at most 1000000 a side" }
        if !(1...4).contains(channels) { return "\(channels) channels: an image has 1 to 4" }
        if rowBytes < width * channels * sampleBytes {
            return "rows are \(rowBytes) bytes apart, fewer than the \(width * channels * sampleBytes) of a row"
        }
        if rowBytes % sampleBytes != 0 { return "rows are \(rowBytes) bytes apart, not a whole number of samples" }
        return nil
    }

    var layout: PixelLayout { [PixelLayout.gray, .grayAlpha, .rgb, .rgba][channels - 1] }
}

extension Image {
    /// An image holding a copy of the samples at `base`, laid out as `layout` says, in their own format
    /// (an 8-bit RGB buffer is kept in 3 bytes a pixel); the caller keeps its memory. Feed it to a
    /// graph's `input` node with ``Graph/run(options:supplying:keeping:)``.
    public init(copying base: UnsafeRawPointer, _ layout: SampleBufferLayout) throws(ImageError) {
        if let problem = layout.problem { throw ImageError(message: problem) }
        guard Int(bitPattern: base) % (layout.depth.bits / 8) == 0 else {
            throw ImageError(message: "the samples are not aligned to their \(layout.depth.bits / 8)-byte size")
        }
        // Kept in the buffer's own format (3 bytes a pixel for 8-bit RGB), rows packed: the scheduler
        // moves and caches them as it does a decoded file's samples.
        let format = SampleFormat(depth: layout.depth, bands: layout.channels)
        let rowBytes = layout.width * format.bytesPerPixel
        let bytes = [UInt8](unsafeUninitializedCapacity: rowBytes * layout.height) { target, count in
            for y in 0..<layout.height {
                (target.baseAddress.unsafelyUnwrapped + y * rowBytes).initialize(
                    from: (base + y * layout.rowBytes).assumingMemoryBound(to: UInt8.self), count: rowBytes)
            }
            count = rowBytes * layout.height
        }
        self.init(
            width: layout.width, height: layout.height, layout: layout.layout, depth: layout.depth,
            source: PackedBufferSource(format: format, width: layout.width, bytes: bytes))
    }

    /// An image holding a copy of `bytes`, laid out as `layout` says; refused when the buffer is shorter
    /// than the layout spans (``SampleBufferLayout/byteCount``).
    public init(copying bytes: UnsafeRawBufferPointer, _ layout: SampleBufferLayout) throws(ImageError) {
        guard let base = bytes.baseAddress, bytes.count >= layout.byteCount else {
            throw ImageError(
                message: "the buffer holds \(bytes.count) bytes, fewer than the \(layout.byteCount) its layout spans")
        }
        try self.init(copying: base, layout)
    }

    /// Renders this image into `bytes` as the pointer version does; refused when the buffer is shorter
    /// than the layout spans.
    public func copyPixels(to bytes: UnsafeMutableRawBufferPointer, _ layout: SampleBufferLayout) throws {
        guard let base = bytes.baseAddress, bytes.count >= layout.byteCount else {
            throw ImageError(
                message: "the buffer holds \(bytes.count) bytes, fewer than the \(layout.byteCount) its layout spans")
        }
        try copyPixels(to: base, layout)
    }

    /// Renders this image and writes its samples to `base`, laid out as `layout` says (its width and
    /// height must be this image's): integers are rounded to the nearest level, ties to even, as `save`
    /// writes them, so the bytes are those of a PNG or TIFF the graph would save; a gray image fills
    /// more channels with its gray, alpha is 1 where the image has none, one channel of a color image is
    /// its red, and three drop its alpha.
    public func copyPixels(to base: UnsafeMutableRawPointer, _ layout: SampleBufferLayout) throws {
        if let problem = layout.problem { throw ImageError(message: problem) }
        guard layout.width == width, layout.height == height else {
            throw ImageError(
                message: "the buffer is \(layout.width)x\(layout.height), and the image \(width)x\(height)")
        }
        guard Int(bitPattern: base) % (layout.depth.bits / 8) == 0 else {
            throw ImageError(message: "the buffer is not aligned to its \(layout.depth.bits / 8)-byte samples")
        }
        let encoder = Samples.encoder(channels: channels, fileChannels: layout.channels, depth: layout.depth)
        if source is PackedBufferSource || encoder.packed == nativeFormat {
            // Samples held packed (a kept output, a supplied image) are copied, or converted row by row.
            var scratch = PixelBuffer(region: .empty, channels: channels)
            defer { scratch.recycle() }
            for y in 0..<height {
                try encode(
                    Rect(x: 0, y: y, width: width, height: 1), with: encoder, scratch: &scratch,
                    into: base + y * layout.rowBytes, rowBytes: layout.rowBytes)
            }
            return
        }
        let pixels = try pixels()
        pixels.samples.withUnsafeBufferPointer { samples in
            guard let source = samples.baseAddress else { return }
            for y in 0..<height {
                encoder.encode(source + y * pixels.rowLength, width, base + y * layout.rowBytes)
            }
        }
    }
}
