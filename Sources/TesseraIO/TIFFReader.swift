import CImageShims
import CTIFF
import Synchronization
import TesseraCore

/// A TIFF file open for reading regions: a region decodes only the strips or tiles it touches.
///
/// Gray, gray+alpha, RGB and RGBA at 8, 12, 16 or 32 bits (unsigned) or 32 or 64 bit float, in strips or
/// tiles, contiguous or in separate planes, and 16-bit CMYK, with any compression libtiff has (none, LZW,
/// deflate, JPEG, PackBits, ...), are read directly: 12-bit samples are scaled to 16 bits and 32-bit ones
/// to Float32 0...1, each by the largest value its bits hold, as 8- and 16-bit samples are. Other kinds
/// (palette, bilevel, 8-bit CMYK, YCbCr without JPEG) go through libtiff's RGBA interface, which decodes
/// the whole image at 8 bits. Premultiplied (associated) alpha is divided out.
///
/// Reads may come from several threads; libtiff handles are not thread-safe, so the handle is used by
/// one reader at a time.
package final class TIFFReader: PixelSource, Sendable {
    package let path: String
    package let info: ImageInfo

    private enum Sample: Sendable { case uint8, uint16, float32, float64 }
    /// How a chunk's file samples become the ``Sample`` kept: as they are, or 12-bit samples (packed,
    /// most significant bit first) scaled to 16 bits, or 32-bit ones to Float32.
    private enum Stored: Sendable { case asIs, twelveBit, uint32 }
    private struct Geometry: Sendable {
        var width: Int
        var height: Int
        var samplesPerPixel: Int
        var sample: Sample
        var bytesPerSample: Int
        var isTiled: Bool
        /// Tile size, or full width and rows per strip.
        var chunkWidth: Int
        var chunkHeight: Int
        var minIsWhite: Bool
        var premultiplied: Bool
        /// Decode through libtiff's 8-bit RGBA interface.
        var viaRGBA: Bool
        var stored: Stored = .asIs
        /// Each sample in a plane of its own (PlanarConfiguration 2): a chunk is read from every plane and
        /// interleaved.
        var separatePlanes = false
        /// CMYK ink amounts (0 no ink), turned into RGB as (1 - c)(1 - k), as libtiff and Pillow do.
        var cmyk = false

        /// Bytes of one decoded chunk as kept: its pixels interleaved, in ``sample``'s size.
        var keptChunkBytes: Int { saturatingProduct(chunkWidth, chunkHeight, samplesPerPixel, bytesPerSample) }
        /// Whether a chunk is read other than by one libtiff call into the kept buffer.
        var convertsChunks: Bool { stored != .asIs || separatePlanes }
    }

    /// The libtiff handle and the chunks it decoded last. Requests smaller than a strip (a writer's
    /// bands, a scheduler's tiles) ask for the same strips many times: each is decoded once while it is
    /// recent. Decoded chunks are immutable arrays, so converting them to floats happens outside the
    /// lock, on as many threads as ask.
    private final class Handle {
        let tiff: UnsafeMutablePointer<tsr_tiff>
        /// The chunks kept decoded, each with the stamp of its last use.
        var recent: [UInt32: (bytes: [UInt8], stamp: Int)] = [:]
        var recentBytes = 0
        /// Uses in order, oldest first from `usesStart`; a use is stale when its chunk has been used
        /// since. Lookups and evictions stay constant-time when a file has tens of thousands of tiny
        /// tiles (a 16x5-pixel tiling kept 50,000 chunks in 16 MB, and a list search made decoding
        /// quadratic).
        var uses: [(chunk: UInt32, stamp: Int)] = []
        var usesStart = 0
        var clock = 0

        func use(_ chunk: UInt32) {
            clock += 1
            recent[chunk]?.stamp = clock
            uses.append((chunk, clock))
            if uses.count - usesStart > 2 * recent.count + 1024 {
                // Mostly stale uses (a few chunks used over and over): keep one per chunk kept.
                uses = recent.map { ($0.key, $0.value.stamp) }.sorted { $0.stamp < $1.stamp }
                usesStart = 0
            }
        }

        /// Evicts the least recently used chunk, keeping its array as the spare.
        func evictOldest() {
            while usesStart < uses.count {
                let use = uses[usesStart]
                usesStart += 1
                if let entry = recent[use.chunk], entry.stamp == use.stamp {
                    recent[use.chunk] = nil
                    recentBytes -= entry.bytes.count
                    spare = entry.bytes
                    break
                }
            }
            if usesStart > 1024, usesStart * 2 > uses.count {
                uses.removeFirst(usesStart)
                usesStart = 0
            }
        }
        /// An evicted chunk's array, decoded into next (a copy is made if a reader still holds it).
        var spare: [UInt8] = []

        init(tiff: UnsafeMutablePointer<tsr_tiff>) { self.tiff = tiff }
    }

    /// Decoded chunks kept, at least four whatever their size: the strips under one row of tiles.
    package static let recentChunkBytes = 16 << 20

    /// The bytes of decoded chunks kept: ``recentChunkBytes``, or, for a tiled file, one row of tiles and
    /// one more if that is larger. The scheduler's cells under a blur's margins are a quarter of a tile
    /// tall, so a row of tiles is read by four rows of cells, one across the whole width after another: a
    /// 20000-pixel-wide file keeps its 79 tiles (15 MB as 8-bit RGB), each decoded once.
    private static func keptBytes(_ g: Geometry, chunkBytes: Int) -> Int {
        guard g.isTiled else { return recentChunkBytes }
        return Swift.max(
            recentChunkBytes, saturatingProduct((g.width + g.chunkWidth - 1) / g.chunkWidth + 1, chunkBytes))
    }

    /// How many chunks are kept decoded: ``keptBytes(_:chunkBytes:)`` of them, at least four, at most all.
    private static func keptChunks(_ g: Geometry, chunkBytes: Int, count: Int) -> Int {
        Swift.max(1, Swift.min(count, 4), Swift.min(count, keptBytes(g, chunkBytes: chunkBytes) / chunkBytes))
    }

    private let geometry: Geometry
    /// The damage read past (``DecodeOptions/failOn``) and where it is reported.
    private let options: DecodeOptions
    private let handle: Locked<Handle?>
    private let chunks = Atomic<Int>(0)
    private let rgbaImage: DecodeOnceSource?

    /// Opens `path` and reads its first image's header.
    package init(path: String, options: DecodeOptions = DecodeOptions()) throws {
        var error = ShimError()
        // "m": no memory mapping. A mapped file counts as resident as it is read, so a 1.2 GB TIFF
        // streamed through a graph would look (and, under pressure, act) like 1.2 GB of memory.
        guard let tiff = tsr_tiff_open(path, "rm", &error.buffer, ShimError.capacity) else {
            throw ImageError(path: path, message: "TIFF: " + Self.withoutFileName(error.message, path: path))
        }
        do {
            var (geometry, info) = try Self.readHeader(tiff, path: path)
            var metadata = tsr_metadata()
            tsr_tiff_get_metadata(tiff, &metadata)
            info.metadata = ImageMetadata(metadata)
            info.metadata.exif = TIFFDirectory.exifBlock(ofTIFF: path)
            try options.checkSize(width: geometry.width, height: geometry.height, path: path)
            try Self.checkMemory(tiff, geometry: geometry, layout: info.layout, path: path, options: options)
            try Self.checkWarnings(tiff, path: path, options: options)
            self.geometry = geometry
            self.info = info
            self.options = options
        } catch {
            tsr_tiff_close(tiff)
            throw error
        }
        self.path = path
        self.handle = Locked(Handle(tiff: tiff))
        if geometry.viaRGBA {
            // Captures the handle mutex weakly through a box so the source does not keep the reader alive.
            let box = WeakReader()
            rgbaImage = DecodeOnceSource { [box] in
                guard let reader = box.reader else { throw ImageError(path: path, message: "TIFF: reader closed") }
                return try reader.decodeRGBA()
            }
            box.reader = self
        } else {
            rgbaImage = nil
        }
    }

    deinit {
        handle.withLock { handle in
            if let tiff = handle?.tiff { tsr_tiff_close(tiff) }
            handle = nil
        }
    }

    /// The image this reader produces.
    package var image: Image {
        Image(width: info.width, height: info.height, layout: info.layout, depth: info.depth, source: self)
    }

    /// How many strips or tiles have been decoded so far.
    package var chunksDecoded: Int { chunks.load(ordering: .relaxed) }

    package var preferredTileSize: (width: Int, height: Int)? {
        geometry.viaRGBA ? nil : (geometry.chunkWidth, geometry.chunkHeight)
    }

    /// The recent chunks ``decodedChunk(x:y:rowBytes:path:handle:)`` keeps: at least four, and as many
    /// as ``keptBytes(_:chunkBytes:)`` holds.
    package var keptChunkCount: Int {
        let g = geometry
        guard !g.viaRGBA else { return 0 }
        let chunkBytes = Swift.max(1, g.keptChunkBytes)
        return Swift.max(4, Self.keptBytes(g, chunkBytes: chunkBytes) / chunkBytes)
    }

    /// Scaled file samples, except where the reader computes: min-is-white gray inverted, premultiplied
    /// alpha divided out.
    package var givesFileSamples: Bool {
        let g = geometry
        return g.viaRGBA || !(g.minIsWhite || g.premultiplied || g.cmyk || g.stored == .uint32)
    }

    /// The last libtiff error for `tiff` as a message.
    static func lastError(_ tiff: UnsafeMutablePointer<tsr_tiff>, path: String) -> String {
        let text = String(cString: tsr_tiff_last_error(tiff))
        return "TIFF: " + withoutFileName(text.isEmpty ? "unknown error" : text, path: path)
    }

    /// libtiff's first warning about the file (an unknown tag, a value it corrected) is damage of level
    /// warning, as libvips counts it: read past with one line below `failOn: warning`, refused at it.
    static func checkWarnings(_ tiff: UnsafeMutablePointer<tsr_tiff>, path: String, options: DecodeOptions) throws {
        guard tsr_tiff_first_warning(tiff).pointee != 0 else { return }
        let message = "TIFF: " + withoutFileName(String(cString: tsr_tiff_first_warning(tiff)), path: path)
        guard options.readsPast(.warning, message: message, path: path) else {
            throw ImageError(path: path, message: message)
        }
    }

    /// libtiff names the file in some messages; ours already do.
    static func withoutFileName(_ message: String, path: String) -> String {
        message.hasPrefix(path + ": ") ? String(message.dropFirst(path.count + 2)) : message
    }

    // MARK: Header

    /// Refuses strips or tiles whose stored bytes cannot decode to their size, for the methods whose
    /// expansion has a bound: a crafted header cannot promise gigabytes from a few bytes. (LZW, JPEG and
    /// the rest are left to the memory limit; libtiff fails when their data runs out.)
    private static func checkCompressionRatio(
        _ tiff: UnsafeMutablePointer<tsr_tiff>, geometry g: Geometry, chunkBytes: Int, count: Int, path: String
    ) throws {
        var compression: UInt16 = 0
        _ = tsr_tiff_get_u16(tiff, UInt32(TIFFTAG_COMPRESSION), &compression)
        let ratio: Int
        let bound: String
        switch Int32(compression) {
        case COMPRESSION_NONE: (ratio, bound) = (1, "uncompressed data takes a byte per byte")
        case COMPRESSION_ADOBE_DEFLATE, COMPRESSION_DEFLATE:
            (ratio, bound) = (PNGCodec.deflateMaxRatio, "deflate expands at most \(PNGCodec.deflateMaxRatio) times")
        case COMPRESSION_PACKBITS: (ratio, bound) = (64, "PackBits expands at most 64 times")
        default: return
        }
        let tif = tiff.pointee.tif
        let scanline = Int(clamping: TIFFScanlineSize64(tif))
        for index in 0..<count {
            let stored = Int(clamping: TIFFGetStrileByteCount(tif, UInt32(index)))
            let rows = Swift.min(g.chunkHeight, g.height - index * g.chunkHeight)
            let decoded = g.isTiled ? chunkBytes : saturatingProduct(Swift.max(rows, 0), scanline)
            if saturatingProduct(stored, ratio) < decoded {
                throw ImageError(
                    path: path,
                    message:
                        "TIFF: \(g.isTiled ? "tile" : "strip") \(index) holds \(stored) bytes, too few for its \(DecodeOptions.describe(bytes: decoded)) (\(bound)); the file is truncated or crafted"
                )
            }
        }
    }

    /// Writers pad a small image to one tile of their usual size (libvips 128, libtiff's tools 256), so a
    /// tile may pass the image's edge by this much; more only makes a crafted file's buffers huge.
    static let tileSlack = 1024

    /// Refuses a file whose strips or tiles need more than `options.maxMemory` at once, or whose tiles
    /// are far larger than its image, before any chunk is allocated.
    ///
    /// Memory counted: the chunks kept decoded (at least four, ``recentChunkBytes`` beyond), or, for the
    /// kinds read through the RGBA interface, the whole image as 8-bit RGBA and as Float32.
    private static func checkMemory(
        _ tiff: UnsafeMutablePointer<tsr_tiff>, geometry g: Geometry, layout: PixelLayout, path: String,
        options: DecodeOptions
    ) throws {
        let tif = tiff.pointee.tif
        if g.isTiled {
            func fits(_ tile: Int, _ side: Int) -> Bool { tile <= Swift.max((side + 15) / 16 * 16, tileSlack) }
            guard fits(g.chunkWidth, g.width), fits(g.chunkHeight, g.height) else {
                throw ImageError(
                    path: path,
                    message:
                        "TIFF: tiles of \(g.chunkWidth)x\(g.chunkHeight) are far larger than the \(g.width)x\(g.height) image (a tile may pass its edge by padding to a multiple of 16, or up to \(tileSlack) pixels); the file is damaged or crafted"
                )
            }
        }
        let bytes: Int
        let what: String
        if g.viaRGBA {
            bytes = saturatingProduct(g.width, g.height, 4 + 4 * layout.channels)
            what = "decoding \(g.width)x\(g.height) pixels whole"
        } else {
            let fileChunkBytes = Int(clamping: g.isTiled ? TIFFTileSize64(tif) : TIFFStripSize64(tif))
            guard fileChunkBytes > 0 else {
                throw ImageError(path: path, message: TIFFReader.lastError(tiff, path: path))
            }
            try checkCompressionRatio(
                tiff, geometry: g, chunkBytes: fileChunkBytes,
                count: Int(g.isTiled ? TIFFNumberOfTiles(tif) : TIFFNumberOfStrips(tif)), path: path)
            let (chunkBytes, count) = chunkSizes(tif, g)
            let kept = keptChunks(g, chunkBytes: chunkBytes, count: count)
            bytes = saturatingProduct(chunkBytes, kept)
            let chunk =
                g.isTiled
                ? "tile\(kept > 1 ? "s" : "") of \(g.chunkWidth)x\(g.chunkHeight) pixels"
                : "strip\(kept > 1 ? "s" : "") of \(g.chunkHeight) rows"
            what = kept > 1 ? "keeping \(kept) \(chunk) decoded" : "decoding one \(chunk)"
        }
        try options.checkMemory(bytes, format: "TIFF", what: what, path: path)
    }

    /// The bytes of one chunk as kept (``Geometry/keptChunkBytes`` where chunks are converted, else
    /// libtiff's size) and how many chunks the image has, a chunk of each plane counted once.
    private static func chunkSizes(_ tif: OpaquePointer?, _ g: Geometry) -> (bytes: Int, count: Int) {
        let fileBytes = Int(clamping: g.isTiled ? TIFFTileSize64(tif) : TIFFStripSize64(tif))
        let count = Int(g.isTiled ? TIFFNumberOfTiles(tif) : TIFFNumberOfStrips(tif))
        return (
            g.convertsChunks && fileBytes > 0 ? g.keptChunkBytes : fileBytes,
            count / (g.separatePlanes ? Swift.max(1, g.samplesPerPixel) : 1)
        )
    }

    private static func readHeader(_ tiff: UnsafeMutablePointer<tsr_tiff>, path: String) throws -> (Geometry, ImageInfo)
    {
        func u16(_ tag: Int32) -> UInt16? {
            var value: UInt16 = 0
            return tsr_tiff_get_u16(tiff, UInt32(tag), &value) != 0 ? value : nil
        }
        func u32(_ tag: Int32) -> UInt32? {
            var value: UInt32 = 0
            return tsr_tiff_get_u32(tiff, UInt32(tag), &value) != 0 ? value : nil
        }
        let width = Int(u32(TIFFTAG_IMAGEWIDTH) ?? 0)
        let height = Int(u32(TIFFTAG_IMAGELENGTH) ?? 0)
        let bits = Int(u16(TIFFTAG_BITSPERSAMPLE) ?? 1)
        let spp = Int(u16(TIFFTAG_SAMPLESPERPIXEL) ?? 1)
        let format = Int32(u16(TIFFTAG_SAMPLEFORMAT) ?? UInt16(SAMPLEFORMAT_UINT))
        let photometric = Int32(u16(TIFFTAG_PHOTOMETRIC) ?? UInt16(PHOTOMETRIC_MINISBLACK))
        let planar = Int32(u16(TIFFTAG_PLANARCONFIG) ?? UInt16(PLANARCONFIG_CONTIG))
        let compression = Int32(u16(TIFFTAG_COMPRESSION) ?? UInt16(COMPRESSION_NONE))
        // An orientation out of the tag's range is read as 1, as libtiff does.
        let orientation = u16(TIFFTAG_ORIENTATION).map(Int.init).flatMap { (1...8).contains($0) ? $0 : nil } ?? 1
        var extraCount: UInt16 = 0
        var extraValues: UnsafePointer<UInt16>?
        _ = tsr_tiff_get_extrasamples(tiff, &extraCount, &extraValues)
        let firstExtra = extraCount > 0 ? Int32(extraValues?[0] ?? 0) : -1
        let isTiled = TIFFIsTiled(tiff.pointee.tif) != 0

        guard width > 0, height > 0 else {
            throw ImageError(path: path, message: "TIFF: the header gives an empty image (\(width)x\(height))")
        }
        if compression == COMPRESSION_JPEG && photometric == PHOTOMETRIC_YCBCR {
            // Let libjpeg convert YCbCr to RGB, so the data reads as plain RGB.
            _ = tsr_tiff_set_u16(tiff, UInt32(TIFFTAG_JPEGCOLORMODE), UInt16(JPEGCOLORMODE_RGB))
        }

        let sample: Sample?
        var stored = Stored.asIs
        switch (format, bits) {
        case (SAMPLEFORMAT_UINT, 8): sample = .uint8
        case (SAMPLEFORMAT_UINT, 12): (sample, stored) = (.uint16, .twelveBit)
        case (SAMPLEFORMAT_UINT, 16): sample = .uint16
        case (SAMPLEFORMAT_UINT, 32): (sample, stored) = (.float32, .uint32)
        case (SAMPLEFORMAT_IEEEFP, 32): sample = .float32
        case (SAMPLEFORMAT_IEEEFP, 64): sample = .float64
        default: sample = nil
        }
        let inks = Int32(u16(TIFFTAG_INKSET) ?? UInt16(INKSET_CMYK))
        // 8-bit CMYK goes through libtiff's RGBA interface, which takes no other depth.
        let cmyk = photometric == PHOTOMETRIC_SEPARATED && inks == INKSET_CMYK && spp == 4 && bits == 16
        let colorChannels: Int
        switch photometric {
        case PHOTOMETRIC_MINISBLACK, PHOTOMETRIC_MINISWHITE: colorChannels = 1
        case PHOTOMETRIC_RGB: colorChannels = 3
        case PHOTOMETRIC_YCBCR where compression == COMPRESSION_JPEG: colorChannels = 3
        case PHOTOMETRIC_SEPARATED where cmyk: colorChannels = 4
        default: colorChannels = 0
        }
        let hasAlpha = colorChannels > 0 && spp > colorChannels
        let separatePlanes = planar == PLANARCONFIG_SEPARATE && spp > 1
        let direct = sample != nil && colorChannels > 0 && spp >= colorChannels && !(cmyk && separatePlanes)

        var layout: PixelLayout
        switch (colorChannels, hasAlpha) {
        case (1, false): layout = .gray
        case (1, true): layout = .grayAlpha
        case (3, false), (4, _): layout = .rgb
        default: layout = .rgba
        }
        if !direct {
            var reason = ShimError()
            if TIFFRGBAImageOK(tiff.pointee.tif, &reason.buffer) == 0 {
                throw ImageError(path: path, message: "TIFF: unsupported kind of image (\(reason.message))")
            }
            let gray = photometric == PHOTOMETRIC_MINISBLACK || photometric == PHOTOMETRIC_MINISWHITE
            let alpha = extraCount > 0 || photometric == PHOTOMETRIC_SEPARATED && spp > 4
            layout = gray ? (alpha ? .grayAlpha : .gray) : (alpha ? .rgba : .rgb)
        }

        var chunkWidth = width
        var chunkHeight = height
        if isTiled {
            chunkWidth = Int(u32(TIFFTAG_TILEWIDTH) ?? 0)
            chunkHeight = Int(u32(TIFFTAG_TILELENGTH) ?? 0)
            guard chunkWidth > 0, chunkHeight > 0 else {
                throw ImageError(path: path, message: "TIFF: tiled, but the tile size is missing")
            }
        } else {
            chunkHeight = Swift.max(1, Swift.min(height, Int(u32(TIFFTAG_ROWSPERSTRIP) ?? UInt32(height))))
        }

        let compressionNames: [Int32: String] = [
            COMPRESSION_NONE: "none", COMPRESSION_LZW: "LZW", COMPRESSION_ADOBE_DEFLATE: "deflate",
            COMPRESSION_DEFLATE: "deflate", COMPRESSION_JPEG: "JPEG", COMPRESSION_PACKBITS: "PackBits",
            COMPRESSION_CCITTFAX4: "CCITT G4", COMPRESSION_CCITTFAX3: "CCITT G3", COMPRESSION_LZMA: "LZMA",
            COMPRESSION_ZSTD: "Zstandard", COMPRESSION_WEBP: "WebP",
        ]
        var details = ["compression \(compressionNames[compression] ?? "\(compression)")"]
        details.append(isTiled ? "tiles \(chunkWidth)x\(chunkHeight)" : "strips of \(chunkHeight) rows")
        if firstExtra == EXTRASAMPLE_ASSOCALPHA { details.append("premultiplied alpha") }
        if direct && separatePlanes { details.append("separate planes") }
        if direct && cmyk { details.append("CMYK, converted to RGB") }
        if direct && stored == .twelveBit { details.append("12-bit, scaled to 16") }
        if direct && stored == .uint32 { details.append("32-bit integer, scaled to float 0...1") }
        if !direct { details.append("decoded through libtiff's RGBA interface (8-bit)") }

        var geometry = Geometry(
            width: width, height: height, samplesPerPixel: spp, sample: sample ?? .uint8,
            bytesPerSample: stored == .twelveBit ? 2 : Swift.max(1, bits / 8), isTiled: isTiled,
            chunkWidth: chunkWidth, chunkHeight: chunkHeight, minIsWhite: photometric == PHOTOMETRIC_MINISWHITE,
            premultiplied: firstExtra == EXTRASAMPLE_ASSOCALPHA, viaRGBA: !direct)
        if direct {
            geometry.stored = stored
            geometry.separatePlanes = separatePlanes
            geometry.cmyk = cmyk
        }
        var (xDPI, yDPI) = (0.0, 0.0)
        _ = tsr_tiff_get_resolution(tiff, &xDPI, &yDPI)
        let info = ImageInfo(
            format: .tiff, width: width, height: height, fullWidth: width, fullHeight: height, shrink: 1,
            layout: layout, bitsPerSample: direct ? bits : 8,
            isFloat: direct && (format == SAMPLEFORMAT_IEEEFP || stored == .uint32), orientation: orientation,
            orientationApplied: false,
            details: details, fileResolution: ImageInfo.resolution(xDPI, yDPI))
        return (geometry, info)
    }

    // MARK: Pixels

    package func render(into buffer: inout PixelBuffer) throws {
        if let rgbaImage {
            try rgbaImage.render(into: &buffer)
            return
        }
        let g = geometry
        let region = buffer.region
        let cells = region.gridCells(width: g.chunkWidth, height: g.chunkHeight)
        let chunkRowBytes = g.chunkWidth * g.samplesPerPixel * g.bytesPerSample
        // CMYK's four inks are decoded as RGBA, and made RGB by finishRow.
        let fileChannels = g.cmyk ? 4 : info.layout.fileChannels
        let scale: Float
        switch g.sample {
        case .uint8: scale = 1 / 255
        case .uint16: scale = 1 / 65535
        case .float32, .float64: scale = 1
        }
        let path = self.path
        let rowLength = buffer.rowLength
        let channels = buffer.channels
        let decoded = try decodedChunks(cells, rowBytes: chunkRowBytes, path: path)
        for (cell, raw) in zip(cells, decoded) {
            let chunkX = cell.x / g.chunkWidth * g.chunkWidth
            let chunkY = cell.y / g.chunkHeight * g.chunkHeight
            let firstIndex = buffer.index(x: cell.x, y: cell.y)
            raw.withUnsafeBytes { bytes in
                buffer.samples.withUnsafeMutableBufferPointer { samples in
                    guard let base = bytes.baseAddress, let target = samples.baseAddress else { return }
                    for row in 0..<cell.height {
                        let offset =
                            (cell.y + row - chunkY) * chunkRowBytes
                            + (cell.x - chunkX) * g.samplesPerPixel * g.bytesPerSample
                        let from = base + offset
                        let to = target + firstIndex + row * rowLength
                        func decode<T: FileSample>(_: T.Type) {
                            Samples.decode(
                                from.assumingMemoryBound(to: T.self), fileChannels: fileChannels,
                                stride: g.samplesPerPixel, count: cell.width, scale: scale, into: to)
                        }
                        switch g.sample {
                        case .uint8: decode(UInt8.self)
                        case .uint16: decode(UInt16.self)
                        case .float32: decode(Float.self)
                        case .float64: decode(Double.self)
                        }
                        Self.finishRow(to, count: cell.width, channels: channels, geometry: g)
                    }
                }
            }
        }
    }

    /// The format of the file's samples when they are the image's as decoded: no extra samples, no
    /// inversion or premultiplication to undo, and a sample type images have.
    private var copyableFormat: SampleFormat? {
        let g = geometry
        guard rgbaImage == nil, givesFileSamples, g.samplesPerPixel == info.layout.fileChannels else { return nil }
        let depth: SampleDepth
        switch g.sample {
        case .uint8: depth = .uint8
        case .uint16: depth = .uint16
        case .float32: depth = .float32
        case .float64: return nil
        }
        return SampleFormat(depth: depth, bands: g.samplesPerPixel)
    }

    /// Copies the file's bytes when the encoder writes them as stored (a TIFF written back as read):
    /// no conversion to Float32 and back.
    package func encode(
        _ region: Rect, with encoder: SampleEncoder, scratch: inout PixelBuffer, into bytes: UnsafeMutableRawPointer,
        rowBytes: Int
    ) throws {
        guard let format = copyableFormat, encoder.packed == format else {
            try encodeRendering(region, with: encoder, scratch: &scratch, into: bytes, rowBytes: rowBytes)
            return
        }
        let g = geometry
        let pixelBytes = format.bytesPerPixel
        let chunkRowBytes = g.chunkWidth * pixelBytes
        let cells = region.gridCells(width: g.chunkWidth, height: g.chunkHeight)
        let decoded = try decodedChunks(cells, rowBytes: chunkRowBytes, path: path)
        for (cell, raw) in zip(cells, decoded) {
            let chunkX = cell.x / g.chunkWidth * g.chunkWidth
            let chunkY = cell.y / g.chunkHeight * g.chunkHeight
            raw.withUnsafeBytes { chunk in
                guard let base = chunk.baseAddress else { return }
                for row in 0..<cell.height {
                    (bytes + (cell.y + row - region.minY) * rowBytes + (cell.x - region.minX) * pixelBytes).copyMemory(
                        from: base + (cell.y + row - chunkY) * chunkRowBytes + (cell.x - chunkX) * pixelBytes,
                        byteCount: cell.width * pixelBytes)
                }
            }
        }
    }

    /// The decoded bytes of the strip or tile whose top-left pixel is (x, y): from the recent chunks,
    /// or decoded now under the handle's lock.
    private func decodedChunk(x: Int, y: Int, rowBytes: Int, path: String) throws -> [UInt8] {
        try decodedChunks([Rect(x: x, y: y, width: 1, height: 1)], rowBytes: rowBytes, path: path)[0]
    }

    /// The decoded bytes of the chunks holding the top-left pixels of `cells`, in order, under one hold of
    /// the handle's lock: a request over many small strips (libtiff chops a large uncompressed strip into
    /// strips of a row or a few) takes the lock once, not once a row.
    private func decodedChunks(_ cells: [Rect], rowBytes: Int, path: String) throws -> [[UInt8]] {
        try handle.withLock { handle in
            guard let handle else { throw ImageError(path: path, message: "TIFF: reader closed") }
            return try cells.map { cell in
                try decodedChunk(
                    x: cell.x / geometry.chunkWidth * geometry.chunkWidth,
                    y: cell.y / geometry.chunkHeight * geometry.chunkHeight, rowBytes: rowBytes, path: path,
                    handle: handle)
            }
        }
    }

    /// ``decodedChunk(x:y:rowBytes:path:)`` with the handle's lock held.
    private func decodedChunk(x: Int, y: Int, rowBytes: Int, path: String, handle: Handle) throws -> [UInt8] {
        let g = geometry
        do {
            let tiff = handle.tiff
            let tif = tiff.pointee.tif
            let chunk =
                g.isTiled ? TIFFComputeTile(tif, UInt32(x), UInt32(y), 0, 0) : TIFFComputeStrip(tif, UInt32(y), 0)
            if let entry = handle.recent[chunk] {
                handle.use(chunk)
                return entry.bytes
            }
            let chunkBytes = Self.chunkSizes(tif, g).bytes
            let size = Swift.max(chunkBytes, rowBytes * g.chunkHeight)
            var raw = handle.spare
            handle.spare = []
            if raw.count != size {
                // Not zero-filled: filling would touch every page of a buffer a crafted header made huge,
                // while libtiff writes only what the file's data decodes to, and fails when it runs out.
                raw = [UInt8](unsafeUninitializedCapacity: size) { _, count in count = size }
            }
            let status = raw.withUnsafeMutableBytes { bytes -> Int in
                if g.convertsChunks { return Self.readConverting(tif, x: x, y: y, into: bytes, geometry: g) }
                return Int(
                    g.isTiled
                        ? TIFFReadEncodedTile(tif, chunk, bytes.baseAddress, -1)
                        : TIFFReadEncodedStrip(tif, chunk, bytes.baseAddress, -1))
            }
            // The rows of this chunk inside the image must all have been written, since they are read.
            let rowsInChunk = Swift.min(g.chunkHeight, g.height - y)
            let needed = g.isTiled ? chunkBytes : rowsInChunk * rowBytes
            if status < needed {
                let message =
                    status < 0
                    ? TIFFReader.lastError(tiff, path: path)
                    : "TIFF: chunk \(chunk) decoded to \(status) bytes, fewer than it holds"
                // Read past as the policy says: what the data did not reach is transparent black.
                guard options.readsPast(.truncated, message: message, path: path) else {
                    throw ImageError(path: path, message: message)
                }
                let from = Swift.max(0, status)
                raw.withUnsafeMutableBytes { bytes in
                    guard let base = bytes.baseAddress, from < bytes.count else { return }
                    (base + from).initializeMemory(as: UInt8.self, repeating: 0, count: bytes.count - from)
                }
            }
            try Self.checkWarnings(tiff, path: path, options: options)
            chunks.add(1, ordering: .relaxed)
            handle.recent[chunk] = (raw, 0)
            handle.use(chunk)
            handle.recentBytes += raw.count
            let kept = Self.keptBytes(g, chunkBytes: raw.count)
            while handle.recent.count > 4, handle.recentBytes > kept {
                handle.evictOldest()
            }
            return raw
        }
    }

    /// Inverts min-is-white gray, turns CMYK inks into RGB and divides premultiplied alpha out of a
    /// decoded row.
    private static func finishRow(_ row: UnsafeMutablePointer<Float>, count: Int, channels: Int, geometry g: Geometry) {
        if g.cmyk {
            for i in 0..<count {
                let p = row + 4 * i
                let white = 1 - p[3]
                p[0] = (1 - p[0]) * white
                p[1] = (1 - p[1]) * white
                p[2] = (1 - p[2]) * white
                p[3] = 1
            }
        }
        if g.minIsWhite {
            for i in 0..<count {
                for c in 0..<Swift.min(3, channels) { row[i * channels + c] = 1 - row[i * channels + c] }
            }
        }
        if g.premultiplied && channels == 4 {
            let clamps = g.sample == .uint8 || g.sample == .uint16
            for i in 0..<count {
                let p = row + 4 * i
                let alpha = p[3]
                if alpha > 0 {
                    for c in 0..<3 {
                        let value = p[c] / alpha
                        p[c] = clamps ? Swift.min(value, 1) : value
                    }
                } else {
                    p[0] = 0
                    p[1] = 0
                    p[2] = 0
                }
            }
        }
    }

    /// Reads the chunk whose top-left pixel is (x, y) as kept, for the geometries libtiff does not decode
    /// straight into it: each plane's chunk read and interleaved, 12-bit samples scaled to 16 bits and
    /// 32-bit ones to Float32 0...1. Returns the bytes of the kept chunk whose rows every plane decoded
    /// whole, or -1 when a plane fails at once.
    private static func readConverting(
        _ tif: OpaquePointer?, x: Int, y: Int, into kept: UnsafeMutableRawBufferPointer, geometry g: Geometry
    ) -> Int {
        let planes = g.separatePlanes ? g.samplesPerPixel : 1
        let samples = g.separatePlanes ? 1 : g.samplesPerPixel
        let fileBytes = Int(clamping: g.isTiled ? TIFFTileSize64(tif) : TIFFStripSize64(tif))
        let fileRowBytes = Int(clamping: g.isTiled ? TIFFTileRowSize64(tif) : TIFFScanlineSize64(tif))
        guard fileBytes > 0, fileRowBytes > 0, let target = kept.baseAddress else { return -1 }
        let rows = g.isTiled ? g.chunkHeight : Swift.min(g.chunkHeight, g.height - y)
        let keptRowBytes = g.chunkWidth * g.samplesPerPixel * g.bytesPerSample
        var file = [UInt8](unsafeUninitializedCapacity: fileBytes) { _, count in count = fileBytes }
        var rowsDecoded = rows
        for plane in 0..<planes {
            let got = file.withUnsafeMutableBytes { bytes -> Int in
                if g.isTiled {
                    let tile = TIFFComputeTile(tif, UInt32(x), UInt32(y), 0, UInt16(plane))
                    return Int(TIFFReadEncodedTile(tif, tile, bytes.baseAddress, -1))
                }
                let strip = TIFFComputeStrip(tif, UInt32(y), UInt16(plane))
                return Int(TIFFReadEncodedStrip(tif, strip, bytes.baseAddress, -1))
            }
            if got < 0 { return -1 }
            rowsDecoded = Swift.min(rowsDecoded, got / fileRowBytes)
            file.withUnsafeBytes { bytes in
                guard let source = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
                for row in 0..<Swift.min(rows, got / fileRowBytes) {
                    let from = source + row * fileRowBytes
                    let to = target + row * keptRowBytes
                    for column in 0..<g.chunkWidth {
                        for s in 0..<samples {
                            let index = column * samples + s
                            let at = (column * g.samplesPerPixel + plane + s) * g.bytesPerSample
                            switch g.stored {
                            case .twelveBit:
                                // Two samples in three bytes, most significant bits first.
                                let o = index * 12 / 8
                                let v =
                                    index % 2 == 0
                                    ? UInt32(from[o]) << 4 | UInt32(from[o + 1]) >> 4
                                    : UInt32(from[o] & 0x0F) << 8 | UInt32(from[o + 1])
                                to.storeBytes(of: UInt16((v * 65535 + 2047) / 4095), toByteOffset: at, as: UInt16.self)
                            case .uint32:
                                let v = UnsafeRawPointer(from + index * 4).loadUnaligned(as: UInt32.self)
                                to.storeBytes(of: Float(Double(v) / 4_294_967_295), toByteOffset: at, as: Float.self)
                            case .asIs:
                                (to + at).copyMemory(from: from + index * g.bytesPerSample, byteCount: g.bytesPerSample)
                            }
                        }
                    }
                }
            }
        }
        return rowsDecoded == rows ? (g.isTiled ? g.keptChunkBytes : rows * keptRowBytes) : rowsDecoded * keptRowBytes
    }

    /// The whole image through libtiff's RGBA interface, for the kinds read no other way.
    private func decodeRGBA() throws -> PixelBuffer {
        let width = geometry.width
        let height = geometry.height
        let layout = info.layout
        let path = self.path
        return try handle.withLock { handle in
            guard let tiff = handle?.tiff else { throw ImageError(path: path, message: "TIFF: reader closed") }
            var raster = [UInt32](repeating: 0, count: width * height)
            // Asked for in the file's own orientation, libtiff leaves the rows as stored: the orientation is
            // applied once, after, as for every other TIFF (asked for top-left, libtiff mirrored the rows and
            // columns itself, without transposing, and the turn after made a fax of orientation 5 to 8
            // mirrored or turned, and one of 2 to 4 not turned at all).
            let stored = Int32(clamping: info.orientation)
            let status = raster.withUnsafeMutableBufferPointer { pixels in
                TIFFReadRGBAImageOriented(
                    tiff.pointee.tif, UInt32(width), UInt32(height), pixels.baseAddress, stored, 1)
            }
            if status == 0 {
                throw ImageError(path: path, message: TIFFReader.lastError(tiff, path: path))
            }
            try Self.checkWarnings(tiff, path: path, options: options)
            chunks.add(1, ordering: .relaxed)
            var buffer = PixelBuffer(region: Rect(width: width, height: height), channels: layout.channels)
            let scale: Float = 1 / 255
            for (i, abgr) in raster.enumerated() {
                let r = Float(abgr & 0xFF) * scale
                if layout.channels == 1 {
                    buffer.samples[i] = r
                } else {
                    buffer.samples[4 * i] = r
                    buffer.samples[4 * i + 1] = Float(abgr >> 8 & 0xFF) * scale
                    buffer.samples[4 * i + 2] = Float(abgr >> 16 & 0xFF) * scale
                    buffer.samples[4 * i + 3] = layout.hasAlpha ? Float(abgr >> 24) * scale : 1
                    // libtiff's raster is premultiplied, whether the file's alpha is or not.
                    let alpha = buffer.samples[4 * i + 3]
                    if layout.hasAlpha {
                        for c in 0..<3 {
                            buffer.samples[4 * i + c] = alpha > 0 ? Swift.min(buffer.samples[4 * i + c] / alpha, 1) : 0
                        }
                    }
                }
            }
            return buffer
        }
    }
}

/// Lets the RGBA fallback reach its reader without a reference cycle.
private final class WeakReader: @unchecked Sendable {
    weak var reader: TIFFReader?
}
