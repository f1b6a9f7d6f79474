import Synchronization
import TesseraCore

/// How one pass serves every image it renders, decided before its first tile from the requests its
/// readers will really make.
///
/// A pass is a sink or a global node reading its input images whole, in bands (rows of tiles, top to
/// bottom, each band's tiles left to right). The planner replays that order: each tile is mapped through
/// the chain of kernels above it (each kernel's `inputRegion(for:input:)`, padded by the input's edge
/// mode as the run pads it), down to the node outputs and kernel stages the scheduler wraps
/// (``ScheduledSource``). Each of those, consumers before producers, gets its sequence of requests
/// (band, region) and a decision made from it:
///
/// - **stream**: no pixel is asked twice and no request is large: requests go straight to its node.
/// - **window**: its pixels are kept in cells, each rendered once, and dropped once no later band asks
///   for their rows (``Horizon``): the rows kept are exactly the ones the sequence reads again. A source
///   that decodes front to back (PNG, JPEG) is always served so, in whole-width cells, so it never goes
///   back up.
/// - **whole**: the sequence asks for rows so far apart (a 90-degree turn reads every row for each band;
///   a flip reads the bottom first) that a window would hold most of the image: it is kept whole, in
///   memory or past the disk threshold in a temporary file, rendered once.
///
/// Then its own requests, what it renders (every request for a stream, each new cell otherwise), are
/// what its inputs receive. So a decision follows the real order of requests: a rotate of a JPEG keeps the
/// decode whole, a resize keeps a window of the rows under a band, and every source decodes its pixels
/// once, whatever the tile size and thread count (the tests generate graphs to check it).
package struct PassPlan: Sendable {
    /// One image of the pass and how it is served.
    package struct Entry: Sendable {
        /// The node it belongs to; ``isStage`` for an image inside the node's chain of kernels (a resize's
        /// rows pass).
        package var node: String
        package var op: String
        package var isStage: Bool
        package var width: Int
        package var height: Int
        package var serving: Serving
        /// Why, in words, for `tessera run --plan`.
        package var reason: String
        /// Pixels its readers ask for in the pass, and pixels it renders (each cell once, for a cache).
        package var asked: Int
        package var rendered: Int
        /// The format its pixels are kept in, when it keeps them packed (``Image/nativeFormat``).
        package var format: SampleFormat?
    }

    /// How an image is served during the pass.
    package enum Serving: Sendable, Equatable {
        /// Every request goes to the node.
        case stream
        /// Cells kept while later bands read them again: `rows` rows at most, `bytes`.
        case window(rows: Int, bytes: Int)
        /// Kept whole for the pass: `bytes`, in memory or in a temporary file.
        case whole(bytes: Int, inFile: Bool)
        /// Kept whole by the run's plan (read in several passes): this pass reads what is stored.
        case kept

        /// Bytes held at most for it during the pass.
        package var bytes: Int {
            switch self {
            case .stream, .kept: 0
            case .window(_, let bytes), .whole(let bytes, _): bytes
            }
        }
    }

    /// The node whose reads this pass serves.
    package var reader: String
    package var tileSize: Int
    /// The run's tile size and what the pass would hold in it, when the pass takes smaller tiles
    /// (``make(reader:roots:tileSize:ahead:diskThreshold:sparse:apply:)``).
    package var narrowed: (tileSize: Int, heldBytes: Int)?
    /// Bands of tiles the pass reads.
    package var bands: Int
    /// Consumers first, sources last.
    package var entries: [Entry]

    /// Bytes held at most by its windows and whole images.
    package var heldBytes: Int { entries.reduce(0) { saturatingSum($0, $1.serving.bytes) } }
}

extension PassPlan {
    /// Plans the pass in which `reader` reads `roots` whole, in bands of `tileSize` rows: `ahead` bands
    /// may render beyond the lowest one not finished (a sink's write-behind). An image kept whole that
    /// takes more than `diskThreshold` bytes goes to a temporary file. `sparse`: the reader asks for
    /// regions in an order nothing predicts (a plugin's `run_v3`), so front-to-back decoders are kept
    /// whole and nothing else is cached.
    ///
    /// With `apply`, each image's ``ScheduledSource`` is set up to serve as decided, reporting to
    /// `progress`; without, nothing changes (`tessera run --plan`).
    ///
    /// A pass whose bands read most of a large image at once (a resize to a fifth: each band of 256 rows
    /// reads 1300 rows of its input, and the band ahead as many) keeps that image whole. It takes tiles of
    /// a half or a quarter of `tileSize` instead (not under 64) where they hold a quarter less and 16 MiB
    /// less at least, those holding the least, so that it streams through windows as libvips' thin
    /// strips do.
    package static func make(
        reader: String, roots: [Image], tileSize: Int, ahead: Int, diskThreshold: Int, sparse: Bool = false,
        apply progress: PassProgress? = nil
    ) throws -> PassPlan {
        func plan(_ tile: Int, _ progress: PassProgress?) throws -> PassPlan {
            try make(
                reader: reader, roots: roots, tile: tile, ahead: ahead, diskThreshold: diskThreshold, sparse: sparse,
                apply: progress)
        }
        let full = try plan(tileSize, nil)
        var chosen = full
        // Smaller tiles only pay where much is held: below that, the larger tiles' fewer requests win.
        if full.heldBytes >= narrowingThreshold {
            for tile in [tileSize / 2, tileSize / 4] where tile >= 64 {
                let smaller = try plan(tile, nil)
                let saved = full.heldBytes - smaller.heldBytes
                if saved * 4 >= full.heldBytes, saved >= narrowingThreshold / 2, smaller.heldBytes < chosen.heldBytes {
                    chosen = smaller
                }
            }
        }
        if chosen.tileSize != tileSize { chosen.narrowed = (tileSize, full.heldBytes) }
        guard let progress else { return chosen }
        var applied = try plan(chosen.tileSize, progress)
        applied.narrowed = chosen.narrowed
        return applied
    }

    /// Bytes a pass holds in the run's tiles from which smaller ones are tried: 32 MiB.
    static let narrowingThreshold = 32 << 20

    /// ``make(reader:roots:tileSize:ahead:diskThreshold:sparse:apply:)`` in tiles of `tileSize`.
    private static func make(
        reader: String, roots: [Image], tile tileSize: Int, ahead: Int, diskThreshold: Int, sparse: Bool,
        apply progress: PassProgress?
    ) throws -> PassPlan {
        var planner = Planner(tileSize: tileSize, ahead: ahead, diskThreshold: diskThreshold, sparse: sparse)
        for root in roots { planner.discover(root.source) }
        let bands = roots.map { ($0.height + tileSize - 1) / tileSize }.max() ?? 0
        planner.bands = bands
        for band in 0..<bands {
            for root in roots where band * tileSize < root.height {
                let row = Rect(x: 0, y: band * tileSize, width: root.width, height: tileSize).intersection(root.extent)
                for tile in row.tiles(width: tileSize, height: tileSize) {
                    planner.forward(root.source, tile, band: band)
                }
            }
        }
        var entries: [Entry] = []
        for index in planner.order {
            guard let entry = planner.decide(index) else { continue }
            entries.append(entry)
        }
        if let progress {
            for (index, decision) in planner.decisions { try planner.vertices[index].source.serve(decision, progress) }
        }
        return PassPlan(reader: reader, tileSize: tileSize, narrowed: nil, bands: bands, entries: entries)
    }

    /// Ends the pass for every image `roots` read: caches and per-pass stores are dropped.
    package static func end(roots: [Image]) {
        var planner = Planner(tileSize: 1, ahead: 0, diskThreshold: 0, sparse: false)
        for root in roots { planner.discover(root.source) }
        for vertex in planner.vertices { vertex.source.endPass() }
    }
}

/// The lowest band of a pass that still has tiles to render, for each image it reads whole: what the
/// caches' horizons (``Horizon``) follow.
package final class PassProgress: Sendable {
    private let lowest: Locked<[Int]>

    package init(roots: Int) { lowest = Locked(Array(repeating: 0, count: Swift.max(1, roots))) }

    /// Root `index`'s lowest unfinished band is now `band`.
    package func set(root index: Int, band: Int) {
        lowest.withLock { if $0.indices.contains(index) { $0[index] = band } }
    }

    /// The lowest band not finished over all the pass's roots.
    package var band: Int { lowest.withLock { $0.min() ?? 0 } }
}

/// What a cache keeps during a pass: rows from ``firstNeededRow`` down, the first row any band not yet
/// finished asks for.
package final class Horizon: Sendable {
    /// By band: the first row any request from that band or a later one reads (the image's height when
    /// none does).
    let keepFrom: [Int]
    let progress: PassProgress

    init(keepFrom: [Int], progress: PassProgress) {
        self.keepFrom = keepFrom
        self.progress = progress
    }

    var firstNeededRow: Int {
        guard !keepFrom.isEmpty else { return 0 }
        return keepFrom[Swift.min(Swift.max(progress.band, 0), keepFrom.count - 1)]
    }
}

/// What a ``ScheduledSource`` is told to do for a pass.
enum ServingDecision: Sendable {
    case stream
    case cells(width: Int, height: Int, keepFrom: [Int])
    case whole(cellWidth: Int, cellHeight: Int, inFile: Bool)
}

/// The replay: scheduled images found from the roots, the requests each receives, and the decisions.
private struct Planner {
    struct Vertex {
        let source: ScheduledSource
        var requests: [(band: Int, region: Rect)] = []
    }

    let tileSize: Int
    let ahead: Int
    let diskThreshold: Int
    let sparse: Bool
    var bands = 0
    var vertices: [Vertex] = []
    var index: [ObjectIdentifier: Int] = [:]
    /// Vertex indices, every image before the images it reads.
    var order: [Int] = []
    var decisions: [(Int, ServingDecision)] = []

    init(tileSize: Int, ahead: Int, diskThreshold: Int, sparse: Bool) {
        self.tileSize = tileSize
        self.ahead = ahead
        self.diskThreshold = diskThreshold
        self.sparse = sparse
    }

    /// Finds the scheduled images under `source`, and orders them.
    mutating func discover(_ source: any PixelSource) {
        var seen: Set<ObjectIdentifier> = []
        var postOrder: [Int] = []
        // Depth first, without recursion: a graph may chain thousands of nodes.
        var stack: [(source: any PixelSource, expanded: Bool)] = [(source, false)]
        while let (top, expanded) = stack.popLast() {
            let id = ObjectIdentifier(top as AnyObject)
            if expanded {
                if let scheduled = top as? ScheduledSource {
                    let at = vertices.count
                    vertices.append(Vertex(source: scheduled))
                    index[id] = at
                    postOrder.append(at)
                }
                continue
            }
            if Self.isReference(top) {
                guard seen.insert(id).inserted, index[id] == nil else { continue }
            }
            stack.append((top, true))
            for child in Self.children(of: top).reversed() { stack.append((child, false)) }
        }
        order = postOrder.reversed() + order
    }

    static func isReference(_ source: any PixelSource) -> Bool { type(of: source) is AnyClass }

    /// The sources `source` reads its pixels from, as the run renders it.
    static func children(of source: any PixelSource) -> [any PixelSource] {
        switch source {
        case let scheduled as ScheduledSource: [scheduled.inner]
        case let kernel as KernelSource: kernel.inputs.map(\.image.source)
        case let parallel as ParallelSource: [parallel.image.source]
        case let shrinkable as ShrinkableSource: [shrinkable.full.source]
        default: []
        }
    }

    /// Sends a request for `region` of the image `source` serves, made while band `band` renders.
    mutating func forward(_ source: any PixelSource, _ region: Rect, band: Int) {
        var pending: [(any PixelSource, Rect)] = [(source, region)]
        while let (top, area) = pending.popLast() {
            switch top {
            case let scheduled as ScheduledSource:
                if let at = index[ObjectIdentifier(scheduled)] { vertices[at].requests.append((band, area)) }
            case let kernel as KernelSource:
                for (input, read) in kernel.inputs.enumerated().reversed() {
                    let wanted = kernel.kernel.inputRegion(for: area, input: input)
                    let asked = Self.padded(wanted, of: read.image, edge: read.edge)
                    if !asked.isEmpty { pending.append((read.image.source, asked)) }
                }
            case let parallel as ParallelSource:
                pending.append((parallel.image.source, area))
            case let shrinkable as ShrinkableSource:
                pending.append((shrinkable.full.source, area))
            default:
                break
            }
        }
    }

    /// The region of `image` rendered for a request of `region`, which may reach past its extent: the
    /// pixels the edge mode repeats (clamp) or the part inside (transparent), as the run renders it.
    static func padded(_ region: Rect, of image: Image, edge: EdgeMode) -> Rect {
        if region.isEmpty { return .empty }
        if image.extent.contains(region) { return region }
        switch edge {
        case .transparent: return region.intersection(image.extent)
        case .clamp: return image.clampedInside(region)
        }
    }

    /// Decides how vertex `at` is served from the requests it received, and sends what it renders on to
    /// its inputs. Nil when nothing asked anything of it.
    mutating func decide(_ at: Int) -> PassPlan.Entry? {
        let vertex = vertices[at]
        let source = vertex.source
        let requests = vertex.requests
        vertices[at].requests = []
        guard !requests.isEmpty else { return nil }
        let extent = source.extent
        let asked = requests.reduce(0) { saturatingSum($0, $1.region.area) }
        let sequential = source.inner.prefersSequentialRows
        var entry = PassPlan.Entry(
            node: source.node, op: source.op, isStage: source.isStage, width: extent.width, height: extent.height,
            serving: .stream, reason: "", asked: asked, rendered: asked, format: source.format)

        if let store = source.keptStore {
            // Kept for the whole run: what this pass renders of it is the cells not stored yet.
            let cells = Self.cells(
                of: requests, width: store.cellWidth, height: store.cellHeight, extent: extent, sequential: sequential,
                done: { store.isReady(column: $0, row: $1) })
            entry.rendered = cells.reduce(0) { $0 + $1.region.area }
            entry.serving = .kept
            entry.reason =
                entry.rendered == 0
                ? "kept whole by the run (read in several passes): read from what is stored"
                : "kept whole by the run (read in several passes): stored as this pass first renders it"
            for cell in cells {
                store.markPlanned(column: cell.region.minX / store.cellWidth, row: cell.region.minY / store.cellHeight)
                forward(source.inner, cell.region, band: cell.band)
            }
            return entry
        }

        let tallest = requests.reduce(0) { Swift.max($0, $1.region.height) }
        let largest = requests.reduce(0) { Swift.max($0, $1.region.area) }
        let computed = source.inner is KernelSource
        let chunk =
            computed || sequential ? nil : PassPlan.rereadChunk(of: source.inner, requests: requests, extent: extent)
        // A front-to-back decoder's cells are whole rows, at most 64: a window of such cells holds few
        // rows more than the bands read. A file read in chunks that the bands read again and again (a
        // turn of a TIFF in strips) is kept in cells of its chunks, each read once. Others are tiles, a
        // quarter of a tile tall where a tile reads more rows than a tile (margins), so that the rows kept
        // above and below a band are not whole tiles.
        let cellWidth = sequential ? extent.width : chunk?.width ?? tileSize
        let cellHeight =
            sequential
            ? Swift.min(tileSize, 64)
            : chunk?.height ?? (tallest > tileSize && tileSize >= 64 ? tileSize / 4 : tileSize)
        let cells = Self.cells(
            of: requests, width: cellWidth, height: cellHeight, extent: extent, sequential: sequential,
            done: { _, _ in false })
        let rendered = cells.reduce(0) { $0 + $1.region.area }
        let bytesPerPixel = source.format?.bytesPerPixel ?? source.channels * MemoryLayout<Float>.size
        let rowBytes = saturatingProduct(extent.width, bytesPerPixel)
        let wholeBytes = saturatingProduct(rowBytes, extent.height)

        // What a window would hold: from the first row any band not finished reads, down to the last
        // row rendered by the bands that may be rendering (the lowest unfinished and `ahead` more).
        var keepFrom = Array(repeating: extent.height, count: Swift.max(bands, 1))
        for request in requests where request.band < keepFrom.count {
            keepFrom[request.band] = Swift.min(keepFrom[request.band], request.region.minY / cellHeight * cellHeight)
        }
        if keepFrom.count > 1 {
            for band in stride(from: keepFrom.count - 2, through: 0, by: -1) {
                keepFrom[band] = Swift.min(keepFrom[band], keepFrom[band + 1])
            }
        }
        var reached = Array(repeating: 0, count: keepFrom.count)
        for cell in cells where cell.band < reached.count {
            reached[cell.band] = Swift.max(reached[cell.band], cell.region.maxY)
        }
        for band in reached.indices.dropFirst() { reached[band] = Swift.max(reached[band], reached[band - 1]) }
        var windowRows = 0
        for band in keepFrom.indices {
            let last = reached[Swift.min(band + ahead, reached.count - 1)]
            windowRows = Swift.max(windowRows, last - Swift.min(keepFrom[band], last))
        }

        // Pixels asked for twice: a decoder keeps them, so that it decodes each once; a computed image
        // renders them again where that is a small part (a resize's filter reaching a few rows into the
        // next band), and its input then keeps them.
        let unique = Self.unionArea(requests.map(\.region))
        let overlaps = chunk != nil || (asked > unique && (!computed || asked - unique > unique / 10))
        let large = largest > 4 * tileSize * tileSize
        var decision: ServingDecision
        if sparse && !sequential {
            decision = .stream
            entry.reason = "read in an order nothing predicts: rendered as asked"
        } else if sparse {
            decision = .whole(cellWidth: cellWidth, cellHeight: cellHeight, inFile: wholeBytes > diskThreshold)
            entry.reason = "decoded front to back, and read in an order nothing predicts: kept whole, decoded once"
        } else if !sequential && !overlaps && !large {
            decision = .stream
            entry.reason =
                requests.count == 1
                ? "read once"
                : asked == unique
                    ? "each pixel read once: nothing kept"
                    : "tiles read \(Self.percent(asked, of: unique)) of it: the few pixels read twice are computed again"
        } else if windowRows * 4 >= extent.height * 3 {
            decision = .whole(cellWidth: cellWidth, cellHeight: cellHeight, inFile: wholeBytes > diskThreshold)
            entry.reason =
                (sequential ? "decoded front to back, and " : "")
                + (chunk.map { "read in chunks of \($0.width)x\($0.height), and " } ?? "")
                + "the bands being rendered read \(Swift.min(windowRows, extent.height)) of its \(extent.height) "
                + "rows at once: kept whole, " + (sequential ? "decoded once" : "rendered once")
        } else {
            decision = .cells(width: cellWidth, height: cellHeight, keepFrom: keepFrom)
            if sequential {
                entry.reason = "decoded front to back: rows kept while the bands below read them again"
            } else if let chunk {
                entry.reason =
                    "read in chunks of \(chunk.width)x\(chunk.height) that bands far apart read again: each cell "
                    + "read once, kept while later bands read it"
            } else if overlaps {
                entry.reason =
                    "tiles read \(Self.percent(asked, of: unique)) of it (overlapping margins or "
                    + "several readers): each cell rendered once, kept while later bands read it"
            } else {
                entry.reason = "read in regions larger than tiles: rendered a cell at a time"
            }
        }
        switch decision {
        case .stream:
            for request in requests { forward(source.inner, request.region, band: request.band) }
        case .cells:
            entry.serving = .window(rows: windowRows, bytes: saturatingProduct(windowRows, rowBytes))
            entry.rendered = rendered
            for cell in cells { forward(source.inner, cell.region, band: cell.band) }
        case .whole(_, _, let inFile):
            entry.serving = .whole(bytes: wholeBytes, inFile: inFile)
            entry.rendered = rendered
            for cell in cells { forward(source.inner, cell.region, band: cell.band) }
        }
        decisions.append((at, decision))
        return entry
    }

    /// The pixels `regions` cover, each counted once: a sweep down the rows where regions begin or end,
    /// merging the spans of the regions across each stretch of rows.
    ///
    /// - Complexity: O(s a log a) for s stretches of rows and a regions across each: for a regular
    ///   tiling, about the number of tiles.
    static func unionArea(_ regions: [Rect]) -> Int {
        let sorted = regions.filter { !$0.isEmpty }.sorted { $0.minY < $1.minY }
        let edges = Array(Set(sorted.flatMap { [$0.minY, $0.maxY] })).sorted()
        var area = 0
        var active: [Rect] = []
        var next = 0
        for (top, bottom) in zip(edges, edges.dropFirst()) {
            active.removeAll { $0.maxY <= top }
            while next < sorted.count && sorted[next].minY <= top {
                active.append(sorted[next])
                next += 1
            }
            var covered = 0
            var reach = Int.min
            for span in active.sorted(by: { $0.minX < $1.minX }) {
                if span.maxX <= reach { continue }
                covered += span.maxX - Swift.max(span.minX, reach)
                reach = span.maxX
            }
            area = saturatingSum(area, saturatingProduct(covered, bottom - top))
        }
        return area
    }

    /// "131%": how much `asked` is of `rendered`.
    static func percent(_ asked: Int, of rendered: Int) -> String {
        "\(Int((Double(asked) / Double(Swift.max(rendered, 1)) * 100).rounded()))%"
    }

    /// The cells of a `width` x `height` grid over `extent` that `requests` render, in the order they
    /// are first needed, each with the band that needs it; `done` says which are rendered already. A
    /// front-to-back decoder renders every row of cells above the one asked first, as the run does.
    static func cells(
        of requests: [(band: Int, region: Rect)], width: Int, height: Int, extent: Rect, sequential: Bool,
        done: (Int, Int) -> Bool
    ) -> [(band: Int, region: Rect)] {
        let columns = (extent.width + width - 1) / width
        var rendered = Set<Int>()
        var result: [(band: Int, region: Rect)] = []
        var nextRow = 0
        func render(_ column: Int, _ row: Int, band: Int) {
            guard rendered.insert(row * columns + column).inserted, !done(column, row) else { return }
            result.append(
                (band, Rect(x: column * width, y: row * height, width: width, height: height).intersection(extent)))
        }
        for (band, region) in requests {
            guard !region.isEmpty else { continue }
            let firstRow = region.minY / height
            let lastRow = (region.maxY - 1) / height
            if sequential {
                while nextRow < firstRow {
                    render(0, nextRow, band: band)
                    nextRow += 1
                }
                nextRow = Swift.max(nextRow, lastRow + 1)
            }
            for row in firstRow...lastRow {
                for column in (region.minX / width)...((region.maxX - 1) / width) { render(column, row, band: band) }
            }
        }
        return result
    }
}

extension PassPlan {
    /// The cells to keep `source` in when it reads whole chunks (``PixelSource/preferredTileSize``: a
    /// TIFF's strips or tiles) and `requests`, in their order, would make it decode its chunks again: it
    /// keeps only its recent ones (``PixelSource/keptChunkCount``), enough for a band and the next, so a
    /// quarter turn of a TIFF in strips, whose every band reads every strip, would decode each strip once
    /// a band. The cells are its chunks, whole-width for strips, at least 64 rows tall; nil where its own
    /// recent chunks serve the requests with a quarter more decodes at most.
    package static func rereadChunk(of source: any PixelSource, requests: [(band: Int, region: Rect)], extent: Rect)
        -> (width: Int, height: Int)?
    {
        guard let size = source.preferredTileSize, size.width > 0, size.height > 0,
            size.width < extent.width || size.height < extent.height
        else { return nil }
        // The source's recent chunks, replayed: each chunk's last use, and the uses in order.
        let capacity = Swift.max(1, source.keptChunkCount)
        var lastUse: [Int: Int] = [:]
        var uses: [(chunk: Int, stamp: Int)] = []
        var oldest = 0
        var decodes = 0
        var seen = Set<Int>()
        let columns = (extent.width + size.width - 1) / size.width
        for request in requests {
            let region = request.region.intersection(extent)
            guard !region.isEmpty else { continue }
            for row in (region.minY / size.height)...((region.maxY - 1) / size.height) {
                for column in (region.minX / size.width)...((region.maxX - 1) / size.width) {
                    let chunk = row * columns + column
                    if lastUse[chunk] == nil {
                        decodes += 1
                        seen.insert(chunk)
                        while lastUse.count >= capacity, oldest < uses.count {
                            let use = uses[oldest]
                            oldest += 1
                            if lastUse[use.chunk] == use.stamp { lastUse[use.chunk] = nil }
                        }
                    }
                    lastUse[chunk] = uses.count
                    uses.append((chunk, uses.count))
                }
            }
        }
        guard decodes * 4 > seen.count * 5 else { return nil }
        let height = size.height * Swift.max(1, (64 + size.height - 1) / size.height)
        return (Swift.min(size.width, extent.width), Swift.min(height, extent.height))
    }
}

extension PassPlan.Serving {
    /// "stream", "a window of 512 rows, 6.2 MiB", "kept whole in memory, 35 MiB".
    package var summary: String {
        switch self {
        case .stream: "stream"
        case .window(let rows, let bytes): "a window of \(rows) rows, \(describeBytes(bytes)) at most"
        case .whole(let bytes, let inFile):
            "kept whole for the pass " + (inFile ? "in a temporary file" : "in memory") + ", \(describeBytes(bytes))"
        case .kept: "kept whole by the run"
        }
    }
}

extension PassPlan: CustomStringConvertible {
    /// The pass as `tessera run --plan` prints it: each image it renders, consumers first.
    package var description: String {
        var lines: [String] = []
        for entry in entries {
            let name = entry.isStage ? "\(entry.node) (a stage of \(entry.op))" : "\(entry.node) (\(entry.op))"
            let times =
                entry.rendered == 0
                ? ""
                : ", renders \(Self.megapixels(entry.rendered)) MP for \(Self.megapixels(entry.width * entry.height))"
            lines.append("    \(name) \(entry.width)x\(entry.height): \(entry.serving.summary)\(times)")
            lines.append("      " + entry.reason)
            if let format = entry.format { lines.append("      moves as \(format), the file's samples") }
        }
        return lines.joined(separator: "\n")
    }

    static func megapixels(_ pixels: Int) -> String {
        let value = Double(pixels) / 1e6
        let hundredths = (value * 100).rounded() / 100
        return hundredths == hundredths.rounded() ? "\(Int(hundredths))" : "\(hundredths)"
    }
}
