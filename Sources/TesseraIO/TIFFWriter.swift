import CImageShims
import CTIFF
import TesseraCore

/// TIFF writing: strips or tiles, 8 or 16 bit or float, with or without compression.
enum TIFFWriter {
    static func write(_ image: Image, to path: String, depth: SampleDepth, options: EncodeOptions) throws {
        let fileChannels = image.layout.fileChannels
        let bytesPerSample = depth.bits / 8
        let uncompressed = image.width * image.height * fileChannels * bytesPerSample
        var error = ShimError()
        // Classic TIFF offsets are 32-bit: go BigTIFF well before the data could pass 4 GiB.
        let mode = uncompressed > 3 << 30 ? "w8" : "w"
        guard let tiff = tsr_tiff_open(path, mode, &error.buffer, ShimError.capacity) else {
            throw ImageError(message: "cannot write TIFF: \(error.message)")
        }
        var closed = false
        defer { if !closed { tsr_tiff_close(tiff) } }
        let tif = tiff.pointee.tif
        func fail() -> ImageError {
            ImageError(message: "cannot write " + TIFFReader.lastError(tiff, path: path))
        }
        func set16(_ tag: Int32, _ value: Int32) throws {
            if tsr_tiff_set_u16(tiff, UInt32(tag), UInt16(value)) == 0 { throw fail() }
        }
        func set32(_ tag: Int32, _ value: Int) throws {
            if tsr_tiff_set_u32(tiff, UInt32(tag), UInt32(value)) == 0 { throw fail() }
        }

        try set32(TIFFTAG_IMAGEWIDTH, image.width)
        try set32(TIFFTAG_IMAGELENGTH, image.height)
        try set16(TIFFTAG_BITSPERSAMPLE, Int32(depth.bits))
        try set16(TIFFTAG_SAMPLESPERPIXEL, Int32(fileChannels))
        try set16(TIFFTAG_SAMPLEFORMAT, depth == .float32 ? SAMPLEFORMAT_IEEEFP : SAMPLEFORMAT_UINT)
        try set16(TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG)
        try set16(TIFFTAG_ORIENTATION, ORIENTATION_TOPLEFT)
        if image.layout.hasAlpha {
            var unassociated = UInt16(EXTRASAMPLE_UNASSALPHA)
            if tsr_tiff_set_extrasamples(tiff, 1, &unassociated) == 0 { throw fail() }
        }
        if let dpi = options.dpi, tsr_tiff_set_resolution(tiff, dpi) == 0 { throw fail() }
        let metadata = ImageMetadata.written(for: image, options: options)
        if metadata.withShim({ $0.map { tsr_tiff_set_metadata(tiff, $0) } ?? 1 }) == 0 { throw fail() }
        let compression: Int32
        switch options.tiffCompression {
        case .none: compression = COMPRESSION_NONE
        case .lzw: compression = COMPRESSION_LZW
        case .deflate: compression = COMPRESSION_ADOBE_DEFLATE
        case .packbits: compression = COMPRESSION_PACKBITS
        case .jpeg: compression = COMPRESSION_JPEG
        }
        try set16(TIFFTAG_COMPRESSION, compression)
        let ycbcr = compression == COMPRESSION_JPEG && image.layout == .rgb
        try set16(
            TIFFTAG_PHOTOMETRIC,
            image.layout.isGray ? PHOTOMETRIC_MINISBLACK : (ycbcr ? PHOTOMETRIC_YCBCR : PHOTOMETRIC_RGB))
        switch options.tiffCompression {
        case .lzw, .deflate:
            try set16(TIFFTAG_PREDICTOR, depth == .float32 ? PREDICTOR_FLOATINGPOINT : PREDICTOR_HORIZONTAL)
        case .jpeg:
            try set16(TIFFTAG_JPEGQUALITY, Int32(options.quality(for: .tiff)))
            if ycbcr { try set16(TIFFTAG_JPEGCOLORMODE, JPEGCOLORMODE_RGB) }
        default:
            break
        }

        let chunkWidth: Int
        let chunkHeight: Int
        if let asked = options.tileSize {
            // A tile past the image holds only padding, and its buffer is allocated whole: no larger than
            // the image's longer side, rounded up to a multiple of 16 (a 65536 tile on a 67x45 image
            // would take 12 GB for 80x80 pixels of content).
            let tile = Swift.min(asked, (Swift.max(image.width, image.height) + 15) / 16 * 16)
            chunkWidth = tile
            chunkHeight = tile
            try set32(TIFFTAG_TILEWIDTH, tile)
            try set32(TIFFTAG_TILELENGTH, tile)
        } else {
            // Strips of about 256 KiB: few enough calls, small enough to stream.
            let rowBytes = image.width * fileChannels * bytesPerSample
            chunkWidth = image.width
            var rows = Swift.max(1, Swift.min(image.height, (256 << 10) / Swift.max(1, rowBytes)))
            if compression == COMPRESSION_JPEG { rows = Swift.max(16, rows / 16 * 16) }
            chunkHeight = Swift.min(rows, image.height)
            try set32(TIFFTAG_ROWSPERSTRIP, chunkHeight)
        }

        let chunkRowBytes = chunkWidth * fileChannels * bytesPerSample
        var raw = [UInt8](repeating: 0, count: chunkRowBytes * chunkHeight)
        let encoder = Samples.encoder(channels: image.channels, fileChannels: fileChannels, depth: depth)
        let tiled = options.tileSize != nil
        var pixels = PixelBuffer(region: .empty, channels: image.channels)
        // Uncompressed strips go to the file as libtiff is given them (in the machine's byte order,
        // unmodified): the scheduler's bands lend theirs instead of being copied out first.
        let lender = tiled || compression != COMPRESSION_NONE ? nil : image.source as? any LendsEncodedRows
        func writeLent(_ strip: Rect) throws -> Bool {
            guard let lender else { return false }
            var written: tmsize_t = -1
            let lent = try lender.lendEncodedRows(strip, with: encoder) { rows, rowBytes in
                guard rowBytes == chunkRowBytes else { return }
                written = TIFFWriteEncodedStrip(
                    tif, TIFFComputeStrip(tif, UInt32(strip.y), 0), UnsafeMutableRawPointer(mutating: rows),
                    tmsize_t(chunkRowBytes * strip.height))
            }
            if lent && written < 0 { throw fail() }
            return lent
        }
        for band in image.extent.tiles(width: image.width, height: chunkHeight) {
            for cell in band.tiles(width: chunkWidth, height: chunkHeight) {
                if try writeLent(cell) { continue }
                try raw.withUnsafeMutableBytes { bytes in
                    guard let base = bytes.baseAddress else { return }
                    if cell.width < chunkWidth || cell.height < chunkHeight {
                        bytes.initializeMemory(as: UInt8.self, repeating: 0)
                    }
                    try image.encode(cell, with: encoder, scratch: &pixels, into: base, rowBytes: chunkRowBytes)
                }
                let size = tiled ? raw.count : chunkRowBytes * cell.height
                let written = raw.withUnsafeMutableBytes { bytes in
                    tiled
                        ? TIFFWriteEncodedTile(
                            tif, TIFFComputeTile(tif, UInt32(cell.x), UInt32(cell.y), 0, 0), bytes.baseAddress,
                            tmsize_t(size))
                        : TIFFWriteEncodedStrip(
                            tif, TIFFComputeStrip(tif, UInt32(cell.y), 0), bytes.baseAddress, tmsize_t(size))
                }
                if written < 0 { throw fail() }
            }
        }
        if TIFFFlush(tif) == 0 { throw fail() }
        closed = true
        tsr_tiff_close(tiff)
        // libtiff writes EXIF only as a custom directory set field by field: the block is added after.
        if let exif = metadata.exif {
            do {
                try TIFFDirectory.embed(exif: exif, inTIFF: path)
            } catch {
                throw ImageError(message: "cannot add EXIF to the TIFF file: \(error.localizedDescription)")
            }
        }
    }
}
