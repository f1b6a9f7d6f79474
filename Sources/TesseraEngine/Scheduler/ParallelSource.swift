import Dispatch
import Synchronization
import TesseraCore

/// An image as a sink or a global node reads it: requests are served from bands, one row of tiles
/// each, whose tiles render on the scheduler's workers. Writers ask for a few rows at a time (a strip,
/// 64 PNG rows); a band is kept until a request starts below it.
///
/// Workers take tiles one after another, across band boundaries, so none waits at the end of a band
/// for the other's last tile. For a sink on several threads they run up to `window` bands ahead of the
/// writer, as libvips' write-behind: the writer encodes one band while the next ones render.
final class ParallelSource: PixelSource {
    let image: Image
    private let monitor: RunMonitor
    private let countsProgress: Bool
    private let tile: Int
    private let bandCount: Int
    /// Bands below the last one asked for that may render ahead of the reader.
    private let window: Int
    private let state: Mutex<State>
    /// Set by ``passThrough()``.
    private let direct = Atomic<Bool>(false)

    /// Bands rendered ahead of the writer take at most this much memory: for very wide images memory
    /// matters more than overlap.
    static let prefetchLimit = 64 << 20

    init(image: Image, monitor: RunMonitor, countsProgress: Bool) {
        self.image = image
        self.monitor = monitor
        self.countsProgress = countsProgress
        let tile = monitor.options.tileSize
        self.tile = tile
        bandCount = (image.height + tile - 1) / tile
        let bandBytes = Swift.max(1, image.width * tile * image.channels * MemoryLayout<Float>.size)
        // With one thread, one thread renders: nothing is rendered beside the writer.
        window =
            countsProgress && monitor.options.threads > 1 ? Swift.min(2, Self.prefetchLimit / bandBytes) : 0
        state = Mutex(State(freeIDs: Array((1...Swift.max(1, monitor.options.threads)).reversed())))
    }

    /// One row of tiles across the whole width, and the memory its tiles are written into.
    private final class Band: @unchecked Sendable {
        let region: Rect
        let tiles: [Rect]
        let storage: Storage
        /// Tiles not handed to workers yet are `tiles[front..<back]`; guarded by the source's state lock.
        var front = 0
        var back: Int
        /// Tiles not yet finished, rendered or abandoned; `done` is left when it reaches 0.
        private let unfinished: Atomic<Int>
        let done = DispatchGroup()

        init(region: Rect, tile: Int, storage: Storage) {
            self.region = region
            self.tiles = region.gridCells(width: tile, height: tile)
            self.storage = storage
            back = tiles.count
            unfinished = Atomic(tiles.count)
            done.enter()
        }

        var isComplete: Bool { unfinished.load(ordering: .acquiring) == 0 }

        func finish(_ count: Int) {
            guard count > 0 else { return }
            if unfinished.subtract(count, ordering: .acquiringAndReleasing).newValue == 0 { done.leave() }
        }

        /// The next tile for worker `id`: odd workers take tiles from the left, even ones from the right.
        /// Two workers then render tiles far apart, which share no input cells: neither waits for a cell
        /// the other is rendering (or, worse, for one whose worker the writer has preempted).
        func claim(id: Int) -> Rect? {
            guard front < back else { return nil }
            if id % 2 == 1 {
                front += 1
                return tiles[front - 1]
            }
            back -= 1
            return tiles[back]
        }

        /// Gives up the tiles no worker has taken.
        func abandonUnclaimed() {
            let unclaimed = back - front
            front = back
            finish(unclaimed)
        }
    }

    /// Samples that workers write disjoint tiles into at once, so not a Swift array. Not zeroed: the
    /// tiles cover every sample before a band is read, and the workers writing them fault its pages in,
    /// in parallel, instead of the writer zeroing tens of megabytes before the first tile starts.
    private final class Storage: @unchecked Sendable {
        let base: UnsafeMutablePointer<Float>
        let capacity: Int

        init(capacity: Int) {
            self.capacity = capacity
            base = .allocate(capacity: capacity)
        }

        deinit { base.deallocate() }
    }

    private struct State {
        var bands: [Int: Band] = [:]
        /// No band above this row has tiles left to hand out.
        var nextRow = 0
        /// Bands from this row down are not rendered yet.
        var limit = 0
        var workers = 0
        /// Worker numbers for traces: 1 up to the thread count.
        var freeIDs: [Int]
        var failure: (any Error)?
        /// Storage of bands that were read, for the next ones: allocating and faulting in tens of
        /// megabytes per band costs more than a tile.
        var spare: [Storage] = []
    }

    /// After a global node's run: later reads (from the workers rendering an image the node returned,
    /// which still reads this input) render straight from the input on the asking thread. Waiting there
    /// for bands that new Dispatch workers would render starves Dispatch's pool, whose threads are the
    /// ones waiting. The bands kept are dropped.
    func passThrough() {
        direct.store(true, ordering: .releasing)
        state.withLock { state in
            for band in state.bands.values { band.abandonUnclaimed() }
            state.bands = [:]
            state.spare = []
        }
    }

    func render(into target: inout PixelBuffer) throws {
        if direct.load(ordering: .acquiring) {
            try image.render(into: &target)
            return
        }
        // Checked on every request, not only per tile: a writer may still be encoding rows long after
        // its last tile rendered, and Ctrl-C must stop it too.
        if monitor.cancellation.isCancelled { throw CancellationError() }
        let region = target.region
        guard !region.isEmpty else { return }
        // Time in here (waiting for bands, copying them) is not the reading node's own: a sink's or a
        // global node's --stats time is its encoding or its own work.
        let worker = Worker.current
        let begin = DispatchTime.now().uptimeNanoseconds
        defer { worker.childNanos += DispatchTime.now().uptimeNanoseconds - begin }
        let firstRow = region.minY / tile
        let lastRow = (region.maxY - 1) / tile
        let (needed, spawn) = try state.withLock { state -> ([Band], [Int]) in
            if let failure = state.failure { throw failure }
            // Bands above the request were read: their storage serves the next bands.
            for (row, band) in state.bands where row < firstRow {
                state.bands[row] = nil
                band.abandonUnclaimed()
                if band.isComplete && state.spare.count < 2 { state.spare.append(band.storage) }
            }
            state.limit = Swift.max(state.limit, Swift.min(bandCount, lastRow + 1 + window))
            for row in firstRow..<Swift.max(firstRow, state.limit) where state.bands[row] == nil {
                state.bands[row] = makeBand(row: row, state: &state)
                state.nextRow = Swift.min(state.nextRow, row)
            }
            state.nextRow = Swift.max(state.nextRow, firstRow)
            var spawn: [Int] = []
            while state.workers < monitor.options.threads, let id = state.freeIDs.popLast() {
                state.workers += 1
                spawn.append(id)
            }
            return ((firstRow...lastRow).compactMap { state.bands[$0] }, spawn)
        }
        for id in spawn {
            monitor.background.enter()
            DispatchQueue.global().async {
                self.work(id: id)
                self.monitor.background.leave()
            }
        }
        var scratch: PixelBuffer?
        for band in needed {
            // Workers start within microseconds. If no tile was taken for a while, the caller is likely
            // one of Dispatch's own threads (a program running graphs from a queue) and the pool is
            // full of callers like it: it then renders the band's tiles itself, so the run never stalls.
            var unclaimed = Int.max
            var helping = false
            while helping || band.done.wait(timeout: .now() + .milliseconds(20)) == .timedOut {
                let part = state.withLock { state -> Rect? in
                    let left = band.back - band.front
                    defer { unclaimed = band.back - band.front }
                    if state.failure == nil && left > 0 && left == unclaimed { helping = true }
                    return helping && state.failure == nil ? band.claim(id: 1) : nil
                }
                guard let part else {
                    guard helping else { continue }
                    band.done.wait()  // the rest is on workers
                    break
                }
                var buffer = scratch ?? PixelBuffer(region: .empty, channels: image.channels)
                render(part, of: band, using: &buffer)
                scratch = buffer
            }
            if let failure = state.withLock({ $0.failure }) { throw failure }
            copy(band, into: &target)
        }
    }

    private func makeBand(row: Int, state: inout State) -> Band {
        let region = Rect(x: 0, y: row * tile, width: image.width, height: Swift.min(tile, image.height - row * tile))
        let count = region.area * image.channels
        let storage: Storage
        if let index = state.spare.lastIndex(where: { $0.capacity >= count }) {
            storage = state.spare.remove(at: index)
        } else {
            storage = Storage(capacity: image.width * tile * image.channels)
        }
        return Band(region: region, tile: tile, storage: storage)
    }

    /// The next tile to render, or nil when there is none (or the run failed, was cancelled or ended),
    /// in which case the worker has signed off.
    private func claim(id: Int) -> (Band, Rect)? {
        state.withLock { state in
            if state.failure == nil, monitor.cancellation.isCancelled || monitor.isFinished {
                fail(CancellationError(), state: &state)
            }
            if state.failure == nil {
                while state.nextRow < state.limit {
                    if let band = state.bands[state.nextRow], let part = band.claim(id: id) { return (band, part) }
                    state.nextRow += 1
                }
            }
            state.workers -= 1
            state.freeIDs.append(id)
            return nil
        }
    }

    private func fail(_ error: any Error, state: inout State) {
        if state.failure == nil { state.failure = error }
        for band in state.bands.values { band.abandonUnclaimed() }
    }

    private func work(id: Int) {
        let worker = Worker.current
        let outerID = worker.id
        worker.id = id
        defer { worker.id = outerID }
        var scratch = PixelBuffer(region: .empty, channels: image.channels)
        while let (band, part) = claim(id: id) { render(part, of: band, using: &scratch) }
    }

    /// Renders tile `part` of `band` into the band, through `scratch`; a failure ends the handing out.
    private func render(_ part: Rect, of band: Band, using scratch: inout PixelBuffer) {
        do {
            scratch.reshape(to: part)
            try image.render(into: &scratch)
        } catch {
            state.withLock { fail(error, state: &$0) }
            band.finish(1)
            return
        }
        let channels = image.channels
        let rowLength = band.region.width * channels
        let length = part.width * channels
        scratch.samples.withUnsafeBufferPointer { from in
            guard let source = from.baseAddress else { return }
            let origin = band.storage.base + (part.minY - band.region.minY) * rowLength + part.minX * channels
            for row in 0..<part.height {
                (origin + row * rowLength).initialize(from: source + row * length, count: length)
            }
        }
        if countsProgress { monitor.advance(pixels: part.area) }
        band.finish(1)
    }

    private func copy(_ band: Band, into target: inout PixelBuffer) {
        let common = band.region.intersection(target.region)
        guard !common.isEmpty else { return }
        let channels = image.channels
        let rowLength = band.region.width * channels
        let length = common.width * channels
        let start = target.index(x: common.minX, y: common.minY)
        let targetRow = target.rowLength
        target.samples.withUnsafeMutableBufferPointer { samples in
            guard let base = samples.baseAddress else { return }
            let from = band.storage.base + (common.minY - band.region.minY) * rowLength + common.minX * channels
            for row in 0..<common.height {
                (base + start + row * targetRow).update(from: from + row * rowLength, count: length)
            }
        }
    }
}
