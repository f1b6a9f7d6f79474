import Foundation
import CImageShims
import TesseraCore

/// An EXIF block (a TIFF structure: a byte-order mark, then directories of 12-byte entries), read and
/// patched in place: the orientation, the pixel dimensions once an image has been resized, and the
/// resolution `save` is asked for.
struct EXIF {
    private(set) var bytes: [UInt8]
    private let little: Bool

    /// Nil unless `bytes` starts with a TIFF header ("II*\0" or "MM\0*").
    init?(_ bytes: [UInt8]) {
        guard bytes.count >= 8 else { return nil }
        switch (bytes[0], bytes[1], bytes[2], bytes[3]) {
        case (0x49, 0x49, 0x2A, 0x00): little = true
        case (0x4D, 0x4D, 0x00, 0x2A): little = false
        default: return nil
        }
        self.bytes = bytes
    }

    private func u16(_ at: Int) -> Int? {
        guard at >= 0, at + 2 <= bytes.count else { return nil }
        return little ? Int(bytes[at]) | Int(bytes[at + 1]) << 8 : Int(bytes[at]) << 8 | Int(bytes[at + 1])
    }

    private func u32(_ at: Int) -> Int? {
        guard let a = u16(at), let b = u16(at + 2) else { return nil }
        return little ? a | b << 16 : a << 16 | b
    }

    private mutating func put16(_ value: Int, at: Int) {
        let (first, second) = (UInt8(truncatingIfNeeded: value), UInt8(truncatingIfNeeded: value >> 8))
        (bytes[at], bytes[at + 1]) = little ? (first, second) : (second, first)
    }

    private mutating func put32(_ value: Int, at: Int) {
        put16(little ? value & 0xFFFF : value >> 16, at: at)
        put16(little ? value >> 16 : value & 0xFFFF, at: at + 2)
    }

    /// Where each entry of the directory at `offset` starts (a bounded number: a crafted count cannot
    /// run past the block).
    private func entries(at offset: Int?) -> [Int] {
        guard let offset, let count = u16(offset) else { return [] }
        let fit = (bytes.count - offset - 2) / 12
        return (0..<Swift.max(0, Swift.min(count, fit))).map { offset + 2 + $0 * 12 }
    }

    private var firstDirectory: Int? { u32(4) }

    /// The entry of `tag` in the directory at `offset`.
    private func entry(_ tag: Int, in offset: Int?) -> Int? {
        entries(at: offset).first { u16($0) == tag }
    }

    /// The single SHORT or LONG value of an entry, stored in its value field.
    private func integer(at entry: Int) -> Int? {
        guard u32(entry + 4) == 1 else { return nil }
        switch u16(entry + 2) {
        case 3: return u16(entry + 8)
        case 4: return u32(entry + 8)
        default: return nil
        }
    }

    /// Sets an entry holding one SHORT or LONG to `value`, as a LONG when a SHORT cannot hold it.
    private mutating func setInteger(_ value: Int, at entry: Int) {
        guard u32(entry + 4) == 1, let type = u16(entry + 2), type == 3 || type == 4 else { return }
        if type == 3, value <= 0xFFFF {
            put16(value, at: entry + 8)
            put16(0, at: entry + 10)
        } else {
            put16(4, at: entry + 2)
            put32(value, at: entry + 8)
        }
    }

    private var exifDirectory: Int? { entry(0x8769, in: firstDirectory).flatMap { u32($0 + 8) } }

    /// The orientation tag (0x0112) of the first directory: 1 to 8, or 1 when absent or invalid.
    var orientation: Int {
        guard let at = entry(0x0112, in: firstDirectory), let value = integer(at: at), (1...8).contains(value) else {
            return 1
        }
        return value
    }

    /// Sets the orientation tag, where there is one.
    mutating func setOrientation(_ value: Int) {
        if let at = entry(0x0112, in: firstDirectory) { setInteger(value, at: at) }
    }

    /// Where an entry's values are: in its value field when they fit in 4 bytes, else at its offset.
    private func values(at entry: Int, size: Int) -> Range<Int>? {
        guard size > 0, size < 1 << 16 else { return nil }
        let start = size <= 4 ? entry + 8 : u32(entry + 8)
        guard let start, start + size <= bytes.count else { return nil }
        return start..<(start + size)
    }

    /// An ASCII entry's text, trimmed; nil when absent, empty or of another type.
    func text(_ tag: Int, exif: Bool = false) -> String? {
        guard let at = entry(tag, in: exif ? exifDirectory : firstDirectory), u16(at + 2) == 2,
            let count = u32(at + 4), let range = values(at: at, size: count)
        else { return nil }
        let text = String(decoding: bytes[range].prefix { $0 != 0 }, as: UTF8.self).trimmingCharacters(in: .whitespaces)
        return text.isEmpty ? nil : text
    }

    /// A RATIONAL entry's value, or a SHORT or LONG one's, as a number; nil when absent or invalid.
    func number(_ tag: Int, exif: Bool = false) -> Double? {
        guard let at = entry(tag, in: exif ? exifDirectory : firstDirectory) else { return nil }
        if let value = integer(at: at) { return Double(value) }
        guard u16(at + 2) == 5, u32(at + 4) == 1, let range = values(at: at, size: 8),
            let numerator = u32(range.lowerBound), let denominator = u32(range.lowerBound + 4), denominator != 0
        else { return nil }
        return Double(numerator) / Double(denominator)
    }

    /// XResolution and YResolution in dots per inch (ResolutionUnit inch, the default, or centimetre);
    /// nil when absent or with no unit.
    var resolution: SIMD2<Double>? {
        let unit = entry(0x0128, in: firstDirectory).flatMap { integer(at: $0) } ?? 2
        guard let x = number(0x011A), let y = number(0x011B), x > 0, y > 0, unit == 2 || unit == 3 else { return nil }
        return SIMD2(x, y) * (unit == 3 ? 2.54 : 1)
    }

    /// Sets XResolution and YResolution to `dpi` (a RATIONAL, in thousandths when not whole) and
    /// ResolutionUnit to inch, where present.
    mutating func setResolution(dpi: Double) {
        let denominator = dpi == dpi.rounded() ? 1 : 1000
        let numerator = Int((dpi * Double(denominator)).rounded())
        for tag in [0x011A, 0x011B] {
            guard let at = entry(tag, in: firstDirectory), u16(at + 2) == 5, u32(at + 4) == 1,
                let range = values(at: at, size: 8)
            else { continue }
            put32(numerator, at: range.lowerBound)
            put32(denominator, at: range.lowerBound + 4)
        }
        if let at = entry(0x0128, in: firstDirectory) { setInteger(2, at: at) }
    }

    /// Whether the first directory points at a GPS directory.
    var hasGPS: Bool { entry(0x8825, in: firstDirectory) != nil }

    /// Sets PixelXDimension and PixelYDimension (0xA002, 0xA003 in the EXIF directory), where present.
    mutating func setDimensions(width: Int, height: Int) {
        let directory = exifDirectory
        if let at = entry(0xA002, in: directory) { setInteger(width, at: at) }
        if let at = entry(0xA003, in: directory) { setInteger(height, at: at) }
    }
}

extension ImageMetadata {
    /// A copy of what a shim read (its pointers are valid only until the reader closes).
    init(_ shim: tsr_metadata) {
        func copy(_ pointer: UnsafePointer<UInt8>?, _ count: Int) -> [UInt8]? {
            guard let pointer, count > 0 else { return nil }
            return Array(UnsafeBufferPointer(start: pointer, count: count))
        }
        self.init(
            iccProfile: copy(shim.icc, shim.icc_length), exif: copy(shim.exif, shim.exif_length),
            xmp: copy(shim.xmp, shim.xmp_length))
    }

    /// The EXIF orientation, 1 (as stored) to 8.
    var orientation: Int { exif.flatMap(EXIF.init)?.orientation ?? 1 }

    /// The EXIF resolution in dots per inch, x and y, or nil.
    var resolution: SIMD2<Double>? { exif.flatMap(EXIF.init)?.resolution }

    /// This metadata for an image turned upright: the EXIF orientation says 1.
    func upright() -> ImageMetadata {
        guard var block = exif.flatMap(EXIF.init) else { return self }
        block.setOrientation(1)
        var result = self
        result.exif = block.bytes
        return result
    }

    /// What a writer embeds for `image` as `options` ask: the profile when kept and fit for the image's
    /// layout (an RGB profile is not written with gray pixels), EXIF (with the image's dimensions, and
    /// the resolution asked for where it gives one) and XMP unless stripped.
    static func written(for image: Image, options: EncodeOptions) -> ImageMetadata {
        var result = ImageMetadata()
        let metadata = image.metadata
        if options.profile != .none, metadata.profileFits(image.layout) { result.iccProfile = metadata.iccProfile }
        if options.metadata == .keep {
            if var block = metadata.exif.flatMap(EXIF.init) {
                block.setDimensions(width: image.width, height: image.height)
                if let dpi = options.dpi { block.setResolution(dpi: dpi) }
                result.exif = block.bytes
            }
            result.xmp = metadata.xmp
        }
        return result
    }

    /// Calls `body` with this metadata as the shims take it (nil when there is none).
    func withShim<R>(_ body: (UnsafePointer<tsr_metadata>?) throws -> R) rethrows -> R {
        guard !isEmpty else { return try body(nil) }
        let icc = iccProfile ?? []
        let exif = exif ?? []
        let xmp = xmp ?? []
        return try icc.withUnsafeBufferPointer { icc in
            try exif.withUnsafeBufferPointer { exif in
                try xmp.withUnsafeBufferPointer { xmp in
                    var shim = tsr_metadata(
                        icc: iccProfile == nil ? nil : icc.baseAddress, icc_length: icc.count,
                        exif: self.exif == nil ? nil : exif.baseAddress, exif_length: exif.count,
                        xmp: self.xmp == nil ? nil : xmp.baseAddress, xmp_length: xmp.count)
                    return try body(&shim)
                }
            }
        }
    }
}

extension ImageMetadata {
    /// The EXIF fields people look for, in order, as name and text: camera, lens, date, exposure,
    /// artist, copyright, and "gps" when a place is recorded. Empty without EXIF.
    package var exifSummary: [(name: String, value: String)] {
        guard let exif = exif.flatMap(EXIF.init) else { return [] }
        var fields: [(String, String)] = []
        let camera = [exif.text(0x010F), exif.text(0x0110)].compactMap { $0 }
        if !camera.isEmpty { fields.append(("camera", camera.joined(separator: " "))) }
        if let lens = exif.text(0xA434, exif: true) { fields.append(("lens", lens)) }
        if let date = exif.text(0x9003, exif: true) ?? exif.text(0x0132) { fields.append(("date", date)) }
        var exposure: [String] = []
        if let time = exif.number(0x829A, exif: true), time > 0 {
            exposure.append(time < 1 ? "1/\(Int((1 / time).rounded())) s" : "\(time.formatted()) s")
        }
        if let aperture = exif.number(0x829D, exif: true) { exposure.append("f/\(aperture.formatted())") }
        if let iso = exif.number(0x8827, exif: true) { exposure.append("ISO \(Int(iso))") }
        if let focal = exif.number(0x920A, exif: true) { exposure.append("\(focal.formatted()) mm") }
        if !exposure.isEmpty { fields.append(("exposure", exposure.joined(separator: ", "))) }
        if let artist = exif.text(0x013B) { fields.append(("artist", artist)) }
        if let copyright = exif.text(0x8298) { fields.append(("copyright", copyright)) }
        if exif.hasGPS { fields.append(("gps", "present")) }
        return fields
    }
}
