/// What travels with an image besides its pixels: the ICC profile, the EXIF block and the XMP packet of
/// the file it was read from, as libvips' header fields do. A node's output image keeps the metadata of
/// its first input image unless the node sets its own; `save` writes it (or not: `profile`, `metadata`).
///
/// The EXIF block describes the image as loaded: where `load` turned the pixels upright, its
/// Orientation tag says 1.
public struct ImageMetadata: Sendable, Equatable {
    /// An ICC profile, as embedded (PNG iCCP decompressed, JPEG APP2 segments joined, TIFF tag 34675).
    public var iccProfile: [UInt8]?
    /// The EXIF block: a TIFF structure ("II*\0" or "MM\0*" and its directories), without the
    /// "Exif\0\0" that JPEG's APP1 segment puts before it.
    public var exif: [UInt8]?
    /// An XMP packet (XML, UTF-8).
    public var xmp: [UInt8]?

    public init(iccProfile: [UInt8]? = nil, exif: [UInt8]? = nil, xmp: [UInt8]? = nil) {
        self.iccProfile = iccProfile
        self.exif = exif
        self.xmp = xmp
    }

    public var isEmpty: Bool { iccProfile == nil && exif == nil && xmp == nil }

    /// The color space an ICC profile describes, from its header ("RGB ", "GRAY", "CMYK"...), or nil.
    package var profileColorSpace: String? {
        guard let profile = iccProfile, profile.count >= 128 else { return nil }
        return String(decoding: profile[16..<20], as: UTF8.self)
    }

    /// Whether the profile can describe an image of `layout`: an RGB profile for RGB, a gray one for gray.
    package func profileFits(_ layout: PixelLayout) -> Bool {
        switch profileColorSpace {
        case "RGB ": !layout.isGray
        case "GRAY": layout.isGray
        default: false
        }
    }
}
