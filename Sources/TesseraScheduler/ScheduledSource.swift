import Synchronization
import TesseraCore

/// A node's output as the scheduler serves it: every region rendered is timed and traced, cancellation
/// is checked first, and, when readers would otherwise render the same pixels twice (overlapping
/// margins, several readers, a front-to-back decoder), regions come from a cache of grid cells.
package final class ScheduledSource: PixelSource {
    let node: String
    let op: String
    let inner: any PixelSource
    let extent: Rect
    let channels: Int
    private let monitor: RunMonitor
    private let cache = Locked<TileCache?>(nil)
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
        if image.source.prefersSequentialRows { enableCache(readHeight: monitor.options.tileSize) }
    }

    package var preferredTileSize: (width: Int, height: Int)? { inner.preferredTileSize }

    /// Caches cells for readers whose tiles each ask for up to `readHeight` rows (``RenderPlan/Window``,
    /// which `tessera run --plan` prints).
    package func enableCache(readHeight: Int) {
        cache.withLock { cache in
            let window = RenderPlan.Window(
                readHeight: readHeight, tileSize: monitor.options.tileSize, width: extent.width,
                height: extent.height, sequential: inner.prefersSequentialRows, channels: channels, after: cache?.window
            )
            if let existing = cache, existing.capacity >= window.cells { return }
            cache = TileCache(window)
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
        guard let cache = cache.withLock({ $0 }) else {
            try renderInner(into: &target)
            return
        }
        try forEachCell(of: target.region, width: cache.cellWidth, height: cache.cellHeight) { column, row, part in
            let buffer = try cell(column: column, row: row, cache: cache)
            if part { target.copy(from: buffer) }
        }
    }

    private func render(into target: inout PixelBuffer, from store: ImageStore) throws {
        // Taken at a whole cell's size, so that reshaping it to each cell never grows (zero-fills) it.
        var scratch = PixelBuffer.scratch(
            region: Rect(x: 0, y: 0, width: store.cellWidth, height: store.cellHeight), channels: channels)
        defer { scratch.recycle() }
        try forEachCell(of: target.region, width: store.cellWidth, height: store.cellHeight) { column, row, _ in
            try store.ensure(column: column, row: row, scratch: &scratch) { try renderInner(into: &$0) }
        }
        store.read(into: &target)
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

    private func cell(column: Int, row: Int, cache: TileCache) throws -> PixelBuffer {
        try cache.cell(TileCache.Key(column: column, row: row)) { bytes in
            monitor.recordCache(node: node, op: op, bytes: bytes)
        } compute: {
            let region = Rect(
                x: column * cache.cellWidth, y: row * cache.cellHeight, width: cache.cellWidth,
                height: cache.cellHeight
            ).intersection(extent)
            var buffer = cache.recycledBuffer(channels: channels)
            buffer.reshape(to: region)
            try renderInner(into: &buffer)
            return buffer
        }
    }

    private func renderInner(into target: inout PixelBuffer) throws {
        do {
            try monitor.measure(node: node, op: op, region: target.region) {
                try inner.render(into: &target)
            }
        } catch let error as RenderFailure {
            throw error
        } catch let error as CancellationError {
            throw error
        } catch {
            throw RenderFailure(node: node, error: error)
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
final class TileCache: Sendable {
    struct Key: Hashable {
        var column: Int
        var row: Int
    }

    private enum Entry {
        case ready(PixelBuffer, lastUse: Int)
        case pending(Pending<PixelBuffer>)
    }

    private struct State {
        var entries: [Key: Entry] = [:]
        var clock = 0
        var bytes = 0
        /// Evicted cells' storage, handed out again so big cells are not allocated (and page-faulted)
        /// anew each time. Shared by the workers, unlike their spares (``PixelBuffer/scratch``): one
        /// worker may drop the cells another renders next.
        var spare: [PixelBuffer] = []
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

    /// A buffer to render a new cell into: an evicted cell's storage when there is one (its samples are
    /// stale; the caller overwrites them all).
    func recycledBuffer(channels: Int) -> PixelBuffer {
        state.withLock { $0.spare.popLast() } ?? PixelBuffer(region: .empty, channels: channels)
    }

    /// The cell at `key`, rendered by `compute` if no one has it; `held` learns the bytes cached.
    func cell(
        _ key: Key, held: (Int) -> Void, compute: () throws -> PixelBuffer
    ) throws -> PixelBuffer {
        enum Step {
            case hit(PixelBuffer)
            case wait(Pending<PixelBuffer>)
            case compute(Pending<PixelBuffer>)
        }
        let step = state.withLock { state -> Step in
            state.clock += 1
            switch state.entries[key] {
            case .ready(let buffer, _)?:
                state.entries[key] = .ready(buffer, lastUse: state.clock)
                return .hit(buffer)
            case .pending(let pending)?:
                return .wait(pending)
            case nil:
                let pending = Pending<PixelBuffer>()
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
                    state.bytes += buffer.samples.count * MemoryLayout<Float>.size
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
                oldest = (key, lastUse, buffer.samples.count)
            }
            guard let (key, _, count) = oldest else { return }
            if case .ready(let buffer, _)? = state.entries.removeValue(forKey: key), state.spare.count < 2 {
                state.spare.append(buffer)
            }
            state.bytes -= count * MemoryLayout<Float>.size
        }
    }
}
