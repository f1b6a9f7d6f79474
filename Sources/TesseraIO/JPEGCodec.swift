import CImageShims
import TesseraCore

/// JPEG through libjpeg-turbo: baseline and progressive, gray and color (CMYK converted), EXIF orientation,
/// and decoding at 1/2, 1/4 or 1/8 of the size (`DecodeOptions.shrink`) by libjpeg's DCT scaling.
enum JPEGCodec {
    private static func open(
        _ path: String, options: DecodeOptions, shrink: Int
    ) throws -> (OpaquePointer, tsr_jpeg_info, metadata: ImageMetadata) {
        var info = tsr_jpeg_info()
        var error = ShimError()
        guard
            let reader = tsr_jpeg_open(
                path, options.failOn.shimValue, &info, UInt64(options.memoryLimit(forFileOf: path)), UInt32(shrink),
                &error.buffer, ShimError.capacity)
        else {
            throw ImageError(path: path, message: "JPEG: \(error.message)")
        }
        return (reader, info, ImageMetadata(info.metadata))
    }

    /// The file's info at the shrunk size, turned upright as ``ImageInfo/upright(_:)`` does for every format.
    private static func describe(_ info: tsr_jpeg_info, metadata: ImageMetadata, options: DecodeOptions) -> ImageInfo {
        var details = [info.progressive != 0 ? "progressive" : "baseline"]
        if options.shrink > 1 { details.append("decoded at 1/\(options.shrink) by DCT scaling") }
        let stored = ImageInfo(
            format: .jpeg, width: Int(info.output_width), height: Int(info.output_height), fullWidth: Int(info.width),
            fullHeight: Int(info.height), shrink: options.shrink, layout: info.channels == 1 ? .gray : .rgb,
            bitsPerSample: 8, isFloat: false, orientation: metadata.orientation, orientationApplied: false,
            details: details, metadata: metadata, fileResolution: ImageInfo.resolution(info.x_dpi, info.y_dpi))
        return stored.upright(options)
    }

    static func info(path: String, options: DecodeOptions = DecodeOptions()) throws -> ImageInfo {
        let (reader, header, metadata) = try open(path, options: options, shrink: options.shrink)
        defer { tsr_jpeg_close(reader) }
        let info = describe(header, metadata: metadata, options: options)
        try check(header, info: info, turned: info.orientationApplied, path: path, options: options)
        // Damage in the header (a bad ICC marker), reported once the file is known to be read.
        options.report(tsr_jpeg_damage(reader).pointee, format: "JPEG", path: path)
        return info
    }

    /// Refuses a header whose image is over the limits, or more than the file can hold, before
    /// `jpeg_start_decompress` allocates for it.
    ///
    /// The pixel limit counts the image the header claims; the memory is that of the decode as it is
    /// done, at the shrunk size: libjpeg's whole-image coefficients for a file of several scans
    /// (progressive; full size whatever the shrink), a band of rows as stored and as Float32, and a
    /// turned image twice whole (decoded, then turned).
    static func check(
        _ header: tsr_jpeg_info, info: ImageInfo, turned: Bool, path: String, options: DecodeOptions
    ) throws {
        try options.checkSize(width: info.fullWidth, height: info.fullHeight, path: path)
        // Every Huffman-coded scan spends at least one bit on each block of its components, and a file
        // that decodes has a scan; arithmetic coding can spend less, so it is left to the memory limit.
        if header.arithmetic == 0, header.file_bytes != UInt64.max,
            saturatingProduct(Int(header.file_bytes), 8) < Int(clamping: header.fewest_blocks)
        {
            throw ImageError(
                path: path,
                message:
                    "JPEG: a \(header.file_bytes)-byte file cannot hold \(info.fullWidth)x\(info.fullHeight) pixels (each 8x8 block takes at least a bit); the file is truncated or crafted"
            )
        }
        let channels = info.layout.channels
        let rows = Swift.min(info.height, RowBands.height)
        let band = saturatingSum(
            saturatingProduct(info.width, Int(header.channels), rows),
            saturatingProduct(info.width, channels, MemoryLayout<Float>.size, rows))
        let whole = turned ? saturatingProduct(info.width, info.height, channels, MemoryLayout<Float>.size, 2) : 0
        let bytes = saturatingSum(Int(clamping: header.coefficient_bytes), band, whole)
        let scaled = info.shrink > 1 ? " (1/\(info.shrink) of \(info.fullWidth)x\(info.fullHeight))" : ""
        try options.checkMemory(
            bytes, format: "JPEG", what: "decoding \(info.width)x\(info.height) pixels\(scaled)", path: path)
    }

    static func load(path: String, options: DecodeOptions) throws -> (ImageInfo, Image) {
        let (probe, header, metadata) = try open(path, options: options, shrink: options.shrink)
        defer { tsr_jpeg_close(probe) }
        let info = describe(header, metadata: metadata, options: options)
        let turn = info.orientationApplied ? info.orientation : 1
        try check(header, info: info, turned: turn != 1, path: path, options: options)
        options.report(tsr_jpeg_damage(probe).pointee, format: "JPEG", path: path)
        let shrink = options.shrink
        // Upright files stream row by row; a turned one is decoded whole (at the shrunk size) and turned.
        let source: any PixelSource =
            turn == 1
            ? RowStreamSource { try RowDecoder(path: path, options: options, shrink: shrink) }
            : DecodeOnceSource {
                try Orientation.apply(turn, to: RowDecoder(path: path, options: options, shrink: shrink).decodeAll())
            }
        return (
            info, Image(width: info.width, height: info.height, layout: info.layout, depth: .uint8, source: source)
        )
    }

    /// Rows of a JPEG as stored, top to bottom, at 1/`shrink` of the size.
    final class RowDecoder: TesseraIO.RowDecoder {
        let path: String
        let width: Int
        let height: Int
        let channels: Int
        private let reader: OpaquePointer
        private let options: DecodeOptions
        private let fileChannels: Int
        private var raw: [UInt8] = []
        private var nextRow = 0

        init(path: String, options: DecodeOptions, shrink: Int = 1) throws {
            let (reader, info, _) = try JPEGCodec.open(path, options: options, shrink: shrink)
            self.reader = reader
            self.options = options
            self.path = path
            width = Int(info.output_width)
            height = Int(info.output_height)
            fileChannels = Int(info.channels)
            channels = fileChannels == 1 ? 1 : 4
        }

        deinit { tsr_jpeg_close(reader) }

        /// 8-bit gray or RGB, as libjpeg gives them.
        var packedFormat: SampleFormat? { SampleFormat(depth: .uint8, bands: fileChannels) }

        func readPackedRows(into target: UnsafeMutableRawPointer, rowBytes targetRowBytes: Int, count: Int) throws {
            var error = ShimError()
            let status = tsr_jpeg_read_rows(
                reader, target.assumingMemoryBound(to: UInt8.self), targetRowBytes, UInt32(count), &error.buffer,
                ShimError.capacity)
            if status != 0 { throw ImageError(path: path, message: "JPEG: \(error.message)") }
            try advance(by: count)
        }

        /// Reports what libjpeg has read past so far (once per file).
        private func reportDamage() {
            options.report(tsr_jpeg_damage(reader).pointee, format: "JPEG", path: path)
        }

        func readRows(into target: UnsafeMutablePointer<Float>, count: Int) throws {
            var error = ShimError()
            let rowBytes = width * fileChannels
            // libjpeg works in rows of up to 16; a band of 32 keeps the byte buffer small.
            let band = Swift.min(count, 32)
            if raw.count < rowBytes * band { raw = [UInt8](repeating: 0, count: rowBytes * band) }
            var done = 0
            while done < count {
                let rows = Swift.min(band, count - done)
                let status = raw.withUnsafeMutableBufferPointer { bytes in
                    tsr_jpeg_read_rows(
                        reader, bytes.baseAddress, rowBytes, UInt32(rows), &error.buffer, ShimError.capacity)
                }
                if status != 0 { throw ImageError(path: path, message: "JPEG: \(error.message)") }
                raw.withUnsafeBufferPointer { bytes in
                    guard let base = bytes.baseAddress else { return }
                    for row in 0..<rows {
                        Samples.decode(
                            base + row * rowBytes, fileChannels: fileChannels, stride: fileChannels, count: width,
                            scale: 1 / 255, into: target + (done + row) * width * channels)
                    }
                }
                done += rows
            }
            try advance(by: count)
        }

        private func advance(by count: Int) throws {
            var error = ShimError()
            nextRow += count
            if nextRow == height, tsr_jpeg_finish(reader, &error.buffer, ShimError.capacity) != 0 {
                throw ImageError(path: path, message: "JPEG: \(error.message)")
            }
            reportDamage()
        }
    }

    /// Writes 8-bit gray or RGB. JPEG has no alpha: an image with alpha is laid over
    /// `options.background` (its luminance for gray).
    static func write(_ image: Image, to path: String, options: EncodeOptions) throws {
        let fileChannels = image.layout.isGray ? 1 : 3
        var error = ShimError()
        guard
            let writer = ImageMetadata.written(for: image, options: options).withShim({ metadata in
                tsr_jpeg_writer_open(
                    path, UInt32(image.width), UInt32(image.height), Int32(fileChannels),
                    Int32(options.quality(for: .jpeg)),
                    options.progressive ? 1 : 0, metadata, options.dpi ?? 0, &error.buffer, ShimError.capacity)
            })
        else {
            throw ImageError(message: "cannot write JPEG: \(error.message)")
        }
        defer { tsr_jpeg_writer_close(writer) }
        try RowBands.write(
            image, format: "JPEG", fileChannels: fileChannels, sixteenBit: false,
            background: image.layout.hasAlpha ? SIMD3<Float>(options.background) : nil,
            rows: { tsr_jpeg_write_rows(writer, $0, $1, $2, $3, ShimError.capacity) },
            finish: { tsr_jpeg_writer_finish(writer, $0, ShimError.capacity) })
    }
}
