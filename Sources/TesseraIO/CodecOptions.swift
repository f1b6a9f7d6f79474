#if canImport(Glibc)
    import Glibc
#endif
import CImageShims
import TesseraCore

/// How much damage a decoder reads past before it fails, as libvips' `fail_on`: each level fails on what
/// the levels before it fail on, and more. What is read past is reported once per file
/// (``ImageFile/setWarningHandler(_:)``).
///
/// Damage is of three kinds, from the least: *warnings* (a bad CRC in a PNG's ancillary chunk, a bad ICC
/// marker or stray bytes in a JPEG, a GIF without a color table), *errors* (data the decoder could not
/// decode and got past: a bad Huffman code, a bad CRC in a PNG's image data) and *truncation* (the data
/// ends, or fails, before the image does). Headers that claim more than the file holds or the limits allow
/// fail at every level: they are not damage read past but resources refused.
public enum FailOn: String, Sendable, CaseIterable, ParameterChoice {
    /// Read what can be read: rows after a truncation are transparent black (gray in a JPEG, as libjpeg
    /// fills them), a GIF frame is drawn as far as its data goes. libvips' default.
    case none
    /// Fail when the data ends before the image does; read past damaged data and warnings.
    case truncated
    /// Fail on damaged data and truncation; read past warnings.
    case error
    /// Fail on anything a decoder notices.
    case warning

    /// The shims' TSR_FAIL_ON_* value.
    var shimValue: Int32 {
        switch self {
        case .none: Int32(TSR_FAIL_ON_NONE)
        case .truncated: Int32(TSR_FAIL_ON_TRUNCATED)
        case .error: Int32(TSR_FAIL_ON_ERROR)
        case .warning: Int32(TSR_FAIL_ON_WARNING)
        }
    }

    /// The lowest level that fails on damage of the shims' `kind` (TSR_DAMAGE_*).
    static func failing(kind: Int32) -> FailOn {
        switch kind {
        case Int32(TSR_DAMAGE_TRUNCATED): .truncated
        case Int32(TSR_DAMAGE_ERROR): .error
        default: .warning
        }
    }
}

/// How to decode a file.
///
/// Two limits guard against decompression bombs (a small file whose header claims a huge image): both
/// are checked against the header before any pixel memory is allocated.
public struct DecodeOptions: Sendable {
    /// Files whose header claims more pixels than this are refused before any pixel memory is allocated.
    public var maxPixels: Int = 1 << 30
    /// The most memory, in bytes, that decoding a file may need at once: libpng's rows and a band of
    /// them, libjpeg's whole-image coefficients for a progressive file, a TIFF's strips or tiles, a whole
    /// image where it is decoded whole. A header that needs more is refused before any of it is allocated.
    ///
    /// Unset (0, or nil at `init`), the limit is sized to each file (``memoryLimit(forFileOf:)``): what a
    /// file of its size can plausibly hold, so a 136-byte file cannot take gigabytes. Reads as
    /// ``defaultMaxMemory`` then.
    public var maxMemory: Int {
        get { givenMemory ?? Self.defaultMaxMemory }
        set { givenMemory = newValue > 0 ? newValue : nil }
    }
    /// `maxMemory` as set; nil sizes the limit to the file.
    private var givenMemory: Int?
    /// The damage the decoder fails on; it reads past less, reporting it once per file.
    public var failOn: FailOn = .none
    /// Receives the damage read past, as the file and one line (`JPEG: Corrupt JPEG data: bad Huffman code
    /// (read anyway; --fail-on error refuses it)`), the first of each file only; nil gives it to the handler
    /// set with ``ImageFile/setWarningHandler(_:)``. Called on the thread that decodes.
    public var warnings: (@Sendable (ImageError) -> Void)?
    /// Shared by everything one ``ImageFile/load(path:options:)`` or ``ImageFile/info(path:options:)`` decodes,
    /// so that it warns once.
    var once: DecodeWarnings.Once?
    /// Turns the image upright by its EXIF orientation, as OpenCV `imread` and libvips `autorot` do.
    public var appliesOrientation: Bool = true
    /// GIF: the frame to read, counted from 0, as the animation shows it (earlier frames composited
    /// under it). Other formats read their first image.
    public var frame: Int = 0
    /// Loads the image at 1/shrink of its size, each side rounded up: `ceil(width / shrink)` x
    /// `ceil(height / shrink)`, for shrink 1, 2, 4 or 8 (``shrinkFactors``), as libvips' `jpegload
    /// shrink`. A JPEG decodes at that size with libjpeg's DCT scaling: each 8x8 block through a
    /// reduced inverse DCT (1/8 is the block's mean), so neither the full image nor a full-size row is
    /// ever made. A still WebP is decoded at that size by libwebp's rescaler (an area average of the whole
    /// frame), as libvips' `webpload shrink`. Other formats are decoded whole, row by row, and averaged over shrink x shrink blocks
    /// from the top-left (the last column and row of blocks average the pixels they have; alpha
    /// premultiplied, as `resize` does), so the size is the same whatever the file type. The orientation
    /// applies after the shrink. The limits count the pixels the header claims, and the memory of the
    /// decode as it is done (a JPEG's rows at the shrunk width).
    ///
    /// A DCT-scaled decode is close to, not the same as, a full decode averaged over blocks: on a sharp
    /// photo the mean difference is 0.4 to 0.8/255, the largest 1.7 to 12.5/255 inside the image (4:2:0
    /// chroma is scaled at half resolution) and up to 33/255 in the last row and column, whose partial
    /// blocks the encoder padded. See Docs/HowItWorks.md.
    ///
    /// - Cost: a JPEG at shrink 8 decodes several times faster than at 1 (the entropy decoding stays);
    ///   other formats cost a full decode plus one addition per pixel.
    public var shrink: Int = 1

    /// The shrinks ``shrink`` takes.
    public static let shrinkFactors = [1, 2, 4, 8]

    /// The least memory limit a file gets when ``maxMemory`` is unset, however small the file.
    public static let smallFileMemory = 128 << 20
    /// Bytes of decoding allowed for each byte of a file when ``maxMemory`` is unset: deflate's largest
    /// expansion, about as far as real images compress (a flat screenshot as lossless WebP or PNG).
    public static let memoryPerFileByte = 1032

    /// The memory limit for decoding the file at `path`: ``maxMemory`` when it is set; else
    /// ``smallFileMemory``, or ``memoryPerFileByte`` for each byte of the file where that is more, and at
    /// most ``defaultMaxMemory``. A 136-byte WebP whose header claims 16383x16383 pixels may so take 128
    /// MiB, not 3 GB; a 3 MB photo may take 3 GB.
    public func memoryLimit(forFileOf path: String) -> Int {
        if let givenMemory { return givenMemory }
        return Swift.min(Self.defaultMaxMemory, Self.plausibleMemory(fileBytes: FileSystem.size(of: path)))
    }

    static func plausibleMemory(fileBytes: Int?) -> Int {
        guard let fileBytes else { return defaultMaxMemory }
        return Swift.max(smallFileMemory, saturatingProduct(fileBytes, memoryPerFileByte))
    }

    /// A quarter of the physical memory (1 GiB where it cannot be read).
    public static let defaultMaxMemory: Int = {
        #if canImport(Glibc)
            let pages = sysconf(Int32(_SC_PHYS_PAGES))
            let pageSize = sysconf(Int32(_SC_PAGESIZE))
            if pages > 0, pageSize > 0 { return saturatingProduct(pages, pageSize) / 4 }
        #endif
        return 1 << 30
    }()

    /// `maxMemory` nil (or 0) sizes the memory limit to each file (``memoryLimit(forFileOf:)``).
    public init(
        maxPixels: Int = 1 << 30, maxMemory: Int? = nil, appliesOrientation: Bool = true, shrink: Int = 1,
        failOn: FailOn = .none
    ) {
        self.maxPixels = maxPixels
        self.givenMemory = maxMemory.flatMap { $0 > 0 ? $0 : nil }
        self.appliesOrientation = appliesOrientation
        self.shrink = shrink
        self.failOn = failOn
    }

    /// Refuses a ``shrink`` other than 1, 2, 4 or 8.
    func checkShrink(path: String) throws {
        guard Self.shrinkFactors.contains(shrink) else {
            throw ImageError(path: path, message: "the shrink must be 1, 2, 4 or 8, not \(shrink)")
        }
    }

    func checkSize(width: Int, height: Int, path: String) throws {
        guard width > 0, height > 0 else {
            throw ImageError(path: path, message: "the header gives an empty image (\(width)x\(height))")
        }
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        if overflow || pixels > maxPixels {
            throw ImageError(
                path: path,
                message:
                    "\(width)x\(height) is more than the limit of \(maxPixels) pixels (raise the limit: --max-pixels, or maxPixels in a graph)"
            )
        }
    }

    /// Refuses a decode that needs more than the file's memory limit at once (``memoryLimit(forFileOf:)``).
    /// `format` and `what` start the message: "PNG: decoding 8585283x45 pixels needs 7.8 GiB at once, ...".
    func checkMemory(_ bytes: Int, format: String, what: String, path: String) throws {
        let limit = memoryLimit(forFileOf: path)
        guard bytes > limit else { return }
        let raise = "(raise the limit: --max-memory, or maxMemory in a graph)"
        if givenMemory == nil, limit < Self.defaultMaxMemory, let fileBytes = FileSystem.size(of: path) {
            throw ImageError(
                path: path,
                message:
                    "\(format): \(what) needs \(Self.describe(bytes: bytes)) at once, more than a \(fileBytes)-byte file may take by default (\(Self.describe(bytes: limit))) \(raise)"
            )
        }
        throw ImageError(
            path: path,
            message:
                "\(format): \(what) needs \(Self.describe(bytes: bytes)) at once, more than the limit of \(Self.describe(bytes: limit)) \(raise)"
        )
    }

    /// Bytes in binary units, as `--max-memory` reads them: "512 B", "3.5 MiB", "7.8 GiB".
    package static func describe(bytes: Int) -> String {
        describeBytes(bytes)
    }

    /// Reads a byte count as `--max-memory` and the `load` node take it: a number of bytes, or one with
    /// a binary suffix (`512M`, `2G`, `2GiB`, `1.5g`). Nil when the text is none of these.
    package static func parseBytes(_ text: String) -> Int? {
        var number = text.filter { !$0.isWhitespace }.lowercased()
        for suffix in ["ib", "b"] where number.hasSuffix(suffix) && number.count > suffix.count {
            number.removeLast(suffix.count)
            break
        }
        let powers: [Character: Double] = ["k": 0x400, "m": 0x10_0000, "g": 0x4000_0000, "t": 0x100_0000_0000]
        var scale: Double = 1
        if let last = number.last, let power = powers[last] {
            scale = power
            number.removeLast()
        }
        guard let value = Double(number), value.isFinite, value > 0 else { return nil }
        let bytes = value * scale
        return bytes < 0x1p63 ? Int(bytes) : nil
    }
}

/// Compression of a TIFF file.
public enum TIFFCompression: String, Sendable, CaseIterable {
    case none
    case lzw
    case deflate
    case packbits
    case jpeg
}

/// How to encode a file. Options that do not apply to the format being written are ignored.
public struct EncodeOptions: Sendable {
    /// Sample type to write; nil keeps the image's (reduced to what the format holds: JPEG is 8-bit,
    /// PNG 8 or 16).
    public var depth: SampleDepth?
    /// JPEG, lossy WebP, HEIC and AVIF quality, 1...100; nil for each format's default
    /// (``quality(for:)``).
    public var quality: Int?

    /// The quality `format` is written at: ``quality``, or libvips' default for the format. JPEG, WebP
    /// and JPEG in TIFF take 75, as libjpeg, libvips and Pillow (4:2:0 chroma below 90, a file a third
    /// the size of 90's for photos, encoded faster); HEIC and AVIF take 50, as libvips' heifsave (at 75,
    /// x265 took twice vips' time for a file 2.6 times the size).
    public func quality(for format: ImageFormat) -> Int {
        quality ?? (format == .heic || format == .avif ? 50 : 75)
    }
    /// PNG zlib level, 0 (none, fastest) ... 9 (smallest).
    /// 3 by default, with libpng's adaptive filters: on photos smaller than libvips' default (level 6,
    /// no filter) and a third faster, within 8% of level 6 with filters (Scripts/compare-peers.sh daily).
    public var pngLevel: Int = 3
    public var tiffCompression: TIFFCompression = .none
    /// TIFF tile side in pixels (a multiple of 16, at most 4096); nil writes strips. A tile
    /// larger than the image is written as small as the image allows.
    public var tileSize: Int?
    /// The largest TIFF tile side: a tile is encoded from one buffer, 256 MB for a 4096 float RGBA tile.
    package static let largestTile = 4096
    /// Progressive JPEG.
    public var progressive: Bool = false
    /// JPEG: the color (red, green, blue in 0...1, stored values) that an image with alpha is laid over,
    /// as viewers show transparency: JPEG has no alpha, and dropping it would show what transparent
    /// pixels happen to hold (often black).
    public var background: SIMD3<Double> = [1, 1, 1]
    /// WebP: lossless (exact, colors under transparent pixels kept) instead of lossy at ``quality``.
    public var lossless: Bool = false
    /// Whether the image's ICC profile is embedded (when it fits the written layout).
    public var profile: ProfilePolicy = .keep
    /// Whether the image's EXIF block and XMP packet are written.
    public var metadata: MetadataPolicy = .keep
    /// The print resolution, in dots per inch (600: a 827x1063 image prints at 35x45 mm), written as PNG's
    /// pHYs chunk (pixels per metre, rounded), JPEG's JFIF density (rounded) and TIFF's XResolution and
    /// YResolution (ResolutionUnit inch), and into an EXIF block the image carries that gives one. WebP,
    /// HEIC and AVIF have no field of their own. Nil adds none (an EXIF resolution the image carries is kept).
    public var dpi: Double?
    /// The resolutions ``dpi`` takes: JFIF's density holds up to 65535.
    package static let dpiRange: ClosedRange<Double> = 1...65535

    public init() {}

    /// What `save` does with the image's ICC profile.
    public enum ProfilePolicy: String, Sendable, CaseIterable {
        /// Embed it, as it came (an RGB profile only with color pixels, a gray one only with gray).
        case keep
        /// Write none: viewers then take the pixels as sRGB.
        case none
        /// Convert the pixels from the image's profile to sRGB and embed that.
        case srgb
    }

    /// What `save` does with the image's EXIF block and XMP packet.
    public enum MetadataPolicy: String, Sendable, CaseIterable {
        /// Write them, with the EXIF pixel dimensions set to the image's.
        case keep
        /// Write neither: no camera, date, place or copyright leaves with the pixels.
        case strip
    }

    /// Sets the compression from its text form: a zlib level 0...9 for PNG, a method name for TIFF.
    /// This is the one parser for `--compression` and the `save` node's `compression` parameter.
    package mutating func setCompression(_ text: String, for format: ImageFormat) throws {
        switch format {
        case .png:
            guard let level = Int(text), (0...9).contains(level) else {
                throw ImageError(message: "PNG compression is a zlib level from 0 to 9, not '\(text)'")
            }
            pngLevel = level
        case .tiff:
            guard let method = TIFFCompression(rawValue: text.lowercased()) else {
                let names = TIFFCompression.allCases.map(\.rawValue).joined(separator: ", ")
                throw ImageError(message: "TIFF compression is one of \(names), not '\(text)'")
            }
            tiffCompression = method
        case .webp:
            switch text.lowercased() {
            case "lossless": lossless = true
            case "lossy": lossless = false
            default: throw ImageError(message: "WebP compression is lossless or lossy, not '\(text)'")
            }
        case .jpeg, .heic, .avif, .gif:
            throw ImageError(message: "\(format) has no compression option; its quality sets the size")
        }
    }

    /// An option that can be wrong for a format.
    package enum Option: Sendable, Hashable {
        case depth, quality, tileSize, compression, dpi
    }

    /// What is wrong with these options for writing `format`, each with the option at fault. Pass the
    /// image's depth when it is known (it decides whether JPEG-in-TIFF is possible).
    package func problems(for format: ImageFormat, imageDepth: SampleDepth?) -> [(option: Option, message: String)] {
        var problems: [(option: Option, message: String)] = []
        if let quality, !(1...100).contains(quality) {
            problems.append((.quality, "quality must be from 1 to 100, not \(quality)"))
        }
        if let dpi, !Self.dpiRange.contains(dpi) {
            problems.append((.dpi, "dpi must be from 1 to 65535, not \(dpi)"))
        }
        if let tileSize, tileSize <= 0 || tileSize % 16 != 0 || tileSize > Self.largestTile {
            problems.append(
                (
                    .tileSize,
                    "TIFF tile size must be a positive multiple of 16 up to \(Self.largestTile), not \(tileSize)"
                )
            )
        }
        switch (format, depth) {
        case (.jpeg, .some(.uint16)), (.jpeg, .some(.float32)), (.webp, .some(.uint16)), (.webp, .some(.float32)),
            (.heic, .some(.uint16)), (.heic, .some(.float32)), (.avif, .some(.uint16)), (.avif, .some(.float32)):
            problems.append((.depth, "\(format) holds 8-bit samples only"))
        case (.png, .some(.float32)):
            problems.append((.depth, "PNG holds 8- or 16-bit samples, not float"))
        default:
            break
        }
        if format == .tiff, tiffCompression == .jpeg, let wanted = depth ?? imageDepth, wanted != .uint8 {
            problems.append((.compression, "JPEG compression in TIFF needs 8-bit samples (set the depth to 8)"))
        }
        return problems
    }

    func validate(for format: ImageFormat, imageDepth: SampleDepth) throws {
        if let problem = problems(for: format, imageDepth: imageDepth).first {
            throw ImageError(message: problem.message)
        }
    }

    /// The sample type actually written for an image of `imageDepth`.
    func resolvedDepth(imageDepth: SampleDepth, format: ImageFormat) -> SampleDepth {
        let wanted = depth ?? imageDepth
        switch format {
        case .jpeg, .webp, .heic, .avif, .gif: return .uint8
        case .png: return wanted == .float32 ? .uint16 : wanted
        case .tiff: return wanted
        }
    }
}
