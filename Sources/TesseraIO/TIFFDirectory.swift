import Foundation

/// A TIFF directory (IFD) read from any TIFF structure (an EXIF block, a TIFF file) and written back in
/// either byte order at any offset: how EXIF moves between TIFF files and the other formats, which
/// carry it as a block of its own. Classic TIFF only (BigTIFF's 8-byte offsets are not read).
struct TIFFDirectory {
    struct Entry {
        var tag: Int
        var type: Int
        var count: Int
        /// The values, each element little-endian.
        var data: [UInt8]
        /// The directory this entry points to (EXIF, GPS, interoperability), written in its place.
        var directory: TIFFDirectory?
    }

    var entries: [Entry] = []

    /// The tags whose value is the offset of another directory: EXIF, GPS, interoperability.
    static let pointerTags: Set<Int> = [0x8769, 0x8825, 0xA005]

    /// Bytes per element of each TIFF type, and the size each element is byte-swapped in.
    static func elementSize(_ type: Int) -> (size: Int, swap: Int)? {
        switch type {
        case 1, 2, 6, 7: (1, 1)
        case 3, 8: (2, 2)
        case 4, 9, 11, 13: (4, 4)
        case 5, 10: (8, 4)
        case 12: (8, 8)
        default: nil
        }
    }

    subscript(tag: Int) -> Entry? { entries.first { $0.tag == tag } }

    /// A TIFF structure read through `read(offset, count)`, which returns nil past its end.
    struct Reader {
        let little: Bool
        let firstDirectory: Int
        private let read: (Int, Int) -> [UInt8]?
        /// Limits that keep a crafted structure cheap: entries per directory, bytes per value, bytes in all.
        static let maxEntries = 1024
        static let maxValueBytes = 1 << 20
        private var budget = Box(8 << 20)

        private final class Box {
            var value: Int
            init(_ value: Int) { self.value = value }
        }

        init?(read: @escaping (Int, Int) -> [UInt8]?) {
            guard let header = read(0, 8) else { return nil }
            switch (header[0], header[1], header[2], header[3]) {
            case (0x49, 0x49, 0x2A, 0x00): little = true
            case (0x4D, 0x4D, 0x00, 0x2A): little = false
            default: return nil
            }
            self.read = read
            firstDirectory =
                little
                ? Int(header[4]) | Int(header[5]) << 8 | Int(header[6]) << 16 | Int(header[7]) << 24
                : Int(header[4]) << 24 | Int(header[5]) << 16 | Int(header[6]) << 8 | Int(header[7])
        }

        /// The reader of a file, read where asked.
        init?(handle: FileHandle) {
            self.init { offset, count in
                guard (try? handle.seek(toOffset: UInt64(offset))) != nil,
                    let data = try? handle.read(upToCount: count), data.count == count
                else { return nil }
                return [UInt8](data)
            }
        }

        /// The reader of an in-memory structure (an EXIF block).
        init?(bytes: [UInt8]) {
            self.init { offset, count in
                guard offset >= 0, count >= 0, offset + count <= bytes.count else { return nil }
                return Array(bytes[offset..<(offset + count)])
            }
        }

        private func integer(_ bytes: ArraySlice<UInt8>) -> Int {
            let ordered = little ? Array(bytes.reversed()) : Array(bytes)
            return ordered.reduce(0) { $0 << 8 | Int($1) }
        }

        /// The directory at `offset`, its pointer entries followed `depth` levels down; nil when it
        /// cannot be read.
        func directory(at offset: Int, depth: Int = 2, keeping keep: ((Int) -> Bool)? = nil) -> TIFFDirectory? {
            guard offset >= 8, let countBytes = read(offset, 2) else { return nil }
            let count = integer(countBytes[...])
            guard count <= Self.maxEntries, let table = read(offset + 2, count * 12) else { return nil }
            var directory = TIFFDirectory()
            for index in 0..<count {
                let raw = table[(index * 12)..<(index * 12 + 12)]
                let tag = integer(raw.prefix(2))
                let type = integer(raw.dropFirst(2).prefix(2))
                let elements = integer(raw.dropFirst(4).prefix(4))
                guard keep?(tag) ?? true, let (size, swap) = TIFFDirectory.elementSize(type) else { continue }
                let length = size * elements
                guard length <= Self.maxValueBytes, length <= budget.value else { continue }
                let field = Array(raw.suffix(4))
                guard
                    var data = length <= 4
                        ? Array(field.prefix(length)) : read(integer(field[...]), length)
                else { continue }
                budget.value -= length
                if !little, swap > 1 {
                    for start in stride(from: 0, to: data.count, by: swap) { data[start..<(start + swap)].reverse() }
                }
                var entry = Entry(tag: tag, type: type, count: elements, data: data)
                if TIFFDirectory.pointerTags.contains(tag) {
                    guard depth > 0, elements == 1, size == 4,
                        let sub = self.directory(at: entry.littleInteger, depth: depth - 1)
                    else { continue }
                    entry.directory = sub
                }
                directory.entries.append(entry)
            }
            return directory
        }
    }

    /// This directory and the ones it points to, as bytes for offset `base` of a TIFF structure: the
    /// directory, its values longer than 4 bytes, then each sub-directory, each at an even offset.
    func serialized(at base: Int, little: Bool) -> [UInt8] {
        let sorted = entries.sorted { $0.tag < $1.tag }
        func padded(_ count: Int) -> Int { count + count % 2 }
        let valuesSize = sorted.reduce(0) {
            $0 + ($1.directory == nil && $1.data.count > 4 ? padded($1.data.count) : 0)
        }
        var bytes: [UInt8] = []
        func put(_ value: Int, _ width: Int) {
            let littleBytes = (0..<width).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
            bytes += little ? littleBytes : littleBytes.reversed()
        }
        func ordered(_ entry: Entry) -> [UInt8] {
            guard !little, let (_, swap) = TIFFDirectory.elementSize(entry.type), swap > 1 else { return entry.data }
            var data = entry.data
            for start in stride(from: 0, to: data.count, by: swap) { data[start..<(start + swap)].reverse() }
            return data
        }
        var values: [UInt8] = []
        var subdirectories: [UInt8] = []
        let valuesStart = base + 2 + 12 * sorted.count + 4
        put(sorted.count, 2)
        for entry in sorted {
            put(entry.tag, 2)
            if let directory = entry.directory {
                let offset = valuesStart + valuesSize + subdirectories.count
                put(4, 2)
                put(1, 4)
                put(offset, 4)
                subdirectories += directory.serialized(at: offset, little: little)
                if subdirectories.count % 2 == 1 { subdirectories.append(0) }
                continue
            }
            put(entry.type, 2)
            put(entry.count, 4)
            let data = ordered(entry)
            if data.count <= 4 {
                bytes += data + [UInt8](repeating: 0, count: 4 - data.count)
            } else {
                put(valuesStart + values.count, 4)
                values += data
                if values.count % 2 == 1 { values.append(0) }
            }
        }
        put(0, 4)
        return bytes + values + subdirectories
    }

    /// A standalone EXIF block (a little-endian TIFF structure) holding this directory as its first.
    func exifBlock() -> [UInt8] {
        [0x49, 0x49, 0x2A, 0x00, 8, 0, 0, 0] + serialized(at: 8, little: true)
    }
}

extension TIFFDirectory.Entry {
    /// The first element as an unsigned integer (little-endian data).
    var littleInteger: Int { data.prefix(4).reversed().reduce(0) { $0 << 8 | Int($1) } }
}

extension TIFFDirectory {
    /// The first directory's tags that describe a photo rather than lay out its pixels: what moves
    /// between a TIFF file's own directory and an EXIF block's first one.
    static let descriptiveTags: Set<Int> = [
        0x010E, 0x010F, 0x0110, 0x011A, 0x011B, 0x0128, 0x0131, 0x0132, 0x013B, 0x8298, 0x8769, 0x8825,
    ]

    /// EXIF tags that describe a compressed image's data: ComponentsConfiguration,
    /// CompressedBitsPerPixel, PixelXDimension and PixelYDimension.
    static let compressedDataTags: Set<Int> = [0x9101, 0x9102, 0xA002, 0xA003]

    /// The EXIF block of the TIFF file at `path`: its first directory's descriptive tags (camera, date,
    /// artist, copyright, resolution) and its orientation, with the EXIF and GPS directories they point
    /// to; nil when it has none of them or is not a classic TIFF.
    static func exifBlock(ofTIFF path: String) -> [UInt8]? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        let reader = Reader(handle: handle)
        guard let reader,
            let first = reader.directory(
                at: reader.firstDirectory, keeping: { descriptiveTags.contains($0) || $0 == 0x0112 })
        else { return nil }
        guard
            first.entries.contains(where: {
                $0.tag != 0x0112 && $0.tag != 0x011A && $0.tag != 0x011B && $0.tag != 0x0128
            })
        else { return nil }
        return first.exifBlock()
    }

    /// Adds `exif`'s descriptive first-directory tags (those the file lacks) and its EXIF and GPS
    /// directories to the classic TIFF file at `path`, written by libtiff with one directory: a new
    /// first directory is appended with them, and the header pointed at it (the old one stays, unused).
    static func embed(exif: [UInt8], inTIFF path: String) throws {
        guard let source = Reader(bytes: exif), let block = source.directory(at: source.firstDirectory) else { return }
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        let file = Reader(handle: handle)
        guard let file, var first = file.directory(at: file.firstDirectory, depth: 0) else { return }
        let present = Set(first.entries.map(\.tag))
        for var entry in block.entries where descriptiveTags.contains(entry.tag) && !present.contains(entry.tag) {
            // EXIF's tags about a compressed image's data (its pixel dimensions, the YCbCr component
            // order) do not belong in TIFF, which says those in its own tags.
            if entry.tag == 0x8769 { entry.directory?.entries.removeAll { compressedDataTags.contains($0.tag) } }
            first.entries.append(entry)
        }
        var end = Int(try handle.seekToEnd())
        if end % 2 == 1 {
            try handle.write(contentsOf: [0])
            end += 1
        }
        try handle.write(contentsOf: first.serialized(at: end, little: file.little))
        try handle.seek(toOffset: 4)
        let offset = (0..<4).map { UInt8(truncatingIfNeeded: end >> (8 * $0)) }
        try handle.write(contentsOf: file.little ? offset : offset.reversed())
    }
}
