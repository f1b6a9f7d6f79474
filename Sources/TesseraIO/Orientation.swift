import TesseraCore

/// EXIF orientation: how the stored pixels must be turned to stand upright.
///
/// 1 upright, 2 mirrored left-right, 3 turned 180 degrees, 4 mirrored top-bottom, 5 transposed
/// (mirrored about the main diagonal), 6 to be turned 90 degrees clockwise, 7 transversed, 8 to be
/// turned 90 degrees counterclockwise.
enum Orientation {
    /// Whether the upright image swaps width and height.
    static func swapsAxes(_ orientation: Int) -> Bool { (5...8).contains(orientation) }

    /// The upright image of `stored` for `orientation`.
    static func apply(_ orientation: Int, to stored: PixelBuffer) -> PixelBuffer {
        guard orientation != 1 else { return stored }
        let w = stored.region.width
        let h = stored.region.height
        let swaps = swapsAxes(orientation)
        let outWidth = swaps ? h : w
        let outHeight = swaps ? w : h
        let channels = stored.channels
        var result = PixelBuffer(region: Rect(width: outWidth, height: outHeight), channels: channels)
        result.samples.withUnsafeMutableBufferPointer { target in
            stored.samples.withUnsafeBufferPointer { source in
                for y in 0..<outHeight {
                    for x in 0..<outWidth {
                        let (sx, sy): (Int, Int)
                        switch orientation {
                        case 2: (sx, sy) = (w - 1 - x, y)
                        case 3: (sx, sy) = (w - 1 - x, h - 1 - y)
                        case 4: (sx, sy) = (x, h - 1 - y)
                        case 5: (sx, sy) = (y, x)
                        case 6: (sx, sy) = (y, h - 1 - x)
                        case 7: (sx, sy) = (w - 1 - y, h - 1 - x)
                        default: (sx, sy) = (w - 1 - y, x)
                        }
                        let to = (y * outWidth + x) * channels
                        let from = (sy * w + sx) * channels
                        for c in 0..<channels { target[to + c] = source[from + c] }
                    }
                }
            }
        }
        return result
    }
}

extension ImageInfo {
    /// This info for the image turned upright, when `options` apply the orientation and it is not 1:
    /// width and height swapped where the turn swaps them, the EXIF orientation kept set to 1.
    func upright(_ options: DecodeOptions) -> ImageInfo {
        guard options.appliesOrientation, orientation != 1, !orientationApplied else { return self }
        var info = self
        if Orientation.swapsAxes(orientation) {
            (info.width, info.height) = (height, width)
            (info.fullWidth, info.fullHeight) = (fullHeight, fullWidth)
        }
        info.orientationApplied = true
        info.metadata = metadata.upright()
        return info
    }
}

extension Orientation {
    /// `loaded` turned upright as ``ImageInfo/upright(_:)`` says: the stored image decoded whole once
    /// and turned (a turn reads every row for every column, so it is not streamed).
    ///
    /// - Throws: ``ImageError`` when the two whole images (stored and turned) need more than
    ///   `options.maxMemory`.
    static func upright(_ loaded: (ImageInfo, Image), options: DecodeOptions, path: String) throws -> (
        ImageInfo, Image
    ) {
        let (stored, image) = loaded
        let info = stored.upright(options)
        guard info.orientationApplied, !stored.orientationApplied else { return loaded }
        try options.checkMemory(
            saturatingProduct(info.width, info.height, image.channels, MemoryLayout<Float>.size, 2),
            format: "\(info.format)", what: "turning \(info.width)x\(info.height) pixels upright", path: path)
        let turn = stored.orientation
        let source = DecodeOnceSource { apply(turn, to: try image.pixels()) }
        return (
            info,
            Image(width: info.width, height: info.height, layout: image.layout, depth: image.depth, source: source)
        )
    }
}
