import TesseraCore

/// EXIF orientation: how the stored pixels must be turned to stand upright.
///
/// 1 upright, 2 mirrored left-right, 3 turned 180 degrees, 4 mirrored top-bottom, 5 transposed
/// (mirrored about the main diagonal), 6 to be turned 90 degrees clockwise, 7 transversed, 8 to be
/// turned 90 degrees counterclockwise.
enum Orientation {
    /// Whether the upright image swaps width and height.
    static func swapsAxes(_ orientation: Int) -> Bool { (5...8).contains(orientation) }

    /// Reads the orientation tag (0x0112) from IFD0 of an Exif payload (a TIFF structure), or 1.
    static func read(exif bytes: [UInt8]) -> Int {
        guard bytes.count >= 8 else { return 1 }
        let little: Bool
        switch (bytes[0], bytes[1]) {
        case (0x49, 0x49): little = true
        case (0x4D, 0x4D): little = false
        default: return 1
        }
        func u16(_ at: Int) -> Int? {
            guard at >= 0, at + 2 <= bytes.count else { return nil }
            return little ? Int(bytes[at]) | Int(bytes[at + 1]) << 8 : Int(bytes[at]) << 8 | Int(bytes[at + 1])
        }
        func u32(_ at: Int) -> Int? {
            guard let a = u16(at), let b = u16(at + 2) else { return nil }
            return little ? a | b << 16 : a << 16 | b
        }
        guard let ifd = u32(4), let count = u16(ifd) else { return 1 }
        for entry in 0..<count {
            let at = ifd + 2 + entry * 12
            guard let tag = u16(at) else { return 1 }
            // Type 3 is SHORT; its single value sits in the first two bytes of the value field.
            if tag == 0x0112, u16(at + 2) == 3, let value = u16(at + 8) {
                return (1...8).contains(value) ? value : 1
            }
        }
        return 1
    }

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
