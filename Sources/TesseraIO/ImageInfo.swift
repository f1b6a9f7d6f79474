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
    /// The profile, EXIF and XMP the file holds, as the loaded image carries them (its EXIF orientation
    /// set to 1 once ``orientationApplied``).
    public var metadata = ImageMetadata()
    /// The resolution the file's own field gives (PNG pHYs, JPEG JFIF density, TIFF XResolution and
    /// YResolution), in dots per inch.
    var fileResolution: SIMD2<Double>? = nil
    /// Whether a shrink decodes the whole file onto the smaller image (libwebp's rescaler, a still WebP),
    /// rather than averaging blocks of which the last are partial.
    var scalesWhole = false

    /// The print resolution in dots per inch, x and y as stored: the file's own field, else its EXIF's;
    /// nil when it gives none, or only an aspect ratio.
    public var resolution: SIMD2<Double>? { fileResolution ?? metadata.resolution }

    /// A resolution a shim read, in dots per inch: nil unless both are above 0.
    static func resolution(_ x: Double, _ y: Double) -> SIMD2<Double>? { x > 0 && y > 0 ? SIMD2(x, y) : nil }

    /// The part of the loaded image the file's pixels cover, in its pixels: the whole image without a
    /// shrink. With one, the last column and row of blocks hold fewer of the file's pixels (`fullWidth
    /// % shrink`), so the file covers `fullWidth / shrink` by `fullHeight / shrink` pixels of it, from
    /// the top-left, or from another corner once the orientation turns the image. A resize that maps
    /// this part onto its output keeps the file's geometry: mapping the whole image would stretch the
    /// partial blocks to whole pixels (up to 7/8 of a pixel at the far edge).
    public var content: (x: Double, y: Double, width: Double, height: Double) {
        if scalesWhole { return (0, 0, Double(self.width), Double(self.height)) }
        let width = Double(fullWidth) / Double(shrink)
        let height = Double(fullHeight) / Double(shrink)
        // The partial blocks are the stored image's last; an orientation may put them first.
        let turn = orientationApplied ? orientation : 1
        let firstColumn = [2, 3, 6, 7].contains(turn)
        let firstRow = [3, 4, 7, 8].contains(turn)
        return (
            firstColumn ? Double(self.width) - width : 0, firstRow ? Double(self.height) - height : 0, width, height
        )
    }

    /// This file's info for a load at 1/`factor` by block averages (``BlockAverageRows``).
    func shrunk(by factor: Int) -> ImageInfo {
        guard factor > 1 else { return self }
        var info = self
        info.width = (width + factor - 1) / factor
        info.height = (height + factor - 1) / factor
        info.shrink = factor
        info.details.append(
            scalesWhole ? "decoded at 1/\(factor) by libwebp's scaling" : "averaged over \(factor)x\(factor) blocks")
        return info
    }

    /// The sample type an image decoded from this file carries.
    public var depth: SampleDepth {
        isFloat ? .float32 : (bitsPerSample > 8 ? .uint16 : .uint8)
    }
}
