import TesseraCore

/// Reading and writing image files: the entry point the command line, the `load` and `save` nodes and
/// embedding programs share.
public enum ImageFile {
    /// What the header of the file at `path` says, without decoding pixels. A header that ``load(path:options:)``
    /// would refuse (over `options.maxPixels` or `options.maxMemory`, or claiming more than the file holds)
    /// is refused here too, so `info` answers for what `load` will do.
    public static func info(path: String, options: DecodeOptions = DecodeOptions()) throws -> ImageInfo {
        try options.checkShrink(path: path)
        let format = try ImageFormat.detect(path: path)
        switch format {
        case .png: return try PNGCodec.info(path: path, options: options).shrunk(by: options.shrink)
        case .jpeg: return try JPEGCodec.info(path: path, options: options)
        case .tiff: return try TIFFReader(path: path, options: options).info.shrunk(by: options.shrink).upright(options)
        case .webp: return try WebPCodec.info(path: path, options: options).shrunk(by: options.shrink).upright(options)
        case .gif: return try GIFCodec.info(path: path, options: options).shrunk(by: options.shrink)
        case .heic, .avif:
            return try HEIFCodec.info(path: path, format: format, options: options).shrunk(by: options.shrink)
        }
    }

    /// Opens the image at `path`. The header is read and checked now; pixels are decoded when a region
    /// is asked for (TIFF: only the strips or tiles it touches; PNG and JPEG: the whole image, once).
    /// With `options.shrink`, the image is that many times smaller on each side (``DecodeOptions/shrink``).
    ///
    /// - Throws: ``ImageError`` naming the file: missing, unreadable, not an image, corrupt, or larger
    ///   than `options.maxPixels`, or needing more than `options.maxMemory` bytes at once.
    public static func load(path: String, options: DecodeOptions = DecodeOptions()) throws -> (ImageInfo, Image) {
        try options.checkShrink(path: path)
        let loaded: (info: ImageInfo, image: Image)
        let format = try ImageFormat.detect(path: path)
        switch format {
        case .png: loaded = shrunk(try PNGCodec.load(path: path, options: options), by: options.shrink)
        case .jpeg: loaded = try JPEGCodec.load(path: path, options: options)
        case .tiff:
            let reader = try TIFFReader(path: path, options: options)
            loaded = try Orientation.upright(
                shrunk((reader.info, reader.image), by: options.shrink), options: options, path: path)
        case .webp:
            loaded = try Orientation.upright(
                shrunk(try WebPCodec.load(path: path, options: options), by: options.shrink), options: options,
                path: path)
        case .gif: loaded = shrunk(try GIFCodec.load(path: path, options: options), by: options.shrink)
        case .heic, .avif:
            loaded = shrunk(try HEIFCodec.load(path: path, format: format, options: options), by: options.shrink)
        }
        return (loaded.info, loaded.image.withMetadata(loaded.info.metadata))
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
        let image = options.profile == .srgb ? try image.convertingColors(to: .sRGB) : image
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
