import CImageShims
import TesseraCore

/// PNG through libpng: every bit depth and color type in, gray / gray-alpha / RGB / RGBA at 8 or 16 bits out.
enum PNGCodec {
    private static let colorTypeNames = [0: "gray", 2: "RGB", 3: "palette", 4: "gray+alpha", 6: "RGBA"]

    /// Opens the file and reads its header; the caller closes the reader.
    /// The reader, its header and the metadata before the image data (copied: the header's pointers
    /// into it live only as long as the reader).
    private static func open(_ path: String, options: DecodeOptions) throws -> (
        OpaquePointer, tsr_png_info, ImageMetadata
    ) {
        var info = tsr_png_info()
        var error = ShimError()
        guard let reader = tsr_png_open(path, options.failOn.shimValue, &info, &error.buffer, ShimError.capacity)
        else {
            throw ImageError(path: path, message: "PNG: \(error.message)")
        }
        return (reader, info, ImageMetadata(info.metadata))
    }

    static func info(path: String, options: DecodeOptions) throws -> ImageInfo {
        let (reader, header, metadata) = try open(path, options: options)
        defer { tsr_png_close(reader) }
        try check(header, path: path, options: options)
        // Damage in the chunks before the image data, reported once the file is known to be read.
        options.report(tsr_png_damage(reader).pointee, format: "PNG", path: path)
        return describe(header, metadata: metadata)
    }

    /// Deflate's best case: a 258-byte match in 2 bits of codes, so no stream expands more than this.
    static let deflateMaxRatio = 1032

    /// Refuses a header whose image is over the limits, or more than its image data can hold, before
    /// libpng allocates its rows.
    ///
    /// Memory counted: libpng's two rows (this one and the previous, for the filters), a band of
    /// `RowBands.height` rows as stored and as Float32 (what a writer asks for at once), and for an
    /// interlaced file the whole image as stored, since no row is complete before the last pass.
    static func check(_ header: tsr_png_info, path: String, options: DecodeOptions) throws {
        let width = Int(header.width)
        let height = Int(header.height)
        try options.checkSize(width: width, height: height, path: path)
        let fileChannels = [0: 1, 2: 3, 3: 1, 4: 2, 6: 4][Int(header.file_color_type)] ?? 4
        let storedBytes = saturatingProduct(width, height, fileChannels, Int(header.file_bit_depth)) / 8
        if header.idat_bytes != UInt64.max, saturatingProduct(Int(header.idat_bytes), deflateMaxRatio) < storedBytes {
            throw ImageError(
                path: path,
                message:
                    "PNG: \(header.idat_bytes) bytes of image data cannot hold \(width)x\(height) pixels (deflate expands at most \(deflateMaxRatio) times); the file is truncated or crafted"
            )
        }
        let rowBytes = saturatingProduct(width, Int(header.channels), Int(header.bytes_per_sample))
        let band = Swift.min(height, RowBands.height)
        let floats = saturatingProduct(width, header.channels == 1 ? 1 : 4, MemoryLayout<Float>.size, band)
        let stored = saturatingProduct(rowBytes, header.interlaced != 0 ? height : band)
        let bytes = saturatingSum(saturatingProduct(rowBytes + 1, 2), stored, floats)
        try options.checkMemory(bytes, format: "PNG", what: "decoding \(width)x\(height) pixels", path: path)
    }

    private static func describe(_ info: tsr_png_info, metadata: ImageMetadata) -> ImageInfo {
        let layouts: [PixelLayout] = [.gray, .grayAlpha, .rgb, .rgba]
        var details = ["color type \(colorTypeNames[Int(info.file_color_type)] ?? "\(info.file_color_type)")"]
        if info.interlaced != 0 { details.append("interlaced (Adam7)") }
        return ImageInfo(
            format: .png, width: Int(info.width), height: Int(info.height), fullWidth: Int(info.width),
            fullHeight: Int(info.height), shrink: 1, layout: layouts[Int(info.channels) - 1],
            bitsPerSample: Int(info.file_bit_depth), isFloat: false,
            orientation: metadata.orientation, orientationApplied: false, details: details, metadata: metadata,
            fileResolution: ImageInfo.resolution(info.x_dpi, info.y_dpi))
    }

    static func load(path: String, options: DecodeOptions) throws -> (ImageInfo, Image) {
        let (probe, header, metadata) = try open(path, options: options)
        defer { tsr_png_close(probe) }
        try check(header, path: path, options: options)
        options.report(tsr_png_damage(probe).pointee, format: "PNG", path: path)
        let info = describe(header, metadata: metadata)
        let source = RowStreamSource { try RowDecoder(path: path, options: options) }
        return (
            info, Image(width: info.width, height: info.height, layout: info.layout, depth: info.depth, source: source)
        )
    }

    /// Rows of a PNG, top to bottom. An interlaced file needs every pass before any row is complete, so
    /// it is read whole (as stored, 1 or 2 bytes a sample) on the first call.
    final class RowDecoder: TesseraIO.RowDecoder {
        let path: String
        let width: Int
        let height: Int
        let channels: Int
        private let reader: OpaquePointer
        private let info: tsr_png_info
        private let options: DecodeOptions
        private let rowBytes: Int
        private var raw: [UInt8] = []
        private var nextRow = 0

        init(path: String, options: DecodeOptions) throws {
            (reader, info, _) = try PNGCodec.open(path, options: options)
            self.options = options
            self.path = path
            width = Int(info.width)
            height = Int(info.height)
            channels = info.channels == 1 ? 1 : 4
            rowBytes = width * Int(info.channels) * Int(info.bytes_per_sample)
        }

        deinit { tsr_png_close(reader) }

        /// The rows' format as libpng gives them, for a non-interlaced file of 8-bit or 16-bit samples
        /// (interlaced files are read whole on the first request).
        var packedFormat: SampleFormat? {
            guard info.interlaced == 0, info.max_value == 255 || info.max_value == 65535 else { return nil }
            return SampleFormat(depth: info.bytes_per_sample == 2 ? .uint16 : .uint8, bands: Int(info.channels))
        }

        func readPackedRows(into target: UnsafeMutableRawPointer, rowBytes targetRowBytes: Int, count: Int) throws {
            var error = ShimError()
            let status = tsr_png_read_rows(
                reader, target.assumingMemoryBound(to: UInt8.self), targetRowBytes, UInt32(count), &error.buffer,
                ShimError.capacity)
            if status != 0 { throw ImageError(path: path, message: "PNG: \(error.message)") }
            reportDamage()
            try advance(by: count)
        }

        /// Reports what the reader has read past so far (once per file).
        private func reportDamage() {
            options.report(tsr_png_damage(reader).pointee, format: "PNG", path: path)
        }

        func readRows(into target: UnsafeMutablePointer<Float>, count: Int) throws {
            var error = ShimError()
            let interlaced = info.interlaced != 0
            let needed = interlaced ? rowBytes * height : rowBytes * count
            if raw.count < needed { raw = [UInt8](repeating: 0, count: needed) }
            let status = raw.withUnsafeMutableBufferPointer { bytes -> Int32 in
                if interlaced {
                    guard nextRow == 0 else { return 0 }
                    return tsr_png_read_image(reader, bytes.baseAddress, rowBytes, &error.buffer, ShimError.capacity)
                }
                return tsr_png_read_rows(
                    reader, bytes.baseAddress, rowBytes, UInt32(count), &error.buffer, ShimError.capacity)
            }
            if status != 0 { throw ImageError(path: path, message: "PNG: \(error.message)") }
            reportDamage()
            let fileChannels = Int(info.channels)
            let scale = 1 / Float(info.max_value)
            let firstRow = interlaced ? nextRow : 0
            raw.withUnsafeBytes { bytes in
                guard let base = bytes.baseAddress else { return }
                for row in 0..<count {
                    let source = base + (firstRow + row) * rowBytes
                    let destination = target + row * width * channels
                    if info.bytes_per_sample == 2 {
                        Samples.decode(
                            source.assumingMemoryBound(to: UInt16.self), fileChannels: fileChannels,
                            stride: fileChannels, count: width, scale: scale, into: destination)
                    } else {
                        Samples.decode(
                            source.assumingMemoryBound(to: UInt8.self), fileChannels: fileChannels,
                            stride: fileChannels, count: width, scale: scale, into: destination)
                    }
                }
            }
            try advance(by: count)
        }

        private func advance(by count: Int) throws {
            var error = ShimError()
            nextRow += count
            if nextRow == height {
                if tsr_png_finish(reader, &error.buffer, ShimError.capacity) != 0 {
                    throw ImageError(path: path, message: "PNG: \(error.message)")
                }
                reportDamage()
            }
        }
    }

    static func write(_ image: Image, to path: String, depth: SampleDepth, options: EncodeOptions) throws {
        let fileChannels = image.layout.fileChannels
        let sixteen = depth == .uint16
        var error = ShimError()
        guard
            let writer = ImageMetadata.written(for: image, options: options).withShim({ metadata in
                tsr_png_writer_open(
                    path, UInt32(image.width), UInt32(image.height), Int32(fileChannels), sixteen ? 16 : 8,
                    Int32(options.pngLevel), metadata, options.dpi ?? 0, &error.buffer, ShimError.capacity)
            })
        else {
            throw ImageError(message: "cannot write PNG: \(error.message)")
        }
        defer { tsr_png_writer_close(writer) }
        let rowBytes = image.width * fileChannels * (sixteen ? 2 : 1)
        var stream = PNGStream(
            rowBytes: rowBytes, bytesPerPixel: fileChannels * (sixteen ? 2 : 1), sixteenBit: sixteen,
            level: options.pngLevel)
        let encoder = Samples.encoder(
            channels: image.channels, fileChannels: fileChannels, depth: sixteen ? .uint16 : .uint8)
        var pixels = PixelBuffer(region: .empty, channels: image.channels)
        var rows = [UInt8](repeating: 0, count: rowBytes * Swift.min(image.height, stream.groupRows))
        for group in image.extent.tiles(width: image.width, height: stream.groupRows) {
            try rows.withUnsafeMutableBytes { bytes in
                guard let base = bytes.baseAddress else { return }
                try image.encode(group, with: encoder, scratch: &pixels, into: base, rowBytes: rowBytes)
            }
            try stream.add(rows, count: group.height, last: group.maxY == image.height) { bytes in
                if tsr_png_write_idat(writer, bytes.baseAddress, bytes.count, &error.buffer, ShimError.capacity) != 0 {
                    throw ImageError(message: "cannot write PNG: \(error.message)")
                }
            }
        }
        if tsr_png_writer_finish(writer, &error.buffer, ShimError.capacity) != 0 {
            throw ImageError(message: "cannot write PNG: \(error.message)")
        }
    }
}
