import Dispatch
import Synchronization
import TesseraCore

/// An image as a sink or a global node reads it: requests are served from bands, one row of tiles
/// each, whose tiles render on the scheduler's workers. Writers ask for a few rows at a time (a strip,
/// 64 PNG rows); a band is kept until a request starts below it.
///
/// Workers take tiles one after another, across band boundaries, so none waits at the end of a band
/// for the other's last tile. For a sink on several threads they run up to two bands ahead of the
/// writer, as libvips' write-behind: the writer writes one band while the next ones render. A writer
/// reads through ``encode(_:with:scratch:into:rowBytes:)``: its bands then hold its file's samples,
/// which the workers encode as each tile renders.
package final class ParallelSource: PixelSource {
    let image: Image
    private let monitor: RunMonitor
    private let role: Role
    private let tile: Int
    private let bandCount: Int
    private let state: Locked<State>
    /// Set by ``passThrough()``.
    private let direct = Atomic<Bool>(false)

    /// Bands rendered ahead of the writer take at most this much memory: for very wide images memory
    /// matters more than overlap.
    static let prefetchLimit = 64 << 20

    /// Who reads: a writer gets bands rendered ahead of it; both count towards the run's progress.
    package enum Role {
        case sink
        case global
    }

    package init(image: Image, monitor: RunMonitor, role: Role) {
        self.image = image
        self.monitor = monitor
        self.role = role
        let tile = monitor.options.tileSize
        self.tile = tile
        bandCount = (image.height + tile - 1) / tile
        state = Locked(State(freeIDs: Array((1...Swift.max(1, monitor.options.threads)).reversed())))
    }

    /// One row of tiles across the whole width, and the memory its tiles are written into.
    private final class Band: @unchecked Sendable {
        let region: Rect
        let tiles: [Rect]
        let storage: Storage
        /// How the storage holds pixels: encoded for a writer, or Float32 samples (nil).
        let encoder: SampleEncoder?
        let rowBytes: Int
        /// Tiles not handed to workers yet are `tiles[front..<back]`; guarded by the source's state lock.
        var front = 0
        var back: Int
        /// Tiles not yet finished, rendered or abandoned; `done` is left when it reaches 0.
        private let unfinished: Atomic<Int>
        let done = DispatchGroup()

        init(region: Rect, tile: Int, storage: Storage, encoder: SampleEncoder?, rowBytes: Int) {
            self.region = region
            self.tiles = region.gridCells(width: tile, height: tile)
            self.storage = storage
            self.encoder = encoder
            self.rowBytes = rowBytes
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

    /// The bytes workers write disjoint tiles into at once, so not a Swift array: Float32 samples, or
    /// a writer's file samples. Not zeroed: the tiles cover every byte before a band is read, and the
    /// workers writing them fault its pages in, in parallel, instead of the writer zeroing tens of
    /// megabytes before the first tile starts.
    private final class Storage: @unchecked Sendable {
        let base: UnsafeMutableRawPointer
        let capacity: Int

        init(capacity: Int) {
            self.capacity = capacity
            base = .allocate(byteCount: capacity, alignment: 64)
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
        /// Fixed by the first request: a writer's `encode` has the workers encode tiles as they render
        /// (its samples are what the bands keep); anything else reads Float32 bands.
        var mode: Mode?
        /// Bands below the last one asked for that may render ahead of the reader: a sink's, on
        /// several threads, as memory allows (file samples take less than Float32 ones).
        var window = 0
    }

    private enum Mode {
        case floats
        case encoded(SampleEncoder)

        func bytesPerPixel(channels: Int) -> Int {
            switch self {
            case .floats: channels * MemoryLayout<Float>.size
            case .encoded(let encoder): encoder.bytesPerPixel
            }
        }

        /// Whether bands made for `self` serve a request in `other`'s kind of sample.
        func matches(_ other: Self) -> Bool {
            switch (self, other) {
            case (.floats, .floats): true
            case (.encoded(let a), .encoded(let b)): a.format == b.format
            default: false
            }
        }
    }

    /// After a global node's run: later reads (from the workers rendering an image the node returned,
    /// which still reads this input) render straight from the input on the asking thread. Waiting there
    /// for bands that new Dispatch workers would render starves Dispatch's pool, whose threads are the
    /// ones waiting. The bands kept are dropped.
    package func passThrough() {
        direct.store(true, ordering: .releasing)
        state.withLock { state in
            for band in state.bands.values { band.abandonUnclaimed() }
            state.bands = [:]
            state.spare = []
        }
    }

    package func render(into target: inout PixelBuffer) throws {
        guard !target.region.isEmpty else { return }
        guard !direct.load(ordering: .acquiring), let bands = try bands(for: target.region, mode: .floats) else {
            // After a global node's barrier, or for a writer whose bands hold file samples.
            try image.render(into: &target)
            return
        }
        for band in bands { copy(band, into: &target) }
    }

    package func encode(
        _ region: Rect, with encoder: SampleEncoder, scratch: inout PixelBuffer, into bytes: UnsafeMutableRawPointer,
        rowBytes: Int
    ) throws {
        guard !region.isEmpty else { return }
        guard !direct.load(ordering: .acquiring), let bands = try bands(for: region, mode: .encoded(encoder)),
            bands.allSatisfy({ $0.encoder?.format == encoder.format })
        else {
            // Bands of Float32 samples (a reader that asked for those first): encoded here.
            scratch.reshape(to: region)
            try render(into: &scratch)
            scratch.encodeRows(with: encoder, into: bytes, rowBytes: rowBytes)
            return
        }
        let length = region.width * encoder.bytesPerPixel
        for band in bands {
            let rows = band.region.intersection(region)
            for y in rows.minY..<rows.maxY {
                (bytes + (y - region.minY) * rowBytes).copyMemory(
                    from: band.storage.base + (y - band.region.minY) * band.rowBytes + region.minX
                        * encoder.bytesPerPixel,
                    byteCount: length)
            }
        }
    }

    /// The bands `region` touches, rendered (with the ones ahead started), or nil when this source's
    /// bands hold another kind of sample than `mode` asks for.
    private func bands(for region: Rect, mode: Mode) throws -> [Band]? {
        if state.withLock({ $0.mode.map { !$0.matches(mode) } ?? false }) { return nil }
        // Checked on every request, not only per tile: a writer may still be encoding rows long after
        // its last tile rendered, and Ctrl-C must stop it too.
        if monitor.cancellation.isCancelled { throw CancellationError() }
        // Time in here (waiting for bands, copying them) is not the reading node's own: a sink's or a
        // global node's --stats time is its encoding or its own work.
        let worker = Worker.current
        let begin = DispatchTime.now().uptimeNanoseconds
        defer { worker.childNanos += DispatchTime.now().uptimeNanoseconds - begin }
        let firstRow = region.minY / tile
        let lastRow = (region.maxY - 1) / tile
        let (needed, spawn) = try state.withLock { state -> ([Band], [Int]) in
            if let failure = state.failure { throw failure }
            if state.mode == nil {
                state.mode = mode
                // With one thread, one thread renders: nothing is rendered beside the writer.
                let bandBytes = Swift.max(1, image.width * tile * mode.bytesPerPixel(channels: image.channels))
                state.window =
                    role == .sink && monitor.options.threads > 1 ? Swift.min(2, Self.prefetchLimit / bandBytes) : 0
            }
            // Bands above the request were read: their storage serves the next bands.
            for (row, band) in state.bands where row < firstRow {
                state.bands[row] = nil
                band.abandonUnclaimed()
                if band.isComplete && state.spare.count < 2 { state.spare.append(band.storage) }
            }
            state.limit = Swift.max(state.limit, Swift.min(bandCount, lastRow + 1 + state.window))
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
        }
        return needed
    }

    private func makeBand(row: Int, state: inout State) -> Band {
        let region = Rect(x: 0, y: row * tile, width: image.width, height: Swift.min(tile, image.height - row * tile))
        var encoder: SampleEncoder?
        if case .encoded(let writer)? = state.mode { encoder = writer }
        let rowBytes = image.width * (encoder?.bytesPerPixel ?? image.channels * MemoryLayout<Float>.size)
        let count = rowBytes * region.height
        let storage: Storage
        if let index = state.spare.lastIndex(where: { $0.capacity >= count }) {
            storage = state.spare.remove(at: index)
        } else {
            storage = Storage(capacity: rowBytes * tile)
        }
        return Band(region: region, tile: tile, storage: storage, encoder: encoder, rowBytes: rowBytes)
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
        let origin = band.storage.base + (part.minY - band.region.minY) * band.rowBytes
        if let encoder = band.encoder {
            scratch.encodeRows(
                with: encoder, into: origin + part.minX * encoder.bytesPerPixel, rowBytes: band.rowBytes)
        } else {
            let channels = image.channels
            let length = part.width * channels
            scratch.samples.withUnsafeBufferPointer { from in
                guard let source = from.baseAddress else { return }
                let target = (origin + part.minX * channels * MemoryLayout<Float>.size).assumingMemoryBound(
                    to: Float.self)
                let rowLength = band.rowBytes / MemoryLayout<Float>.size
                for row in 0..<part.height {
                    (target + row * rowLength).initialize(from: source + row * length, count: length)
                }
            }
        }
        monitor.advance(pixels: part.area)
        band.finish(1)
    }

    private func copy(_ band: Band, into target: inout PixelBuffer) {
        let common = band.region.intersection(target.region)
        guard !common.isEmpty else { return }
        let channels = image.channels
        let rowLength = band.rowBytes / MemoryLayout<Float>.size
        let length = common.width * channels
        let start = target.index(x: common.minX, y: common.minY)
        let targetRow = target.rowLength
        let samples = band.storage.base.assumingMemoryBound(to: Float.self)
        target.samples.withUnsafeMutableBufferPointer { target in
            guard let base = target.baseAddress else { return }
            let from = samples + (common.minY - band.region.minY) * rowLength + common.minX * channels
            for row in 0..<common.height {
                (base + start + row * targetRow).update(from: from + row * rowLength, count: length)
            }
        }
    }
}
