import TesseraCore

/// Reading and writing image files: the entry point the command line, the `load` and `save` nodes and
/// embedding programs share.
public enum ImageFile {
    /// What the header of the file at `path` says, without decoding pixels. A header that ``load(path:options:)``
    /// would refuse (over `options.maxPixels` or `options.maxMemory`, or claiming more than the file holds)
    /// is refused here too, so `info` answers for what `load` will do.
    public static func info(path: String, options: DecodeOptions = DecodeOptions()) throws -> ImageInfo {
        var options = options
        options.once = options.once ?? DecodeWarnings.Once()
        try options.checkShrink(path: path)
        let format = try ImageFormat.detect(path: path)
        let stored: ImageInfo
        switch format {
        case .jpeg: return try JPEGCodec.info(path: path, options: options)
        case .png: stored = try PNGCodec.info(path: path, options: options)
        case .tiff: stored = try TIFFReader(path: path, options: options).info
        case .webp: stored = try WebPCodec.info(path: path, options: options)
        case .gif: stored = try GIFCodec.info(path: path, options: options)
        case .heic, .avif: stored = try HEIFCodec.info(path: path, format: format, options: options)
        }
        return try checkedProfile(stored, path: path, options: options).shrunk(by: options.shrink).upright(options)
    }

    /// `info` with its embedded ICC profile dropped when it is the image's (it fits its channels) and Little
    /// CMS cannot convert from it: damage of the warning kind, reported naming the file (a conversion would
    /// otherwise fail later, naming none), or refused from `failOn` warning up. A profile that does not fit
    /// is never used, so it is not looked at.
    ///
    /// - Cost: opening the profile and linking it to sRGB without precomputing anything, well under a
    ///   millisecond for a matrix profile.
    static func checkedProfile(_ info: ImageInfo, path: String, options: DecodeOptions) throws -> ImageInfo {
        guard let profile = info.metadata.iccProfile, info.metadata.profileFits(info.layout) else { return info }
        let usable = (try? ColorProfile(bytes: profile)).flatMap {
            try? ColorTransform(from: $0, to: .sRGB, unbounded: true)
        }
        guard usable == nil else { return info }
        let problem = "\(info.format): the embedded ICC profile cannot be read (\(profile.count) bytes)"
        guard options.readsPast(.warning, message: problem + "; dropped, the colors read as sRGB", path: path) else {
            throw ImageError(path: path, message: problem)
        }
        var info = info
        info.metadata.iccProfile = nil
        return info
    }

    /// Opens the image at `path`. The header is read and checked now; pixels are decoded when a region
    /// is asked for (TIFF: only the strips or tiles it touches; PNG and JPEG: front to back, once; WebP,
    /// GIF, HEIC and AVIF: the whole frame, once). With `options.shrink`, the image is that many times
    /// smaller on each side (``DecodeOptions/shrink``); then it is turned upright by its orientation
    /// unless `options` keep it (HEIF is turned by libheif, as its own boxes say).
    ///
    /// - Throws: ``ImageError`` naming the file: missing, unreadable, not an image, corrupt, or larger
    ///   than `options.maxPixels`, or needing more than `options.maxMemory` bytes at once.
    public static func load(path: String, options: DecodeOptions = DecodeOptions()) throws -> (ImageInfo, Image) {
        var options = options
        options.once = options.once ?? DecodeWarnings.Once()
        try options.checkShrink(path: path)
        let format = try ImageFormat.detect(path: path)
        // Every format but JPEG (which libjpeg shrinks by DCT scaling, and its codec turns) is decoded as
        // stored, then shrunk and turned here.
        func upright(_ stored: (ImageInfo, Image)) throws -> (ImageInfo, Image) {
            // A codec that shrinks as it decodes (a still WebP) has.
            let shrink = stored.0.shrink > 1 ? 1 : options.shrink
            return try Orientation.upright(shrunk(stored, by: shrink), options: options, path: path)
        }
        let loaded: (info: ImageInfo, image: Image)
        switch format {
        case .jpeg: loaded = try JPEGCodec.load(path: path, options: options)
        case .png: loaded = try upright(PNGCodec.load(path: path, options: options))
        case .tiff:
            let reader = try TIFFReader(path: path, options: options)
            loaded = try upright((reader.info, reader.image))
        case .webp: loaded = try upright(WebPCodec.load(path: path, options: options))
        case .gif: loaded = try upright(GIFCodec.load(path: path, options: options))
        case .heic, .avif: loaded = try upright(HEIFCodec.load(path: path, format: format, options: options))
        }
        let info = try checkedProfile(loaded.info, path: path, options: options)
        return (info, loaded.image.withMetadata(info.metadata))
    }

    /// A file libjpeg does not decode, shrunk: its rows averaged over blocks (``BlockAverageRows``).
    private static func shrunk(_ loaded: (ImageInfo, Image), by factor: Int) -> (ImageInfo, Image) {
        guard factor > 1 else { return loaded }
        let (info, full) = loaded
        let shrunk = info.shrunk(by: factor)
        // Averages are not 8- or 16-bit file samples: an image kept whole must stay Float32.
        let source = RowStreamSource(givesFileSamples: false) { BlockAverageRows(image: full, factor: factor) }
        return (
            shrunk,
            Image(width: shrunk.width, height: shrunk.height, layout: full.layout, depth: full.depth, source: source)
        )
    }

    /// Writes `image` to `path` in the format its extension names. The file appears complete or not at
    /// all: it is written under a temporary name in the same folder and renamed when done.
    ///
    /// - Returns: the sample type written.
    @discardableResult
    public static func save(_ image: Image, to path: String, options: EncodeOptions = EncodeOptions()) throws
        -> SampleDepth
    {
        let format = try ImageFormat.forWriting(path: path)
        do {
            try options.validate(for: format, imageDepth: image.depth)
        } catch var error as ImageError {
            error.path = path
            throw error
        }
        let converted: Image
        do {
            converted = options.profile == .srgb ? try image.convertingColors(to: .sRGB) : image
        } catch var error as ImageError where error.path == nil {
            // The image's profile came from no file (a node's, a program's): the error names the output.
            error.path = path
            throw error
        }
        let image = converted
        let depth = options.resolvedDepth(imageDepth: image.depth, format: format)
        try FileSystem.writeAtomically(to: path) { temporary in
            switch format {
            case .png: try PNGCodec.write(image, to: temporary, depth: depth, options: options)
            case .jpeg: try JPEGCodec.write(image, to: temporary, options: options)
            case .tiff: try TIFFWriter.write(image, to: temporary, depth: depth, options: options)
            case .webp: try WebPCodec.write(image, to: temporary, options: options)
            case .heic, .avif: try HEIFCodec.write(image, to: temporary, format: format, options: options)
            case .gif: preconditionFailure("forWriting refuses GIF")
            }
        }
        return depth
    }
}
