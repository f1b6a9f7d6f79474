import Synchronization
import TesseraCore

/// A node's output as the scheduler serves it: every region rendered is timed and traced, cancellation
/// is checked first, and, when readers would otherwise render the same pixels twice (overlapping
/// margins, several readers, a front-to-back decoder), regions come from a cache of grid cells.
package final class ScheduledSource: PixelSource, KeepsDecodedRows {
    let node: String
    let op: String
    let inner: any PixelSource
    let extent: Rect
    let channels: Int
    /// The image's native format, in which its cache keeps cells; nil when it has none (computed
    /// pixels) or the run renders Float32 tiles only (``RunOptions/floatTiles``).
    let format: SampleFormat?
    /// Writes the image's pixels in ``format``.
    private let packer: SampleEncoder?
    private let monitor: RunMonitor
    private let cache = Locked<Cache?>(nil)
    /// Set when the plan keeps this image whole; then it serves every request, instead of the cache.
    private let store = Locked<ImageStore?>(nil)
    /// For a front-to-back source: the first cell row not yet asked of it.
    private let nextSequentialRow = Atomic<Int>(0)

    package init(node: String, op: String, image: Image, monitor: RunMonitor) {
        self.node = node
        self.op = op
        self.inner = image.source
        self.extent = image.extent
        self.channels = image.channels
        self.monitor = monitor
        format = monitor.options.floatTiles ? nil : image.nativeFormat
        packer = format.map { image.encoder(for: $0) }
        if image.source.prefersSequentialRows { enableCache(readHeight: monitor.options.tileSize) }
    }

    package var preferredTileSize: (width: Int, height: Int)? { inner.preferredTileSize }
    /// The cache and the store give back the samples rendered, so these are file samples if those are.
    package var givesFileSamples: Bool { inner.givesFileSamples }
    package var keptRows: Int { (inner as? any KeepsDecodedRows)?.keptRows ?? 0 }
    package func keepRows() { (inner as? any KeepsDecodedRows)?.keepRows() }

    /// Caches cells for readers whose tiles each ask for up to `readHeight` rows (``RenderPlan/Window``,
    /// which `tessera run --plan` prints).
    package func enableCache(readHeight: Int) {
        cache.withLock { cache in
            let window = RenderPlan.Window(
                readHeight: readHeight, tileSize: monitor.options.tileSize, width: extent.width,
                height: extent.height, sequential: inner.prefersSequentialRows,
                bytesPerPixel: format?.bytesPerPixel ?? channels * MemoryLayout<Float>.size, after: cache?.window)
            if let existing = cache, existing.window.cells >= window.cells { return }
            if let format {
                cache = .packed(TileCache(window), format)
            } else {
                cache = .floats(TileCache(window))
            }
        }
    }

    /// Keeps the image whole once rendered (the plan's "materialize"), in cells as the cache's.
    package func materialize(_ facts: RenderPlan.SourceFacts, inFile: Bool) throws {
        let tile = monitor.options.tileSize
        let made = try ImageStore(
            facts: facts, cellWidth: inner.prefersSequentialRows ? extent.width : tile, cellHeight: tile,
            inFile: inFile)
        store.withLock { $0 = made }
        monitor.recordCache(node: node, op: op, bytes: made.bytes)
    }

    package func render(into target: inout PixelBuffer) throws {
        if monitor.cancellation.isCancelled { throw CancellationError() }
        if let store = store.withLock({ $0 }) {
            try render(into: &target, from: store)
            return
        }
        switch cache.withLock({ $0 }) {
        case nil:
            try renderInner(into: &target)
        case .floats(let cache):
            try forEachCell(of: target.region, width: cache.cellWidth, height: cache.cellHeight) { column, row, part in
                let buffer = try cell(column: column, row: row, cache: cache)
                if part { target.copy(from: buffer) }
            }
        case .packed(let cache, _):
            try forEachCell(of: target.region, width: cache.cellWidth, height: cache.cellHeight) { column, row, part in
                let cell = try packedCell(column: column, row: row, cache: cache)
                if part { cell.decode(into: &target) }
            }
        }
    }

    /// Writes `region` packed: straight from the node's source when nothing is cached (a decoder
    /// copies its file's samples, a point node renders strips), else from the cells kept.
    package func encode(
        _ region: Rect, with encoder: SampleEncoder, scratch: inout PixelBuffer, into bytes: UnsafeMutableRawPointer,
        rowBytes: Int
    ) throws {
        if monitor.cancellation.isCancelled { throw CancellationError() }
        if let store = store.withLock({ $0 }), store.holds(encoder) {
            try fill(region, from: store)
            store.copy(region, into: bytes, rowBytes: rowBytes)
            return
        }
        let cached = cache.withLock { $0 }
        if case .packed(let cache, let format)? = cached, encoder.packed == format {
            try forEachCell(of: region, width: cache.cellWidth, height: cache.cellHeight) { column, row, part in
                let cell = try packedCell(column: column, row: row, cache: cache)
                if part { cell.copy(region, into: bytes, rowBytes: rowBytes) }
            }
            return
        }
        if store.withLock({ $0 }) != nil || cached != nil {
            try encodeRendering(region, with: encoder, scratch: &scratch, into: bytes, rowBytes: rowBytes)
            return
        }
        try measured(region) {
            try inner.encode(region, with: encoder, scratch: &scratch, into: bytes, rowBytes: rowBytes)
        }
    }

    private func render(into target: inout PixelBuffer, from store: ImageStore) throws {
        try fill(target.region, from: store)
        store.read(into: &target)
    }

    /// Makes sure every cell of the store that `region` touches is rendered.
    private func fill(_ region: Rect, from store: ImageStore) throws {
        // Taken at a whole cell's size, so that reshaping it to each cell never grows (zero-fills) it.
        var scratch = PixelBuffer.scratch(
            region: Rect(x: 0, y: 0, width: store.cellWidth, height: store.cellHeight), channels: channels)
        defer { scratch.recycle() }
        try forEachCell(of: region, width: store.cellWidth, height: store.cellHeight) { column, row, _ in
            try store.ensure(column: column, row: row, scratch: &scratch) { try renderInner(into: &$0) }
        }
    }

    /// Calls `cell` for each cell of the `width` x `height` grid that `region` touches (`part` true).
    /// For a front-to-back decoder it first calls it for every row of cells above those that was not
    /// asked for yet (`part` false), in order, so the decoder never goes back up. Time spent here,
    /// rendering cells or waiting for another worker's, is not the reader's own.
    private func forEachCell(
        of region: Rect, width: Int, height: Int, _ cell: (_ column: Int, _ row: Int, _ part: Bool) throws -> Void
    ) throws {
        try Worker.current.outsideOwnTime {
            let cells = region.gridCells(width: width, height: height)
            if inner.prefersSequentialRows, let last = cells.last {
                let lastRow = last.minY / height
                var row = nextSequentialRow.load(ordering: .relaxed)
                while row < lastRow {
                    try cell(0, row, false)
                    row += 1
                    nextSequentialRow.store(row, ordering: .relaxed)
                }
                nextSequentialRow.store(Swift.max(row, lastRow + 1), ordering: .relaxed)
            }
            for part in cells { try cell(part.minX / width, part.minY / height, true) }
        }
    }

    private func cell(column: Int, row: Int, cache: TileCache<PixelBuffer>) throws -> PixelBuffer {
        try cache.cell(TileCache.Key(column: column, row: row)) { bytes in
            monitor.recordCache(node: node, op: op, bytes: bytes)
        } compute: {
            let region = Rect(
                x: column * cache.cellWidth, y: row * cache.cellHeight, width: cache.cellWidth,
                height: cache.cellHeight
            ).intersection(extent)
            var buffer = cache.recycled() ?? PixelBuffer(region: .empty, channels: channels)
            buffer.reshape(to: region)
            try renderInner(into: &buffer)
            return buffer
        }
    }

    /// The cell at (`column`, `row`) in the image's native format, written by the node's source.
    private func packedCell(column: Int, row: Int, cache: TileCache<PackedCell>) throws -> PackedCell {
        try cache.cell(TileCache.Key(column: column, row: row)) { bytes in
            monitor.recordCache(node: node, op: op, bytes: bytes)
        } compute: {
            guard let format, let packer else { throw ImageError(message: "no format to keep cells in") }
            let region = Rect(
                x: column * cache.cellWidth, y: row * cache.cellHeight, width: cache.cellWidth,
                height: cache.cellHeight
            ).intersection(extent)
            var cell = cache.recycled() ?? PackedCell(format: format)
            cell.reshape(to: region)
            var scratch = PixelBuffer.scratch(region: region, channels: channels)
            defer { scratch.recycle() }
            let rowBytes = cell.rowBytes
            try cell.storage.withUnsafeMutableBytes { raw in
                guard let base = raw.baseAddress else { return }
                try measured(region) {
                    try inner.encode(region, with: packer, scratch: &scratch, into: base, rowBytes: rowBytes)
                }
            }
            return cell
        }
    }

    private func renderInner(into target: inout PixelBuffer) throws {
        try measured(target.region) { try inner.render(into: &target) }
    }

    /// Runs `body`, the node's own rendering of `region`: timed, and its errors named after the node.
    private func measured(_ region: Rect, _ body: () throws -> Void) throws {
        do {
            try monitor.measure(node: node, op: op, region: region, body)
        } catch let error as RenderFailure {
            throw error
        } catch let error as CancellationError {
            throw error
        } catch {
            throw RenderFailure(node: node, error: error)
        }
    }
}

/// The cells a source keeps for readers that would render them twice: Float32, or in the image's
/// native format (3 bytes a pixel for 8-bit RGB, where Float32 RGBA takes 16).
enum Cache: Sendable {
    case floats(TileCache<PixelBuffer>)
    case packed(TileCache<PackedCell>, SampleFormat)

    var window: RenderPlan.Window {
        switch self {
        case .floats(let cache): cache.window
        case .packed(let cache, _): cache.window
        }
    }
}

/// An error thrown while rendering a node's pixels, with the node it came from: pixels render lazily,
/// when a sink reads them, and the error must name the node that failed, not the sink.
package struct RenderFailure: Error {
    package let node: String
    package let error: any Error
}

/// Rendered cells of one image, the topmost dropped first. A cell being rendered by one worker
/// is waited for by the others (``Pending``), never rendered twice at once.
final class TileCache<Cell: CachedCell>: Sendable {
    struct Key: Hashable {
        var column: Int
        var row: Int
    }

    private enum Entry {
        case ready(Cell, lastUse: Int)
        case pending(Pending<Cell>)
    }

    private enum Step {
        case hit(Cell)
        case wait(Pending<Cell>)
        case compute(Pending<Cell>)
    }

    private struct State {
        var entries: [Key: Entry] = [:]
        var clock = 0
        var bytes = 0
        /// Evicted cells' storage, handed out again so big cells are not allocated (and page-faulted)
        /// anew each time. Shared by the workers, unlike their spares (``PixelBuffer/scratch``): one
        /// worker may drop the cells another renders next.
        var spare: [Cell] = []
    }

    /// Its cells' size and how many it keeps.
    let window: RenderPlan.Window
    var cellWidth: Int { window.cellWidth }
    var cellHeight: Int { window.cellHeight }
    var capacity: Int { window.cells }
    private let state = Locked(State())

    init(_ window: RenderPlan.Window) {
        self.window = window
    }

    /// An evicted cell, to render a new cell into, when there is one (its samples are stale; the
    /// caller overwrites them all).
    func recycled() -> Cell? {
        state.withLock { $0.spare.popLast() }
    }

    /// The cell at `key`, rendered by `compute` if no one has it; `held` learns the bytes cached.
    func cell(
        _ key: Key, held: (Int) -> Void, compute: () throws -> Cell
    ) throws -> Cell {
        let step = state.withLock { state -> Step in
            state.clock += 1
            switch state.entries[key] {
            case .ready(let buffer, _)?:
                state.entries[key] = .ready(buffer, lastUse: state.clock)
                return .hit(buffer)
            case .pending(let pending)?:
                return .wait(pending)
            case nil:
                let pending = Pending<Cell>()
                state.entries[key] = .pending(pending)
                return .compute(pending)
            }
        }
        switch step {
        case .hit(let buffer):
            return buffer
        case .wait(let pending):
            return try pending.wait()
        case .compute(let pending):
            let result = Result { try compute() }
            let bytes = state.withLock { state -> Int in
                switch result {
                case .success(let buffer):
                    state.entries[key] = .ready(buffer, lastUse: state.clock)
                    state.bytes += buffer.byteCount
                    evict(&state)
                case .failure:
                    state.entries[key] = nil
                }
                return state.bytes
            }
            pending.fulfil(result)
            held(bytes)
            return try result.get()
        }
    }

    /// Drops the topmost cells, least recently used first among them. Readers move down the image, so
    /// the top row is the one done with; plain LRU would drop cells at the ends of the rows below it,
    /// which workers starting the next band (one from each end) are about to read again.
    private func evict(_ state: inout State) {
        while state.entries.count > capacity {
            var oldest: (Key, Int, Int)?
            for (key, entry) in state.entries {
                guard case .ready(let buffer, let lastUse) = entry else { continue }
                if let current = oldest, (key.row, lastUse) >= (current.0.row, current.1) { continue }
                oldest = (key, lastUse, buffer.byteCount)
            }
            guard let (key, _, count) = oldest else { return }
            if case .ready(let buffer, _)? = state.entries.removeValue(forKey: key), state.spare.count < 2 {
                state.spare.append(buffer)
            }
            state.bytes -= count
        }
    }
}

/// What a ``TileCache`` keeps: Float32 pixels, or packed samples.
protocol CachedCell: Sendable {
    var byteCount: Int { get }
}

extension PixelBuffer: CachedCell {
    var byteCount: Int { samples.count * MemoryLayout<Float>.size }
}

/// A cache cell in the image's native format: `region.height` rows of `region.width` pixels, packed,
/// in storage of Float32 words (so evicted cells' storage is reused as the Float32 cells' is).
struct PackedCell: CachedCell {
    private(set) var region = Rect.empty
    let format: SampleFormat
    var storage: [Float] = []

    init(format: SampleFormat) { self.format = format }

    var rowBytes: Int { region.width * format.bytesPerPixel }
    var byteCount: Int { storage.count * MemoryLayout<Float>.size }

    /// Points the cell at `region`, keeping its storage when it is large enough (its bytes are stale;
    /// its count is the region's, which the cache counts).
    mutating func reshape(to region: Rect) {
        let words = (region.area * format.bytesPerPixel + 3) / 4
        if storage.capacity < words {
            storage = [Float](unsafeUninitializedCapacity: words) { _, initialized in initialized = words }
        } else {
            storage.resizeWithinCapacity(to: words)
        }
        self.region = region
    }

    private func withSamples(_ body: (PackedSamples) -> Void) {
        storage.withUnsafeBytes { raw in
            guard let base = raw.baseAddress else { return }
            body(PackedSamples(region: region, format: format, base: base, rowBytes: rowBytes))
        }
    }

    /// Decodes the part of the cell inside `target`'s region into it, as Float32.
    func decode(into target: inout PixelBuffer) {
        withSamples { $0.decode(into: &target) }
    }

    /// Copies the part of the cell inside `area` to `bytes`, which holds `area`'s pixels in the cell's
    /// format, rows `rowBytes` apart.
    func copy(_ area: Rect, into bytes: UnsafeMutableRawPointer, rowBytes: Int) {
        withSamples { $0.copy(area, into: bytes, rowBytes: rowBytes) }
    }
}
