import TesseraCore

#if canImport(Glibc)
    import Glibc
#endif

/// An image kept whole once rendered: the plan's "materialize" (``RenderPlan``). Cells are rendered
/// once, on first request, and stored in the image's file sample type where that is exact (a 27
/// megapixel 8-bit RGB photo takes 81 MB, not the 432 MB of Float32 RGBA), then served to every
/// reader in every pass by converting the rows asked for.
///
/// The bytes are in memory or, past the run's disk threshold, in a temporary file mapped into memory
/// and unlinked as soon as it is made: the kernel frees it on any exit, a crash or a kill included.
final class ImageStore: Sendable {
    let extent: Rect
    let cellWidth: Int
    let cellHeight: Int
    let format: SampleFormat
    private let memory: StoreMemory
    private let rowBytes: Int
    private let encoder: SampleEncoder
    private let columns: Int
    private let cells: Locked<[CellState]>

    private enum CellState {
        case empty
        case pending(Pending<Void>)
        case ready
    }

    /// A store for an image of `extent` with `channels` channels in memory, kept in `format` (its file
    /// samples, or Float32), cells of `cellWidth` x `cellHeight`; throws when the bytes cannot be had
    /// (memory, or a temporary file when `inFile`).
    /// Without `allocate`, the store only says what it would hold (for a plan made without running).
    init(
        extent: Rect, format: SampleFormat, channels: Int, cellWidth: Int, cellHeight: Int, inFile: Bool,
        allocate: Bool = true
    ) throws {
        self.extent = extent
        self.cellWidth = cellWidth
        self.cellHeight = cellHeight
        self.format = format
        rowBytes = saturatingProduct(extent.width, format.bytesPerPixel)
        memory = try StoreMemory(bytes: allocate ? saturatingProduct(rowBytes, extent.height) : 1, inFile: inFile)
        isAllocated = allocate
        encoder = Samples.encoder(channels: channels, fileChannels: format.bands, depth: format.depth)
        columns = (extent.width + cellWidth - 1) / cellWidth
        let rows = (extent.height + cellHeight - 1) / cellHeight
        cells = Locked(Array(repeating: .empty, count: columns * rows))
    }

    var bytes: Int { memory.count }
    /// False for a store that only says what it would hold (a plan made without running).
    let isAllocated: Bool

    /// Marks the cell at (`column`, `row`) stored, in a store not allocated: a plan made without running
    /// passes on to its next pass what this one would have stored.
    func markPlanned(column: Int, row: Int) {
        guard !isAllocated else { return }
        cells.withLock { $0[row * columns + column] = .ready }
    }

    /// Whether the cell at (`column`, `row`) is stored.
    func isReady(column: Int, row: Int) -> Bool {
        cells.withLock { cells in
            let index = row * columns + column
            guard cells.indices.contains(index), case .ready = cells[index] else { return false }
            return true
        }
    }

    /// Makes sure the cell at (`column`, `row`) is stored: rendered by `compute` into `scratch` and
    /// encoded, if no one has it, waited for if another worker is rendering it.
    func ensure(
        column: Int, row: Int, scratch: inout PixelBuffer, compute: (inout PixelBuffer) throws -> Void
    ) throws {
        try ensure(column: column, row: row) { region, bytes, rowBytes in
            scratch.reshape(to: region)
            try compute(&scratch)
            scratch.encodeRows(with: encoder, into: bytes, rowBytes: rowBytes)
        }
    }

    /// Makes sure the cell at (`column`, `row`) is stored: `write` writes its region's samples in the
    /// store's format to the bytes given, rows `rowBytes` apart, if no one has it; waited for if another
    /// worker is writing it.
    func ensure(
        column: Int, row: Int,
        write: (_ region: Rect, _ bytes: UnsafeMutableRawPointer, _ rowBytes: Int) throws -> Void
    ) throws {
        let index = row * columns + column
        enum Step {
            case done
            case wait(Pending<Void>)
            case compute(Pending<Void>)
        }
        let step = cells.withLock { cells -> Step in
            switch cells[index] {
            case .ready: return .done
            case .pending(let pending): return .wait(pending)
            case .empty:
                let pending = Pending<Void>()
                cells[index] = .pending(pending)
                return .compute(pending)
            }
        }
        switch step {
        case .done:
            return
        case .wait(let pending):
            try pending.wait()
        case .compute(let pending):
            do {
                let region = Rect(x: column * cellWidth, y: row * cellHeight, width: cellWidth, height: cellHeight)
                    .intersection(extent)
                try write(region, memory.base + region.minY * rowBytes + region.minX * format.bytesPerPixel, rowBytes)
                cells.withLock { $0[index] = .ready }
                pending.fulfil(.success(()))
            } catch {
                cells.withLock { $0[index] = .empty }
                pending.fulfil(.failure(error))
                throw error
            }
        }
    }

    /// Whether `encoder` writes the samples as stored, so that ``copy(_:into:rowBytes:)`` serves it.
    func holds(_ encoder: SampleEncoder) -> Bool { encoder.packed == format }

    /// Copies the stored bytes of `region`, whose cells must all be stored, to `bytes`, rows
    /// `rowBytes` apart.
    func copy(_ region: Rect, into bytes: UnsafeMutableRawPointer, rowBytes: Int) {
        samples.copy(region, into: bytes, rowBytes: rowBytes)
    }

    /// Copies `target.region`, whose cells must all be stored, into `target`.
    func read(into target: inout PixelBuffer) {
        samples.decode(into: &target)
    }

    /// The whole image's stored samples.
    private var samples: PackedSamples {
        PackedSamples(region: extent, format: format, base: memory.base, rowBytes: rowBytes)
    }
}

/// The bytes of an ``ImageStore``: allocated, or a temporary file mapped into memory.
private final class StoreMemory: @unchecked Sendable {
    let base: UnsafeMutableRawPointer
    let count: Int
    let inFile: Bool

    init(bytes: Int, inFile: Bool) throws {
        count = Swift.max(1, bytes)
        self.inFile = inFile
        guard bytes < Int.max else {
            throw ImageError(message: "the image is too large to keep whole (its size overflows)")
        }
        if !inFile {
            // Not zeroed: every cell is written before it is read, and untouched pages cost nothing.
            guard let pointer = malloc(count) else {
                throw ImageError(message: "no memory to keep the image whole (\(count) bytes)")
            }
            base = pointer
            return
        }
        let folder = getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
        var template = Array((folder + "/tessera-image-XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { name in name.baseAddress.map { mkstemp($0) } ?? -1 }
        guard fd >= 0 else {
            throw ImageError(
                message: "cannot make a temporary file in \(folder) to keep the image whole: \(Self.lastError)")
        }
        defer { close(fd) }
        // Unlinked at once: the mapping keeps the data, and no exit can leave the file behind.
        template.withUnsafeBufferPointer { name in _ = name.baseAddress.map { unlink($0) } }
        // Blocks reserved now: a sparse file would meet a full disk as SIGBUS on some later write.
        let reserved = posix_fallocate(fd, 0, off_t(count))
        guard reserved == 0 else {
            throw ImageError(
                message: "cannot reserve \(count) bytes in \(folder) to keep the image whole: "
                    + String(cString: strerror(reserved)))
        }
        guard let mapped = mmap(nil, count, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0), mapped != MAP_FAILED else {
            throw ImageError(message: "cannot map a temporary file of \(count) bytes: \(Self.lastError)")
        }
        base = mapped
    }

    private static var lastError: String { String(cString: strerror(errno)) }

    deinit {
        if inFile { munmap(base, count) } else { free(base) }
    }
}
