import Synchronization
import CImageShims
import TesseraCore

/// What the formats decoded whole (WebP, GIF, HEIF and AVIF) share: a limit check before anything is
/// allocated, 8-bit samples decoded once and turned upright, and writers fed the whole image.
enum WholeImage {
    /// Decodes the whole image into its pixels, noting the damage it reads past, with a message on failure.
    typealias Decode =
        @Sendable (
            _ pixels: UnsafeMutablePointer<UInt8>, _ damage: UnsafeMutablePointer<tsr_damage>,
            _ error: UnsafeMutablePointer<CChar>
        ) -> Int32

    /// Refuses a `width` x `height` image over the limits. Counted: the decoded 8-bit frame that is
    /// kept (``DecodedBytesSource``), and the decoder's own working frames, `workingBytes` a pixel (RGBA:
    /// GIF's screen, libheif's decoded image; libwebp's animation canvas and its copy of the previous
    /// frame, 8).
    static func check(
        width: Int, height: Int, fileChannels: Int, workingBytes: Int = 4, format: ImageFormat, path: String,
        options: DecodeOptions
    ) throws {
        guard width > 0, height > 0 else { throw ImageError(path: path, message: "\(format): the image is empty") }
        try options.checkSize(width: width, height: height, path: path)
        let bytes = saturatingProduct(width, height, fileChannels + workingBytes)
        try options.checkMemory(bytes, format: "\(format)", what: "decoding \(width)x\(height) pixels", path: path)
    }

    /// The info of an image decoded whole, as stored; ``ImageFile`` turns it upright. HEIF's own
    /// transformations are applied by libheif and its EXIF orientation is not read (`orientationInEXIF`
    /// false): it is reset in the metadata kept.
    static func describe(
        format: ImageFormat, width: Int, height: Int, layout: PixelLayout, details: [String],
        metadata: ImageMetadata, orientationInEXIF: Bool = true
    ) -> ImageInfo {
        ImageInfo(
            format: format, width: width, height: height, fullWidth: width, fullHeight: height, shrink: 1,
            layout: layout, bitsPerSample: 8, isFloat: false, orientation: orientationInEXIF ? metadata.orientation : 1,
            orientationApplied: false, details: details, metadata: orientationInEXIF ? metadata : metadata.upright())
    }

    /// An image of `info`'s size whose pixels `decode` writes as 8-bit samples (`width * fileChannels`
    /// bytes a row) on the first request (``DecodedBytesSource``), noting the damage it reads past in its
    /// `tsr_damage` (reported once decoded).
    static func image(
        _ info: ImageInfo, fileChannels: Int, path: String, options: DecodeOptions,
        decode: @escaping WholeImage.Decode
    ) -> Image {
        image(info, fileChannels: fileChannels) {
            { pixels, _ in
                var error = ShimError()
                var damage = options.damage
                if decode(pixels, &damage, &error.buffer) != 0 {
                    throw ImageError(path: path, message: "\(info.format): \(error.message)")
                }
                options.report(damage, format: "\(info.format)", path: path)
                return info.height
            }
        }
    }

    /// An image of `info`'s size whose rows a decoder made by `start` writes top to bottom as they are
    /// asked for (``DecodedBytesSource``).
    static func image(
        _ info: ImageInfo, fileChannels: Int, start: @escaping @Sendable () throws -> DecodedBytesSource.Rows
    ) -> Image {
        let source = DecodedBytesSource(
            width: info.width, height: info.height, fileChannels: fileChannels, start: start)
        return Image(width: info.width, height: info.height, layout: info.layout, depth: .uint8, source: source)
    }

    /// The whole image as 8-bit RGB, or RGBA when it has alpha (gray is spread to RGB): what WebP and
    /// HEIF encoders take.
    static func rgbBytes(of image: Image) throws -> (bytes: [UInt8], channels: Int) {
        let fileChannels = image.layout.fileChannels
        let channels = image.layout.hasAlpha ? 4 : 3
        var bytes = [UInt8](repeating: 0, count: image.width * image.height * channels)
        var row = 0
        try RowBands.encode(image, fileChannels: fileChannels, sixteenBit: false) { band, rowBytes, rows in
            if fileChannels == channels {
                // RGB or RGBA as stored: the band's rows are the bytes.
                bytes.withUnsafeMutableBytes { target in
                    guard let base = target.baseAddress else { return }
                    for y in 0..<rows {
                        (base + (row + y) * image.width * channels).copyMemory(
                            from: band + y * rowBytes, byteCount: image.width * channels)
                    }
                }
                row += rows
                return
            }
            for y in 0..<rows {
                let from = band + y * rowBytes
                let to = (row + y) * image.width * channels
                for x in 0..<image.width {
                    for c in 0..<channels {
                        // Gray (and gray with alpha) spread to red, green and blue.
                        let source = image.layout.isGray ? (c < 3 ? 0 : 1) : c
                        bytes[to + x * channels + c] = from[x * fileChannels + source]
                    }
                }
            }
            row += rows
        }
        return (bytes, channels)
    }
}

/// The pixels of a file decoded into 8-bit samples once and kept as they are: each request converts only
/// its own region to Float32, so the image in memory is the file's 8-bit frame (a 36 MP WebP: 108 MB, not
/// 575 MB of floats), and the conversion runs on the workers that ask. The rows are decoded top to bottom
/// as far as requests reach (a still WebP, through libwebp's incremental decoder: the first bands render
/// and are written while the rest decodes), or whole on the first request. A failure is kept, so every
/// later request reports the same error.
final class DecodedBytesSource: PixelSource, @unchecked Sendable {
    /// Decodes into the pixels at least the rows above `wanted` (all of them, for a decoder that decodes
    /// whole) and returns how many rows from the top are decoded.
    typealias Rows = (_ pixels: UnsafeMutablePointer<UInt8>, _ wanted: Int) throws -> Int

    private let width: Int
    private let height: Int
    private let fileChannels: Int
    private let start: @Sendable () throws -> Rows
    /// Never zeroed: requests read only rows the decoder wrote (those above ``ready``), and the memory
    /// limit, sized to the file, bounds what a crafted header makes the decoder touch. Pages nobody
    /// writes are never touched.
    private let pixels: UnsafeMutablePointer<UInt8>
    /// Rows from the top that are decoded: read without the lock, so a request for rows already there
    /// does not wait while another thread decodes further down.
    private let ready = Atomic<Int>(0)
    private let state = Locked(State())

    private struct State {
        var decoder: Rows?
        var failure: (any Error)?
    }

    init(width: Int, height: Int, fileChannels: Int, start: @escaping @Sendable () throws -> Rows) {
        self.width = width
        self.height = height
        self.fileChannels = fileChannels
        self.start = start
        pixels = .allocate(capacity: width * height * fileChannels)
    }

    deinit { pixels.deallocate() }

    var givesFileSamples: Bool { true }

    /// Decodes at least the rows above `wanted`, under the lock: the rows it writes are below every row
    /// other threads are reading.
    private func decode(to wanted: Int) throws {
        if ready.load(ordering: .acquiring) >= wanted { return }
        try state.withLock { state in
            if let failure = state.failure { throw failure }
            guard ready.load(ordering: .acquiring) < wanted else { return }
            do {
                if state.decoder == nil { state.decoder = try start() }
                let decoded = try state.decoder.map { try $0(pixels, wanted) } ?? 0
                if decoded >= height { state.decoder = nil }
                ready.store(decoded, ordering: .releasing)
                if decoded < wanted { throw ImageError(message: "the decoder stopped at row \(decoded)") }
            } catch {
                state.failure = error
                state.decoder = nil
                throw error
            }
        }
    }

    func render(into target: inout PixelBuffer) throws {
        let region = target.region
        try decode(to: region.maxY)
        let from = UnsafePointer(pixels)
        let (channels, fileChannels, width) = (target.channels, fileChannels, self.width)
        target.samples.withUnsafeMutableBufferPointer { samples in
            guard let to = samples.baseAddress else { return }
            for row in 0..<region.height {
                Samples.decode(
                    from + ((region.y + row) * width + region.x) * fileChannels, fileChannels: fileChannels,
                    stride: fileChannels, count: region.width, scale: 1 / 255, into: to + row * region.width * channels)
            }
        }
    }
}

enum WebPCodec {
    private static func open(_ path: String) throws -> (OpaquePointer, tsr_webp_info, ImageMetadata) {
        var info = tsr_webp_info()
        var error = ShimError()
        guard let file = tsr_webp_open(path, &info, &error.buffer, ShimError.capacity) else {
            throw ImageError(path: path, message: "WebP: \(error.message)")
        }
        return (file, info, ImageMetadata(info.metadata))
    }

    static func info(path: String, options: DecodeOptions) throws -> ImageInfo {
        let (file, header, metadata) = try open(path)
        tsr_webp_close(file)
        return try describe(header, metadata: metadata, path: path, options: options)
    }

    private static func describe(
        _ header: tsr_webp_info, metadata: ImageMetadata, path: String, options: DecodeOptions
    ) throws -> ImageInfo {
        let channels = header.has_alpha != 0 ? 4 : 3
        try WholeImage.check(
            width: Int(header.width), height: Int(header.height), fileChannels: channels,
            workingBytes: header.animated != 0 ? 8 : 4, format: .webp, path: path, options: options)
        var details = [header.lossless != 0 ? "lossless" : "lossy"]
        if header.animated != 0 {
            details.append("animated, \(header.frames) frame\(header.frames == 1 ? "" : "s") (the first is read)")
        }
        var info = WholeImage.describe(
            format: .webp, width: Int(header.width), height: Int(header.height),
            layout: channels == 4 ? .rgba : .rgb, details: details, metadata: metadata)
        // A still image is shrunk by libwebp as it decodes; an animation's frame by block averages.
        info.scalesWhole = header.animated == 0
        return info
    }

    static func load(path: String, options: DecodeOptions) throws -> (ImageInfo, Image) {
        let (probe, header, metadata) = try open(path)
        tsr_webp_close(probe)
        let stored = try describe(header, metadata: metadata, path: path, options: options)
        // A shrink of a still image is libwebp's: the frame is decoded at the smaller size, row by row.
        let info = stored.scalesWhole ? stored.shrunk(by: options.shrink) : stored
        let scaled = info.shrink > 1 ? (width: info.width, height: info.height) : (0, 0)
        let channels = info.layout.fileChannels
        let image = WholeImage.image(info, fileChannels: channels) {
            let decoder = try WebPRows(path: path, channels: channels, scaled: scaled)
            return { pixels, wanted in try decoder.advance(pixels, to: wanted) }
        }
        return (info, image)
    }

    /// Lossy at `options.quality`, or lossless (exact) with `options.lossless`.
    static func write(_ image: Image, to path: String, options: EncodeOptions) throws {
        let (bytes, channels) = try WholeImage.rgbBytes(of: image)
        var error = ShimError()
        let status = ImageMetadata.written(for: image, options: options).withShim { metadata in
            tsr_webp_write(
                path, bytes, UInt32(image.width), UInt32(image.height), Int32(channels), options.lossless ? 1 : 0,
                Float(options.quality(for: .webp)), metadata, &error.buffer, ShimError.capacity)
        }
        if status != 0 { throw ImageError(message: "cannot write WebP: \(error.message)") }
    }
}

/// A WebP file open and its frame decoding into the pixels first handed to ``advance(_:to:)`` (the same
/// on every call), rows top to bottom (`tsr_webp_rows_*`). Used under its source's lock.
private final class WebPRows {
    private let path: String
    private let channels: Int
    /// The size libwebp scales the frame to; 0 by 0 for its own.
    private let scaled: (width: Int, height: Int)
    private let file: OpaquePointer
    private var rows: OpaquePointer?

    init(path: String, channels: Int, scaled: (width: Int, height: Int)) throws {
        var header = tsr_webp_info()
        var error = ShimError()
        guard let file = tsr_webp_open(path, &header, &error.buffer, ShimError.capacity) else {
            throw ImageError(path: path, message: "WebP: \(error.message)")
        }
        self.path = path
        self.channels = channels
        self.scaled = scaled
        self.file = file
    }

    deinit {
        tsr_webp_rows_free(rows)
        tsr_webp_close(file)
    }

    func advance(_ pixels: UnsafeMutablePointer<UInt8>, to wanted: Int) throws -> Int {
        var error = ShimError()
        if rows == nil {
            rows = tsr_webp_rows_start(
                file, pixels, Int32(channels), UInt32(scaled.width), UInt32(scaled.height), &error.buffer,
                ShimError.capacity)
            if rows == nil { throw ImageError(path: path, message: "WebP: \(error.message)") }
        }
        var ready: UInt32 = 0
        if tsr_webp_rows_advance(rows, UInt32(clamping: wanted), &ready, &error.buffer, ShimError.capacity) != 0 {
            throw ImageError(path: path, message: "WebP: \(error.message)")
        }
        return Int(ready)
    }
}

enum GIFCodec {
    /// The header, and the damage read past up to the frame asked for (reported by the caller once the
    /// header passes its checks).
    private static func header(_ path: String, options: DecodeOptions) throws -> (tsr_gif_info, tsr_damage) {
        let frame = options.frame
        var info = tsr_gif_info()
        var error = ShimError()
        var damage = options.damage
        if tsr_gif_info_read(path, Int32(frame), &info, &damage, &error.buffer, ShimError.capacity) != 0 {
            throw ImageError(path: path, message: "GIF: \(error.message)")
        }
        guard frame < info.frames else {
            throw ImageError(
                path: path,
                message: "GIF: there is no frame \(frame) (frames are counted from 0; the file has \(info.frames))")
        }
        return (info, damage)
    }

    static func info(path: String, options: DecodeOptions) throws -> ImageInfo {
        let (header, damage) = try header(path, options: options)
        let info = try describe(header, path: path, options: options)
        options.report(damage, format: "GIF", path: path)
        return info
    }

    private static func describe(_ header: tsr_gif_info, path: String, options: DecodeOptions) throws -> ImageInfo {
        let channels = header.has_alpha != 0 ? 4 : 3
        try WholeImage.check(
            width: Int(header.width), height: Int(header.height), fileChannels: channels, format: .gif, path: path,
            options: options)
        var details = ["palette"]
        if header.frames > 1 {
            details.append("animated, \(header.frames) frames (frame \(options.frame) is read)")
            details.append("delay \(header.delay_ms) ms")
        }
        if header.interlaced != 0 { details.append("interlaced") }
        return WholeImage.describe(
            format: .gif, width: Int(header.width), height: Int(header.height), layout: channels == 4 ? .rgba : .rgb,
            details: details, metadata: ImageMetadata())
    }

    static func load(path: String, options: DecodeOptions) throws -> (ImageInfo, Image) {
        let (header, damage) = try header(path, options: options)
        let info = try describe(header, path: path, options: options)
        options.report(damage, format: "GIF", path: path)
        let channels = info.layout.fileChannels
        let frame = Int32(options.frame)
        let image = WholeImage.image(info, fileChannels: channels, path: path, options: options) {
            pixels, damage, error in
            tsr_gif_decode(path, frame, pixels, Int32(channels), damage, error, ShimError.capacity)
        }
        return (info, image)
    }
}

enum HEIFCodec {
    private static func open(_ path: String) throws -> (OpaquePointer, tsr_heif_info, ImageMetadata) {
        var info = tsr_heif_info()
        var error = ShimError()
        guard let file = tsr_heif_open(path, &info, &error.buffer, ShimError.capacity) else {
            throw ImageError(path: path, message: "HEIF: \(error.message)")
        }
        return (file, info, ImageMetadata(info.metadata))
    }

    static func info(path: String, format: ImageFormat, options: DecodeOptions) throws -> ImageInfo {
        let (file, header, metadata) = try open(path)
        tsr_heif_close(file)
        return try describe(header, format: format, metadata: metadata, path: path, options: options)
    }

    private static func describe(
        _ header: tsr_heif_info, format: ImageFormat, metadata: ImageMetadata, path: String, options: DecodeOptions
    ) throws -> ImageInfo {
        let channels = header.has_alpha != 0 ? 4 : 3
        try WholeImage.check(
            width: Int(header.width), height: Int(header.height), fileChannels: channels, format: format, path: path,
            options: options)
        var details = [format == .avif ? "AV1" : "HEVC"]
        if header.bit_depth > 8 { details.append("\(header.bit_depth)-bit, decoded to 8") }
        // HEIF turns its images with its own boxes (irot, imir), which libheif applies; EXIF's orientation
        // is not read (as the HEIF standard says, and libvips and Apple do).
        return WholeImage.describe(
            format: format, width: Int(header.width), height: Int(header.height), layout: channels == 4 ? .rgba : .rgb,
            details: details, metadata: metadata, orientationInEXIF: false)
    }

    static func load(path: String, format: ImageFormat, options: DecodeOptions) throws -> (ImageInfo, Image) {
        let (probe, header, metadata) = try open(path)
        tsr_heif_close(probe)
        let info = try describe(header, format: format, metadata: metadata, path: path, options: options)
        let channels = info.layout.fileChannels
        let image = WholeImage.image(info, fileChannels: channels, path: path, options: options) {
            pixels, damage, error in
            var header = tsr_heif_info()
            guard let file = tsr_heif_open(path, &header, error, ShimError.capacity) else { return -1 }
            defer { tsr_heif_close(file) }
            return tsr_heif_decode(file, pixels, Int32(channels), damage, error, ShimError.capacity)
        }
        return (info, image)
    }

    /// The encoder libheif has for `format`, or nil.
    static func encoder(for format: ImageFormat) -> String? {
        var name = [CChar](repeating: 0, count: 128)
        guard tsr_heif_has_codec(format == .avif ? 1 : 0, 1, &name, name.count) != 0 else { return nil }
        return String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    static func write(_ image: Image, to path: String, format: ImageFormat, options: EncodeOptions) throws {
        guard encoder(for: format) != nil else {
            throw ImageError(
                message: "this libheif has no \(format == .avif ? "AV1" : "HEVC") encoder: write .png, .webp or .jpg")
        }
        let (bytes, channels) = try WholeImage.rgbBytes(of: image)
        var error = ShimError()
        let status = ImageMetadata.written(for: image, options: options).withShim { metadata in
            tsr_heif_write(
                path, bytes, UInt32(image.width), UInt32(image.height), Int32(channels), format == .avif ? 1 : 0,
                Int32(options.quality(for: format)), metadata, &error.buffer, ShimError.capacity)
        }
        if status != 0 { throw ImageError(message: "cannot write \(format): \(error.message)") }
    }
}
