import Synchronization
import TesseraCore

/// A node's output as the scheduler serves it: every region rendered is timed and traced, cancellation
/// is checked first, and, when readers would otherwise render the same pixels twice (overlapping
/// margins, several readers, a front-to-back decoder), regions come from a cache of grid cells.
package final class ScheduledSource: PixelSource {
    let node: String
    let op: String
    /// An image inside the node's chain of kernels (a resize's rows pass), not its output.
    let isStage: Bool
    let inner: any PixelSource
    let extent: Rect
    let channels: Int
    /// The image's native format, in which its cache keeps cells; nil when it has none (computed
    /// pixels) or the run renders Float32 tiles only (``RunOptions/floatTiles``).
    let format: SampleFormat?
    /// Writes the image's pixels in ``format``.
    private let packer: SampleEncoder?
    private let layout: PixelLayout
    private let depth: SampleDepth
    /// The run in progress: a prepared graph's images serve one run after another.
    private let link: RunLink
    private var monitor: RunMonitor { link.monitor }
    /// How the current pass serves it (``PassPlan``): cells kept, or nothing.
    private let cache = Locked<Cache?>(nil)
    /// Set when it is kept whole: for the run (the run's plan: read in several passes) or for a pass.
    private let store = Locked<(store: ImageStore, forRun: Bool)?>(nil)
    /// For a front-to-back source: the first cell row not yet asked of it. Its lock is held while a worker
    /// walks the rows above its request, so that two workers never walk the same rows (two tiles of one
    /// band asked at once), where a cell the store no longer holds would be decoded twice.
    private let nextSequentialRow = Locked<Int>(0)

    package init(node: String, op: String, image: Image, link: RunLink, isStage: Bool = false) {
        self.node = node
        self.op = op
        self.isStage = isStage
        self.inner = image.source
        self.extent = image.extent
        self.channels = image.channels
        self.layout = image.layout
        self.depth = image.depth
        self.link = link
        format = link.monitor.options.floatTiles ? nil : image.nativeFormat
        packer = format.map { image.encoder(for: $0) }
    }

    package var preferredTileSize: (width: Int, height: Int)? { inner.preferredTileSize }
    package var keptChunkCount: Int { inner.keptChunkCount }
    /// The cache and the store give back the samples rendered, so these are file samples if those are.
    package var givesFileSamples: Bool { inner.givesFileSamples }

    /// The store that keeps it whole for the run, if the run's plan keeps it.
    var keptStore: ImageStore? { store.withLock { $0?.forRun == true ? $0?.store : nil } }

    /// Serves the pass about to start as its plan decided (``PassPlan``): caches of an earlier pass are
    /// dropped first.
    func serve(_ decision: ServingDecision, _ progress: PassProgress) throws {
        endPass()
        if keptStore != nil { return }
        nextSequentialRow.withLock { $0 = 0 }
        switch decision {
        case .stream:
            break
        case .cells(let width, let height, let keepFrom):
            let horizon = Horizon(keepFrom: keepFrom, progress: progress)
            cache.withLock { cache in
                if let format {
                    cache = .packed(TileCache(cellWidth: width, cellHeight: height, horizon: horizon), format)
                } else {
                    cache = .floats(TileCache(cellWidth: width, cellHeight: height, horizon: horizon))
                }
            }
        case .whole(let cellWidth, let cellHeight, let inFile):
            let made = try ImageStore(
                extent: extent, format: format ?? SampleFormat(depth: .float32, bands: channels), channels: channels,
                cellWidth: cellWidth, cellHeight: cellHeight, inFile: inFile)
            store.withLock { $0 = (made, false) }
            monitor.recordCache(node: node, op: op, bytes: made.bytes)
        }
    }

    /// Drops what the pass kept (not a store the run keeps).
    func endPass() {
        cache.withLock { $0 = nil }
        store.withLock { if $0?.forRun == false { $0 = nil } }
    }

    /// Keeps the image whole for the run once rendered (the plan's "materialize"), in cells as the
    /// cache's.
    /// Without `allocate`, it is only marked kept (for a plan made without running).
    package func materialize(_ facts: RenderPlan.SourceFacts, inFile: Bool, allocate: Bool = true) throws {
        let tile = monitor.options.tileSize
        let made = try ImageStore(
            extent: extent, format: format ?? facts.storedFormat, channels: channels,
            cellWidth: inner.prefersSequentialRows ? extent.width : tile, cellHeight: tile, inFile: inFile,
            allocate: allocate)
        store.withLock { $0 = (made, true) }
        if allocate { monitor.recordCache(node: node, op: op, bytes: made.bytes) }
    }

    package func render(into target: inout PixelBuffer) throws {
        if monitor.cancellation.isCancelled { throw CancellationError() }
        if let store = store.withLock({ $0?.store }) {
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
        let stored = store.withLock { $0?.store }
        if let stored, stored.holds(encoder) {
            try fill(region, from: stored)
            stored.copy(region, into: bytes, rowBytes: rowBytes)
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
        if stored != nil || cached != nil {
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

    /// Makes sure every cell of the store that `region` touches is rendered: packed by the node's source
    /// where the store keeps its native format (a decoder copies its rows), else rendered and encoded.
    private func fill(_ region: Rect, from store: ImageStore) throws {
        let packed = packer.flatMap { store.holds($0) ? $0 : nil }
        // A source that writes its samples packed (a decoder copying its rows) needs no Float32 cell; one
        // that converts allocates it then. Otherwise it is taken at a whole cell's size, so that reshaping
        // it to each cell never grows (zero-fills) it.
        var scratch =
            packed != nil
            ? PixelBuffer(region: .empty, channels: channels)
            : PixelBuffer.scratch(
                region: Rect(x: 0, y: 0, width: store.cellWidth, height: store.cellHeight), channels: channels)
        defer { scratch.recycle() }
        try forEachCell(of: region, width: store.cellWidth, height: store.cellHeight) { column, row, _ in
            if let packed {
                try store.ensure(column: column, row: row) { cell, bytes, rowBytes in
                    try measured(cell) {
                        try inner.encode(cell, with: packed, scratch: &scratch, into: bytes, rowBytes: rowBytes)
                    }
                }
            } else {
                try store.ensure(column: column, row: row, scratch: &scratch) { try renderInner(into: &$0) }
            }
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
                try nextSequentialRow.withLock { next in
                    while next < lastRow {
                        try cell(0, next, false)
                        next += 1
                    }
                    next = Swift.max(next, lastRow + 1)
                }
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
            // Room for a source that converts Float32 pixels to write them, taken only if it does.
            var scratch = PixelBuffer(region: .empty, channels: channels)
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

/// The run a scheduled image serves now (its monitor: statistics, cancellation, options). A prepared
/// graph keeps its images from run to run and points their link at each run's monitor before anything
/// renders.
package final class RunLink: @unchecked Sendable {
    /// Set between runs, before any worker starts.
    package var monitor: RunMonitor

    package init(_ monitor: RunMonitor) { self.monitor = monitor }
}

/// The cells a source keeps for readers that would render them twice: Float32, or in the image's
/// native format (3 bytes a pixel for 8-bit RGB, where Float32 RGBA takes 16).
enum Cache: Sendable {
    case floats(TileCache<PixelBuffer>)
    case packed(TileCache<PackedCell>, SampleFormat)
}

/// An error thrown while rendering a node's pixels, with the node it came from: pixels render lazily,
/// when a sink reads them, and the error must name the node that failed, not the sink.
package struct RenderFailure: Error {
    package let node: String
    package let error: any Error
}

/// Rendered cells of one image during a pass, each rendered once and dropped once no band still to
/// finish reads its rows (``Horizon``). A cell being rendered by one worker is waited for by the others
/// (``Pending``), never rendered twice at once.
final class TileCache<Cell: CachedCell>: Sendable {
    struct Key: Hashable {
        var column: Int
        var row: Int
    }

    private enum Entry {
        case ready(Cell)
        case pending(Pending<Cell>)
    }

    private enum Step {
        case hit(Cell)
        case wait(Pending<Cell>)
        case compute(Pending<Cell>)
    }

    private struct State {
        /// By row of cells, then column.
        var rows: [Int: [Int: Entry]] = [:]
        /// Rows of cells above this one were dropped (or never kept).
        var firstKeptRow = 0
        var bytes = 0
        /// Dropped cells' storage, handed out again so big cells are not allocated (and page-faulted)
        /// anew each time. Shared by the workers, unlike their spares (``PixelBuffer/scratch``): one
        /// worker may drop the cells another renders next.
        var spare: [Cell] = []
    }

    let cellWidth: Int
    let cellHeight: Int
    private let horizon: Horizon?
    private let state = Locked(State())

    /// A cache of `cellWidth` x `cellHeight` cells that keeps the rows `horizon` says are still needed
    /// (all of them without one).
    init(cellWidth: Int, cellHeight: Int, horizon: Horizon?) {
        self.cellWidth = cellWidth
        self.cellHeight = cellHeight
        self.horizon = horizon
    }

    /// A dropped cell, to render a new cell into, when there is one (its samples are stale; the
    /// caller overwrites them all).
    func recycled() -> Cell? {
        state.withLock { $0.spare.popLast() }
    }

    /// The cell at `key`, rendered by `compute` if no one has it; `held` learns the bytes cached.
    func cell(
        _ key: Key, held: (Int) -> Void, compute: () throws -> Cell
    ) throws -> Cell {
        let step = state.withLock { state -> Step in
            switch state.rows[key.row]?[key.column] {
            case .ready(let buffer)?:
                return .hit(buffer)
            case .pending(let pending)?:
                return .wait(pending)
            case nil:
                let pending = Pending<Cell>()
                state.rows[key.row, default: [:]][key.column] = .pending(pending)
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
                    state.rows[key.row, default: [:]][key.column] = .ready(buffer)
                    state.bytes += buffer.byteCount
                    drop(&state)
                case .failure:
                    state.rows[key.row]?[key.column] = nil
                }
                return state.bytes
            }
            pending.fulfil(result)
            held(bytes)
            return try result.get()
        }
    }

    /// Drops the rows of cells that end above the first row a band not finished reads.
    private func drop(_ state: inout State) {
        guard let horizon else { return }
        let firstNeeded = horizon.firstNeededRow / cellHeight
        while state.firstKeptRow < firstNeeded {
            if let row = state.rows.removeValue(forKey: state.firstKeptRow) {
                // Storage is kept for the cells below, which are about to be rendered (the workers may be a
                // few rows of cells apart).
                for entry in row.values {
                    guard case .ready(let cell) = entry else { continue }
                    state.bytes -= cell.byteCount
                    if state.spare.count < Swift.max(2, 4 * row.count) { state.spare.append(cell) }
                }
            }
            state.firstKeptRow += 1
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
