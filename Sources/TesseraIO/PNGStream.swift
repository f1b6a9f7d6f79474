import CImageShims
import TesseraCore

/// A PNG's image data as libpng makes it (each row filtered by the filter of least magnitude sum, one
/// zlib stream at the level asked for), made in pieces of rows that the run's workers filter and deflate
/// at the same time (``Jobs/current``): each piece is deflated on its own with the 32 KB before it as
/// its window and ends on a byte boundary, so the pieces end to end are one stream, as pigz makes
/// gzip's. The pieces are cut by rows alone, so the file's bytes are the same for any thread count.
struct PNGStream {
    /// Raw bytes a piece holds, about: large enough that a piece's flush and cold start cost nothing
    /// measurable in size, small enough that a photo makes many.
    static let pieceBytes = 256 << 10
    /// Pieces made at once: the rows asked of the image at a time.
    static let piecesPerGroup = 8
    /// The window a deflate piece starts with: zlib's largest.
    private static let windowBytes = 32 << 10

    let rowBytes: Int
    let bytesPerPixel: Int
    /// 16-bit samples in this machine's little-endian order, which PNG stores big-endian.
    let swap16: Bool
    let level: Int
    let rowsPerPiece: Int

    /// The last row of the rows added so far, as the image gave it: the row above the next one.
    private var previousRow: [UInt8]?
    /// The last 32 KB of filtered data put in the stream.
    private var window: [UInt8] = []
    private var adler: UInt32 = 1
    private var started = false

    init(rowBytes: Int, bytesPerPixel: Int, sixteenBit: Bool, level: Int) {
        self.rowBytes = rowBytes
        self.bytesPerPixel = bytesPerPixel
        swap16 = sixteenBit && 1.littleEndian == 1
        self.level = level
        rowsPerPiece = Swift.max(1, Self.pieceBytes / Swift.max(1, rowBytes))
    }

    /// Rows to add at a time.
    var groupRows: Int { rowsPerPiece * Self.piecesPerGroup }

    /// Filters and deflates the `count` rows in `rows` (``rowBytes`` each, packed), the next ones of the
    /// image, and hands the stream's bytes to `write` in order; ends the stream when `last`.
    mutating func add(
        _ rows: [UInt8], count: Int, last: Bool, write: (UnsafeRawBufferPointer) throws -> Void
    ) throws {
        let (rowBytes, rowsPerPiece, bytesPerPixel, swap16) = (rowBytes, rowsPerPiece, bytesPerPixel, swap16)
        let pieces = (count + rowsPerPiece - 1) / rowsPerPiece
        let above = previousRow
        let filtered = try Jobs.current.map(pieces) { index -> [UInt8] in
            let first = index * rowsPerPiece
            let height = Swift.min(rowsPerPiece, count - first)
            let size = height * (rowBytes + 1)
            var out = [UInt8](unsafeUninitializedCapacity: size) { _, initialized in initialized = size }
            let status = rows.withUnsafeBytes { raw in
                out.withUnsafeMutableBytes { target -> Int32 in
                    guard let base = raw.baseAddress?.assumingMemoryBound(to: UInt8.self),
                        let filtered = target.baseAddress?.assumingMemoryBound(to: UInt8.self)
                    else { return -1 }
                    func filter(_ previous: UnsafePointer<UInt8>?) -> Int32 {
                        tsr_png_filter_rows(
                            base + first * rowBytes, rowBytes, UInt32(height), previous, rowBytes,
                            Int32(bytesPerPixel), swap16 ? 1 : 0, filtered)
                    }
                    if first > 0 { return filter(base + (first - 1) * rowBytes) }
                    guard let above else { return filter(nil) }
                    return above.withUnsafeBufferPointer { filter($0.baseAddress) }
                }
            }
            guard status == 0 else { throw ImageError(message: "cannot write PNG: out of memory") }
            return out
        }
        let (window, level) = (window, level)
        let deflated = try Jobs.current.map(pieces) { index -> (bytes: [UInt8], adler: UInt32) in
            let data = filtered[index]
            let capacity = tsr_png_deflate_bound(data.count)
            var out = [UInt8](unsafeUninitializedCapacity: capacity) { _, initialized in initialized = capacity }
            var adler: UInt32 = 0
            let produced = data.withUnsafeBufferPointer { data in
                (index == 0 ? window : filtered[index - 1]).withUnsafeBufferPointer { dictionary in
                    out.withUnsafeMutableBufferPointer { target in
                        tsr_png_deflate_piece(
                            data.baseAddress, data.count, dictionary.baseAddress, dictionary.count, Int32(level),
                            last && index == pieces - 1 ? 1 : 0, target.baseAddress, capacity, &adler)
                    }
                }
            }
            guard produced >= 0 else { throw ImageError(message: "cannot write PNG: zlib failed to compress") }
            // Only what zlib wrote goes to the file.
            out.removeLast(capacity - produced)
            return (out, adler)
        }
        if !started {
            try Self.zlibHeader(level: level).withUnsafeBytes { try write($0) }
            started = true
        }
        for (piece, data) in zip(deflated, filtered) {
            try piece.bytes.withUnsafeBytes { try write($0) }
            adler = tsr_adler32_combine(adler, piece.adler, data.count)
        }
        if last {
            let checksum = [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: adler >> $0) }
            try checksum.withUnsafeBytes { try write($0) }
        }
        previousRow = Array(rows[(count - 1) * rowBytes..<count * rowBytes])
        self.window = Self.tail(of: filtered, after: window)
    }

    /// The last 32 KB of `window` followed by `pieces`.
    private static func tail(of pieces: [[UInt8]], after window: [UInt8]) -> [UInt8] {
        var tail: [UInt8] = []
        for piece in pieces.reversed() where tail.count < windowBytes {
            tail = piece.suffix(windowBytes - tail.count) + tail
        }
        if tail.count < windowBytes { tail = window.suffix(windowBytes - tail.count) + tail }
        return tail
    }

    /// A zlib header for a 32 KB window, its level field as zlib writes it for `level`.
    private static func zlibHeader(level: Int) -> [UInt8] {
        let compression = 0x78
        let levelField = level < 2 ? 0 : level < 6 ? 1 : level == 6 ? 2 : 3
        var flags = levelField << 6
        flags += (31 - (compression * 256 + flags) % 31) % 31
        return [UInt8(compression), UInt8(flags)]
    }
}
