import TesseraCore

/// What a file's header says about its image, read without decoding pixels.
public struct ImageInfo: Sendable, Equatable {
    public var format: ImageFormat
    /// The size after the orientation is applied (when it is).
    public var width: Int
    public var height: Int
    /// Channels as stored in the file: 1 (gray), 2 (gray and alpha), 3 (RGB) or 4 (RGBA). A palette
    /// file counts the channels of its colors.
    public var layout: PixelLayout
    /// Bits per stored sample: 1, 2, 4, 8, 16 or 32.
    public var bitsPerSample: Int
    public var isFloat: Bool
    /// The EXIF or TIFF orientation, 1 (as stored) to 8.
    public var orientation: Int
    /// Whether ``width`` and ``height`` are those after applying ``orientation``.
    public var orientationApplied: Bool
    /// Format details a user may want to see: compression, tiles or strips, interlacing, palette.
    public var details: [String]

    /// The sample type an image decoded from this file carries.
    public var depth: SampleDepth {
        isFloat ? .float32 : (bitsPerSample > 8 ? .uint16 : .uint8)
    }
}
