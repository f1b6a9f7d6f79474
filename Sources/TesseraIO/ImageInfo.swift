import TesseraCore

/// What a file's header says about its image, read without decoding pixels.
public struct ImageInfo: Sendable, Equatable {
    public var format: ImageFormat
    /// The size of the image `load` gives: after `DecodeOptions.shrink` and the orientation (when it is
    /// applied).
    public var width: Int
    public var height: Int
    /// The size the file holds, upright when the orientation is applied: ``width`` and ``height``
    /// before the shrink.
    public var fullWidth: Int
    public var fullHeight: Int
    /// The shrink ``width`` and ``height`` are at: 1, 2, 4 or 8 (`DecodeOptions.shrink`).
    public var shrink: Int
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

    /// This file's info for a load at 1/`factor` by block averages (``BlockAverageRows``).
    func shrunk(by factor: Int) -> ImageInfo {
        guard factor > 1 else { return self }
        var info = self
        info.width = (width + factor - 1) / factor
        info.height = (height + factor - 1) / factor
        info.shrink = factor
        info.details.append("averaged over \(factor)x\(factor) blocks")
        return info
    }

    /// The sample type an image decoded from this file carries.
    public var depth: SampleDepth {
        isFloat ? .float32 : (bitsPerSample > 8 ? .uint16 : .uint8)
    }
}
