import Dispatch
import Synchronization
import TesseraCore

/// A node's output as the scheduler serves it: every region rendered is timed and traced, cancellation
/// is checked first, and, when readers would otherwise render the same pixels twice (overlapping
/// margins, several readers, a front-to-back decoder), regions come from a cache of grid cells.
final class ScheduledSource: PixelSource {
    let node: String
    let op: String
    let inner: any PixelSource
    let extent: Rect
    let channels: Int
    private let monitor: RunMonitor
    private let cache = Mutex<TileCache?>(nil)
    /// For a front-to-back source: the first cell row not yet asked of it.
    private let nextSequentialRow = Atomic<Int>(0)

    init(node: String, op: String, image: Image, monitor: RunMonitor) {
        self.node = node
        self.op = op
        self.inner = image.source
        self.extent = image.extent
        self.channels = image.channels
        self.monitor = monitor
        if image.source.prefersSequentialRows || readsWholeRows { enableCache(rows: 2) }
    }

    /// Whether the source decodes whole rows at a time (a TIFF in strips): tiles across the width would
    /// each decode the same strips again, so it is asked for full-width cells instead.
    private var readsWholeRows: Bool {
        guard let preferred = inner.preferredTileSize else { return false }
        return preferred.width >= extent.width && extent.width > monitor.options.tileSize
    }

    var preferredTileSize: (width: Int, height: Int)? { inner.preferredTileSize }

    /// Keeps at least `rows` rows of cells (a reader's margin plus the row it renders).
    func enableCache(rows: Int) {
        let tile = monitor.options.tileSize
        let fullWidth = inner.prefersSequentialRows || readsWholeRows
        cache.withLock { cache in
            let cellWidth = fullWidth ? extent.width : tile
            let perRow = (extent.width + cellWidth - 1) / cellWidth
            let capacity = perRow * Swift.max(rows, cache?.rows ?? 0, 2)
            if let existing = cache, existing.capacity >= capacity { return }
            cache = TileCache(cellWidth: cellWidth, cellHeight: tile, rows: rows, capacity: capacity)
        }
    }

    func render(into target: inout PixelBuffer) throws {
        if monitor.cancellation.isCancelled { throw CancellationError() }
        guard let cache = cache.withLock({ $0 }) else {
            try renderInner(into: &target)
            return
        }
        // Time spent here, rendering cells or waiting for another worker's, is not the reader's own.
        let worker = Worker.current
        let childrenBefore = worker.childNanos
        let begin = DispatchTime.now().uptimeNanoseconds
        defer { worker.childNanos = childrenBefore + (DispatchTime.now().uptimeNanoseconds - begin) }
        let cells = target.region.gridCells(width: cache.cellWidth, height: cache.cellHeight)
        if inner.prefersSequentialRows, let last = cells.last {
            // Ask a front-to-back decoder for every row of cells in order, never going back up.
            let lastRow = last.minY / cache.cellHeight
            var row = nextSequentialRow.load(ordering: .relaxed)
            while row < lastRow {
                _ = try cell(column: 0, row: row, cache: cache)
                row += 1
                nextSequentialRow.store(row, ordering: .relaxed)
            }
            nextSequentialRow.store(Swift.max(row, lastRow + 1), ordering: .relaxed)
        }
        for part in cells {
            let buffer = try cell(
                column: part.minX / cache.cellWidth, row: part.minY / cache.cellHeight, cache: cache)
            target.copy(from: buffer)
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
        try monitor.measure(node: node, op: op, region: target.region) {
            try inner.render(into: &target)
        }
    }
}

/// Rendered cells of one image, least recently used dropped first. A cell being rendered by one worker
/// is waited for by the others, never rendered twice at once.
final class TileCache: Sendable {
    struct Key: Hashable {
        var column: Int
        var row: Int
    }

    private final class Pending: Sendable {
        let group = DispatchGroup()
        let result = Mutex<Result<PixelBuffer, any Error>?>(nil)
    }

    private enum Entry {
        case ready(PixelBuffer, lastUse: Int)
        case pending(Pending)
    }

    private struct State {
        var entries: [Key: Entry] = [:]
        var clock = 0
        var bytes = 0
        /// Evicted cells' storage, handed out again so big cells are not allocated (and page-faulted)
        /// anew each time.
        var spare: [PixelBuffer] = []
    }

    let cellWidth: Int
    let cellHeight: Int
    let rows: Int
    let capacity: Int
    private let state = Mutex(State())

    init(cellWidth: Int, cellHeight: Int, rows: Int, capacity: Int) {
        self.cellWidth = cellWidth
        self.cellHeight = cellHeight
        self.rows = rows
        self.capacity = capacity
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
            case wait(Pending)
            case compute(Pending)
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
                let pending = Pending()
                pending.group.enter()
                state.entries[key] = .pending(pending)
                return .compute(pending)
            }
        }
        switch step {
        case .hit(let buffer):
            return buffer
        case .wait(let pending):
            pending.group.wait()
            guard let result = pending.result.withLock({ $0 }) else { throw CancellationError() }
            return try result.get()
        case .compute(let pending):
            let result = Result { try compute() }
            pending.result.withLock { $0 = result }
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
            pending.group.leave()
            held(bytes)
            return try result.get()
        }
    }

    private func evict(_ state: inout State) {
        while state.entries.count > capacity {
            var oldest: (Key, Int, Int)?
            for (key, entry) in state.entries {
                if case .ready(let buffer, let lastUse) = entry, lastUse < oldest?.1 ?? .max {
                    oldest = (key, lastUse, buffer.samples.count)
                }
            }
            guard let (key, _, count) = oldest else { return }
            if case .ready(let buffer, _)? = state.entries[key], state.spare.count < 2 { state.spare.append(buffer) }
            state.entries[key] = nil
            state.bytes -= count * MemoryLayout<Float>.size
        }
    }
}

/// An image as a sink or a global node reads it: requests are served from bands, one row of tiles
/// each, whose tiles render in parallel on the scheduler's workers. Writers ask for a few rows at a
/// time (a strip, 64 PNG rows); a band is kept until a request starts below it. For a sink, the next
/// band renders in the background while the writer encodes the current one, as libvips' write-behind.
final class ParallelSource: PixelSource {
    let image: Image
    private let monitor: RunMonitor
    private let countsProgress: Bool
    private let state = Mutex(State())

    /// Bands larger than this are not rendered ahead: memory matters more than overlap for images
    /// that wide.
    static let prefetchLimit = 64 << 20

    private struct State {
        /// Rendered bands by tile row, all spanning the same columns.
        var bands: [Int: PixelBuffer] = [:]
        /// The band rendering in the background, and its tile row.
        var ahead: (row: Int, work: Ahead)?
        /// Storage of bands no longer needed, reused for the next ones.
        var spare: [PixelBuffer] = []

        mutating func buffer(for rows: Rect, channels: Int) -> PixelBuffer {
            var buffer = spare.popLast() ?? PixelBuffer(region: .empty, channels: channels)
            buffer.reshape(to: rows)
            return buffer
        }

        mutating func recycle(_ buffer: PixelBuffer) {
            if spare.count < 2 { spare.append(buffer) }
        }

        /// Waits for the background band; keeps it if it rendered.
        mutating func settleAhead() {
            guard let (row, work) = ahead else { return }
            work.group.wait()
            ahead = nil
            // A failed band is rendered again when asked for, and its error reaches the writer then.
            if case .success(let buffer)? = work.result.withLock({ $0 }) { bands[row] = buffer }
        }
    }

    private final class Ahead: Sendable {
        let group = DispatchGroup()
        let result = Mutex<Result<PixelBuffer, any Error>?>(nil)
    }

    init(image: Image, monitor: RunMonitor, countsProgress: Bool) {
        self.image = image
        self.monitor = monitor
        self.countsProgress = countsProgress
    }

    func render(into target: inout PixelBuffer) throws {
        // Checked on every request, not only per tile: a writer may still be encoding rows long after
        // its last tile rendered, and Ctrl-C must stop it too.
        if monitor.cancellation.isCancelled { throw CancellationError() }
        let tile = monitor.options.tileSize
        let region = target.region
        let firstRow = region.minY / tile
        let lastRow = (region.maxY - 1) / tile
        try state.withLock { state in
            if let columns = state.bands.values.first?.region,
                columns.minX != region.minX || columns.width != region.width
            {
                state.settleAhead()
                for band in state.bands.values { state.recycle(band) }
                state.bands = [:]
            }
            // Bands above the request are done: their storage serves the next band at once.
            for row in state.bands.keys where row < firstRow {
                if let band = state.bands.removeValue(forKey: row) { state.recycle(band) }
            }
            for row in firstRow...lastRow {
                if state.bands[row] == nil, state.ahead?.row == row { state.settleAhead() }
                if state.bands[row] == nil {
                    var band = state.buffer(for: bandRect(row: row, columns: region), channels: image.channels)
                    try renderTiles(into: &band)
                    state.bands[row] = band
                }
                if let band = state.bands[row] { target.copy(from: band) }
            }
            startAhead(row: lastRow + 1, columns: region, state: &state)
        }
    }

    private func bandRect(row: Int, columns: Rect) -> Rect {
        let tile = monitor.options.tileSize
        return Rect(
            x: columns.minX, y: row * tile, width: columns.width, height: Swift.min(tile, image.height - row * tile))
    }

    /// Starts rendering band `row` in the background, for a sink whose bands are small enough.
    private func startAhead(row: Int, columns: Rect, state: inout State) {
        let tile = monitor.options.tileSize
        // With one thread, one thread renders: no band is rendered beside the writer.
        guard countsProgress, monitor.options.threads > 1, row * tile < image.height, state.bands[row] == nil,
            state.ahead?.row != row,
            columns.width * tile * image.channels * MemoryLayout<Float>.size <= Self.prefetchLimit
        else { return }
        state.settleAhead()
        let work = Ahead()
        work.group.enter()
        monitor.background.enter()
        let monitor = self.monitor
        // Captured as a variable, so the closure holds the only reference and renders in place.
        nonisolated(unsafe) var storage = state.buffer(
            for: bandRect(row: row, columns: columns), channels: image.channels)
        DispatchQueue.global().async {
            let result = Result { () throws -> PixelBuffer in
                try self.renderTiles(into: &storage)
                defer { storage = PixelBuffer(region: .empty, channels: storage.channels) }
                return storage
            }
            work.result.withLock { $0 = result }
            work.group.leave()
            monitor.background.leave()
        }
        state.ahead = (row, work)
    }

    /// Renders `buffer.region` as grid tiles spread over the workers.
    private func renderTiles(into buffer: inout PixelBuffer) throws {
        let tile = monitor.options.tileSize
        let tiles = buffer.region.gridCells(width: tile, height: tile)
        let next = Atomic<Int>(0)
        let failure = Mutex<(any Error)?>(nil)
        let workers = Swift.min(monitor.options.threads, tiles.count)
        let region = buffer.region
        let rowLength = buffer.rowLength
        let channels = buffer.channels
        let image = self.image
        let monitor = self.monitor
        let countsProgress = self.countsProgress
        buffer.samples.withUnsafeMutableBufferPointer { samples in
            guard let base = samples.baseAddress else { return }
            let target = SharedPointer(base: base)
            let work: @Sendable (Int) -> Void = { index in
                let worker = Worker.current
                let outerID = worker.id
                worker.id = index + 1
                defer { worker.id = outerID }
                var scratch = PixelBuffer(region: .empty, channels: channels)
                while true {
                    let i = next.add(1, ordering: .relaxed).oldValue
                    if i >= tiles.count || failure.withLock({ $0 != nil }) { break }
                    let part = tiles[i]
                    do {
                        if monitor.cancellation.isCancelled || monitor.isFinished { throw CancellationError() }
                        scratch.reshape(to: part)
                        try image.render(into: &scratch)
                    } catch {
                        failure.withLock { $0 = $0 ?? error }
                        break
                    }
                    scratch.samples.withUnsafeBufferPointer { from in
                        guard let source = from.baseAddress else { return }
                        let length = part.width * channels
                        for row in 0..<part.height {
                            let offset =
                                (part.minY + row - region.minY) * rowLength + (part.minX - region.minX) * channels
                            (target.base + offset).update(from: source + row * length, count: length)
                        }
                    }
                    if countsProgress { monitor.advance(pixels: part.area) }
                }
            }
            if workers == 1 {
                // One worker runs on a Dispatch thread too, never on the caller's: on the main thread
                // glibc's heap hands each tile's freed buffers back to the kernel, and faulting them in
                // again for the next tile cost more system time than the tile itself.
                let done = DispatchGroup()
                DispatchQueue.global().async(group: done) { work(0) }
                done.wait()
            } else {
                DispatchQueue.concurrentPerform(iterations: workers, execute: work)
            }
        }
        if let error = failure.withLock({ $0 }) { throw error }
    }
}

/// The base of a buffer that workers write disjoint tiles into.
private struct SharedPointer: @unchecked Sendable {
    let base: UnsafeMutablePointer<Float>
}
