import Synchronization
import TesseraCore

/// An image as a sink or a global node reads it: requests are served from bands, one row of tiles
/// each, whose tiles render on the run's workers (``WorkerPool``). Writers ask for some rows at a
/// time (a TIFF strip, 64 JPEG rows, about 2 MB of PNG rows); a band is kept until a request starts
/// below it.
///
/// Workers take tiles one after another, across band boundaries, so none waits at the end of a band
/// for the other's last tile. The reader takes the tiles of the band it waits for itself, so it never
/// waits for tiles no one renders. For a sink on several threads the workers run one band ahead of
/// the writer (``ahead(role:threads:)``), as libvips' write-behind: the writer writes one band while
/// the next renders. A writer reads through ``encode(_:with:scratch:into:rowBytes:)``: its bands then hold its
/// file's samples, which the workers encode as each tile renders.
package final class ParallelSource: PixelSource, LendsEncodedRows, WorkSet {
    let image: Image
    private let monitor: RunMonitor
    private let role: Role
    private let tile: Int
    private let bandCount: Int
    private let state = Locked(State())
    /// Set by ``passThrough()``.
    private let direct = Atomic<Bool>(false)
    /// Told the lowest band not finished, for the caches of the pass (``Horizon``).
    private let progress: PassProgress?
    private let root: Int

    /// Bands rendered ahead of the writer take at most this much memory: for very wide images memory
    /// matters more than overlap.
    static let prefetchLimit = 64 << 20

    /// Bands that may render beyond the lowest one not finished, at most: a writer's on several threads,
    /// one, so the workers render the next band while the writer writes this one. (Two kept the workers
    /// no busier on 8K blurs and copies, and made every window upstream a band taller.)
    package static func ahead(role: Role, threads: Int) -> Int { role == .sink && threads > 1 ? 1 : 0 }

    /// Who reads: a writer gets bands rendered ahead of it; both count towards the run's progress.
    package enum Role {
        case sink
        case global
    }

    /// Reads `image` for a reader in `role`; `progress` learns, as root `root` of its pass, which band
    /// is the lowest not finished.
    /// `tile`: the pass's tile side (``PassPlan/tileSize``), by default the run's.
    package init(
        image: Image, monitor: RunMonitor, role: Role, progress: PassProgress? = nil, root: Int = 0, tile: Int? = nil
    ) {
        self.image = image
        self.monitor = monitor
        self.role = role
        self.progress = progress
        self.root = root
        target = nil
        let tile = tile ?? monitor.options.tileSize
        self.tile = tile
        bandCount = (image.height + tile - 1) / tile
    }

    /// Reads `image` for a program keeping it, its bands lying in `base`, `rowBytes` apart, where the
    /// whole image is encoded: a request for the whole image in that encoding (``encode(_:with:scratch:into:rowBytes:)``
    /// with `base`) then copies nothing.
    package init(
        image: Image, monitor: RunMonitor, progress: PassProgress? = nil, into base: UnsafeMutableRawPointer,
        rowBytes: Int, tile: Int? = nil
    ) {
        self.image = image
        self.monitor = monitor
        self.role = .sink
        self.progress = progress
        root = 0
        target = Target(base: base, rowBytes: rowBytes)
        let tile = tile ?? monitor.options.tileSize
        self.tile = tile
        bandCount = (image.height + tile - 1) / tile
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
        /// Tiles not yet finished, rendered or abandoned; ``wait()`` returns when none is left.
        private let unfinished: Locked<Int>

        init(region: Rect, tile: Int, storage: Storage, encoder: SampleEncoder?, rowBytes: Int) {
            self.region = region
            self.tiles = region.gridCells(width: tile, height: tile)
            self.storage = storage
            self.encoder = encoder
            self.rowBytes = rowBytes
            back = tiles.count
            unfinished = Locked(tiles.count)
        }

        var isComplete: Bool { unfinished.withLock { $0 == 0 } }

        func finish(_ count: Int) {
            guard count > 0 else { return }
            unfinished.withLockNotifying { $0 -= count }
        }

        /// Returns once every tile is rendered or abandoned.
        func wait() { unfinished.wait(until: { $0 == 0 }) { _ in } }

        /// The next tile for worker `id`: odd workers take tiles from the left, even ones from the right.
        /// Two workers then render tiles far apart, which share no input cells: neither waits for a cell
        /// the other is rendering, as neighbouring tiles would (their margins overlap).
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
        /// False for a band of the caller's memory (``init(image:monitor:into:rowBytes:)``).
        let owned: Bool

        init(capacity: Int) {
            self.capacity = capacity
            base = .allocate(byteCount: capacity, alignment: 64)
            owned = true
        }

        init(lending base: UnsafeMutableRawPointer, capacity: Int) {
            self.base = base
            self.capacity = capacity
            owned = false
        }

        deinit { if owned { base.deallocate() } }
    }

    /// Memory the whole image is encoded into (``init(image:monitor:into:rowBytes:)``): each band is its
    /// rows, so the reader's request finds its bytes in place.
    private let target: Target?

    /// Where the image's bytes go; the caller owns the memory and keeps it until the reads end.
    private struct Target: @unchecked Sendable {
        let base: UnsafeMutableRawPointer
        let rowBytes: Int
    }

    private struct State {
        var bands: [Int: Band] = [:]
        /// No band above this row has tiles left to hand out.
        var nextRow = 0
        /// Bands from this row down are not rendered yet.
        var limit = 0
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
    /// which still reads this input: normalize's stretch) render straight from the input on the asking
    /// thread. Bands serve one reader going down the image; these reads come tile by tile from every
    /// worker at once, anywhere in the image. The bands kept are dropped.
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
        guard !direct.load(ordering: .acquiring), !isSparse(target.region) else {
            try image.render(into: &target)
            return
        }
        for slice in bandSlices(of: target.region) {
            guard let bands = try bands(for: slice, mode: .floats) else {
                // A writer's bands hold file samples: rendered straight from the image.
                try image.render(into: &target)
                return
            }
            for band in bands { copy(band, into: &target) }
        }
    }

    /// `region` cut at band boundaries, top to bottom. A request taller than a band (a TIFF writer's
    /// strip of 260 rows) is served one band at a time, so that no more bands are in flight than a
    /// band and the one ahead: what the pass's plan sized its windows for.
    private func bandSlices(of region: Rect) -> [Rect] {
        var slices: [Rect] = []
        var top = region.minY
        while top < region.maxY {
            let bottom = Swift.min(region.maxY, (top / tile + 1) * tile)
            slices.append(Rect(x: region.minX, y: top, width: region.width, height: bottom - top))
            top = bottom
        }
        return slices
    }

    package func encode(
        _ region: Rect, with encoder: SampleEncoder, scratch: inout PixelBuffer, into bytes: UnsafeMutableRawPointer,
        rowBytes: Int
    ) throws {
        guard !region.isEmpty else { return }
        let length = region.width * encoder.bytesPerPixel
        for slice in bandSlices(of: region) {
            let target = bytes + (slice.minY - region.minY) * rowBytes
            guard !direct.load(ordering: .acquiring), let bands = try bands(for: slice, mode: .encoded(encoder)),
                bands.allSatisfy({ $0.encoder?.format == encoder.format })
            else {
                // Bands of Float32 samples (a reader that asked for those first): encoded here.
                scratch.reshape(to: slice)
                try render(into: &scratch)
                scratch.encodeRows(with: encoder, into: target, rowBytes: rowBytes)
                continue
            }
            for band in bands {
                let rows = band.region.intersection(slice)
                let source =
                    band.storage.base + (rows.minY - band.region.minY) * band.rowBytes
                    + region.minX * encoder.bytesPerPixel
                // A band of the memory asked for holds the bytes in place already.
                if source == target + (rows.minY - slice.minY) * rowBytes, band.rowBytes == rowBytes { continue }
                for y in rows.minY..<rows.maxY {
                    (target + (y - slice.minY) * rowBytes).copyMemory(
                        from: band.storage.base + (y - band.region.minY) * band.rowBytes + region.minX
                            * encoder.bytesPerPixel,
                        byteCount: length)
                }
            }
        }
    }

    /// A writer's rows from the band that holds them all, without a copy (``LendsEncodedRows``).
    package func lendEncodedRows(
        _ region: Rect, with encoder: SampleEncoder, _ body: (_ bytes: UnsafeRawPointer, _ rowBytes: Int) throws -> Void
    ) throws -> Bool {
        guard !region.isEmpty, region.minX == 0, region.width == image.width,
            region.minY / tile == (region.maxY - 1) / tile, !direct.load(ordering: .acquiring),
            let bands = try bands(for: region, mode: .encoded(encoder)), bands.count == 1,
            bands[0].encoder?.format == encoder.format
        else { return false }
        let band = bands[0]
        try body(band.storage.base + (region.minY - band.region.minY) * band.rowBytes, band.rowBytes)
        return true
    }

    /// Whether a global node's request is much smaller than the bands it would render (a plugin node
    /// reading the rows a model's input samples, a face's crop): it is then rendered on the asking
    /// thread, straight from the input (whose caches serve it), not as whole rows of tiles.
    private func isSparse(_ region: Rect) -> Bool {
        guard role == .global else { return false }
        let rows = ((region.maxY - 1) / tile - region.minY / tile + 1) * tile
        return region.area * 4 <= rows * image.width
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
        return try worker.outsideOwnTime { try bands(for: region, mode: mode, id: worker.id) }
    }

    private func bands(for region: Rect, mode: Mode, id: Int) throws -> [Band] {
        let firstRow = region.minY / tile
        let lastRow = (region.maxY - 1) / tile
        let (needed, added) = try state.withLock { state -> ([Band], Bool) in
            if let failure = state.failure { throw failure }
            if state.mode == nil {
                state.mode = mode
                // With one thread, one thread renders: nothing is rendered beside the writer.
                let bandBytes = Swift.max(1, image.width * tile * mode.bytesPerPixel(channels: image.channels))
                state.window = Swift.min(
                    Self.ahead(role: role, threads: monitor.options.threads), Self.prefetchLimit / bandBytes)
            }
            // Bands above the request were read: their storage serves the next bands.
            for (row, band) in state.bands where row < firstRow {
                state.bands[row] = nil
                band.abandonUnclaimed()
                if band.isComplete && band.storage.owned && state.spare.count < 2 { state.spare.append(band.storage) }
            }
            state.limit = Swift.max(state.limit, Swift.min(bandCount, lastRow + 1 + state.window))
            var added = false
            for row in firstRow..<Swift.max(firstRow, state.limit) where state.bands[row] == nil {
                state.bands[row] = makeBand(row: row, state: &state)
                state.nextRow = Swift.min(state.nextRow, row)
                added = true
            }
            state.nextRow = Swift.max(state.nextRow, firstRow)
            return ((firstRow...lastRow).compactMap { state.bands[$0] }, added)
        }
        if added {
            reportProgress()
            monitor.pool.submit(self)
        }
        for band in needed {
            // The band's tiles no worker has taken yet are rendered here, then the others waited for.
            while let part = state.withLock({ $0.failure == nil ? band.claim(id: id) : nil }) {
                render(part, of: band)
            }
            band.wait()
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
        if let target, encoder != nil, target.rowBytes == rowBytes {
            storage = Storage(lending: target.base + region.minY * rowBytes, capacity: count)
        } else if let index = state.spare.lastIndex(where: { $0.capacity >= count }) {
            storage = state.spare.remove(at: index)
        } else {
            storage = Storage(capacity: rowBytes * tile)
        }
        return Band(region: region, tile: tile, storage: storage, encoder: encoder, rowBytes: rowBytes)
    }

    /// Renders the next tile of the bands asked for, on the calling worker.
    func runOne() -> Bool {
        guard let (band, part) = claim(id: Worker.current.id) else { return false }
        render(part, of: band)
        return true
    }

    /// The next tile to render, or nil when there is none (or the run failed, was cancelled or ended).
    private func claim(id: Int) -> (Band, Rect)? {
        state.withLock { state in
            // Stopped with tiles still to hand out: they never render. (With none left, the bands asked
            // for are whole, and the next request or node stops the run: where it stops does not depend
            // on whether an idle worker looked for work first.)
            let left = state.bands.values.contains { $0.front < $0.back }
            if state.failure == nil, left, monitor.cancellation.isCancelled || monitor.isFinished {
                fail(CancellationError(), state: &state)
            }
            if state.failure == nil {
                while state.nextRow < state.limit {
                    if let band = state.bands[state.nextRow], let part = band.claim(id: id) { return (band, part) }
                    state.nextRow += 1
                }
            }
            return nil
        }
    }

    private func fail(_ error: any Error, state: inout State) {
        if state.failure == nil { state.failure = error }
        for band in state.bands.values { band.abandonUnclaimed() }
    }

    /// Renders tile `part` of `band` into the band, through one of the worker's spare buffers; a
    /// failure ends the handing out.
    private func render(_ part: Rect, of band: Band) {
        // For a writer's band the image encodes straight into it, taking room for Float32 pixels only if
        // it converts them; otherwise the tile renders here.
        var scratch =
            band.encoder != nil && !monitor.options.floatTiles
            ? PixelBuffer(region: .empty, channels: image.channels)
            : PixelBuffer.scratch(region: part, channels: image.channels)
        defer { scratch.recycle() }
        let origin = band.storage.base + (part.minY - band.region.minY) * band.rowBytes
        do {
            if let encoder = band.encoder, !monitor.options.floatTiles {
                // The image writes the file's samples itself: a decoder copies its own, a point node
                // computes strips in registers, so no Float32 tile need exist.
                try image.encode(
                    part, with: encoder, scratch: &scratch, into: origin + part.minX * encoder.bytesPerPixel,
                    rowBytes: band.rowBytes)
            } else {
                try image.render(into: &scratch)
            }
        } catch {
            state.withLock { fail(error, state: &$0) }
            band.finish(1)
            return
        }
        defer { if band.isComplete { reportProgress() } }
        if let encoder = band.encoder {
            if monitor.options.floatTiles {
                scratch.encodeRows(
                    with: encoder, into: origin + part.minX * encoder.bytesPerPixel, rowBytes: band.rowBytes)
            }
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

    /// Tells the pass's progress the lowest band with tiles not rendered: the first of those kept that is
    /// not complete, or the first not made yet.
    private func reportProgress() {
        guard let progress else { return }
        // Under the lock, so that two workers' reports cannot land out of order.
        state.withLock { state in
            progress.set(root: root, band: state.bands.filter { !$0.value.isComplete }.map(\.key).min() ?? state.limit)
        }
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
