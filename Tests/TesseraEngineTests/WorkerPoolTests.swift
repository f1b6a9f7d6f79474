import Foundation
import Testing

@testable import Tessera

/// The run's own workers: how many threads render, what they allocate, how fast they stop.
@Suite struct WorkerPoolTests {
    /// A gradient, cropped to `width` x `height`, blurred (a margin, so a cache of cells), tinted
    /// (a point kernel) and written as a TIFF.
    static func chain(width: Int, height: Int, key: String, cancelAt: Int = -1, in folder: URL) throws -> Graph {
        let text = """
            version: 1
            nodes:
              large: { op: testLarge, size: 4096 }
              part:  { op: crop, input: large, rect: [0, 0, \(width), \(height)] }
              probe: { op: testProbe, input: part, key: \(key), cancelAt: \(cancelAt) }
              soft:  { op: gaussianBlur, input: probe, sigma: 2 }
              tint:  { op: colorMatrix, input: soft, r: [0.5, 0, 0, 0] }
              out:   { op: save, input: tint, path: out.tif }
            """
        return try Graph.parse(text, file: "g.yaml", baseFolder: folder.path, catalog: testCatalog)
    }

    /// Only the run's own threads render: the caller and `threads - 1` workers, whatever the number of
    /// tiles (Dispatch's pool, which the scheduler used before, grows past the core count when its
    /// threads block).
    @Test(arguments: [1, 2, 3])
    func tilesRenderOnTheRunsThreadsOnly(threads: Int) throws {
        try withTemporaryFolder { folder in
            let key = "threads-\(threads)"
            try Self.chain(width: 512, height: 1024, key: key, in: folder)
                .run(options: RunOptions(threads: threads, tileSize: 32))
            let record = try #require(TestProbe.records.withLock { $0[key] })
            #expect(record.tiles >= 512 * 1024 / (32 * 32))
            #expect(record.threads.count <= threads)
            if threads == 1 { #expect(record.threads == [UInt(pthread_self())]) }
        }
    }

    /// Workers keep the buffers they are done with for their next tiles: a run eight times as tall, in
    /// eight times as many tiles, allocates hardly more pixel buffers. (Before the run's own workers,
    /// every kernel's input region and every tile was a fresh buffer: thousands here.) Which worker
    /// renders which tile depends on timing, and a worker meeting a tile shape its spares lack allocates
    /// once: measured 45 to 49 buffers for either height on a loaded machine, so the bound is a tenth of
    /// the 448 extra tiles, where one buffer a tile would add 448 or more.
    @Test(arguments: [1, 2])
    func buffersAreReusedFromTileToTile(threads: Int) throws {
        try withTemporaryFolder { folder in
            func allocations(height: Int) throws -> Int {
                try Self.chain(width: 256, height: height, key: "allocations", in: folder)
                    .run(options: RunOptions(threads: threads, tileSize: 32)).bufferAllocations
            }
            let short = try allocations(height: 256)  // 64 tiles
            let tall = try allocations(height: 2048)  // 512 tiles
            #expect(short > 0)
            #expect(tall - short < (512 - 64) / 10, "\(short) buffers for 64 tiles, \(tall) for 512")
        }
    }

    /// Spares are taken by how many samples they hold, not only by their room: a worker rendering
    /// identical tiles one after another clears nothing after its first few. (Taking the smallest room
    /// that fits gave a kernel's input the spare its tile had just shrunk, and zero-filled it back to
    /// size on every tile: 2,048 samples per tile here, 5.9% of a blur's time on an 8K photo.)
    @Test func sparesAreNotClearedFromTileToTile() throws {
        try withTemporaryFolder { folder in
            func zeroFilled(height: Int) throws -> Int {
                let text = """
                    version: 1
                    nodes:
                      large: { op: testLarge, size: 4096 }
                      part:  { op: crop, input: large, rect: [0, 0, 256, \(height)] }
                      tint:  { op: colorMatrix, input: part, r: [0.5, 0, 0, 0] }
                      out:   { op: save, input: tint, path: out.tif }
                    """
                let graph = try Graph.parse(text, file: "g.yaml", baseFolder: folder.path, catalog: testCatalog)
                // One thread: the caller renders every tile, so its own count covers the run.
                let before = PixelBuffer.zeroFilledOnThisThread
                try graph.run(options: RunOptions(threads: 1, tileSize: 32))
                return PixelBuffer.zeroFilledOnThisThread - before
            }
            let short = try zeroFilled(height: 256)  // 64 tiles
            let tall = try zeroFilled(height: 2048)  // 512 tiles
            #expect(tall - short < 32 * 32 * 4, "\(short) samples cleared for 64 tiles, \(tall) for 512")
        }
    }

    /// Cancelling stops every worker within the tile it is rendering: once the flag is set, no tile
    /// begins except on workers that had checked it just before.
    @Test(arguments: [1, 2, 3])
    func cancellationStopsEveryWorkerWithinATile(threads: Int) throws {
        try withTemporaryFolder { folder in
            let key = "cancel-\(threads)"
            let cancellation = Cancellation()
            TestProbe.records.withLock { $0[key] = TestProbe.Record(cancellation: cancellation) }
            let graph = try Self.chain(width: 256, height: 4096, key: key, cancelAt: 1000, in: folder)
            #expect {
                try graph.run(options: RunOptions(threads: threads, tileSize: 32, cancellation: cancellation))
            } throws: { error in
                (error as? RunError)?.isCancellation == true
            }
            let record = try #require(TestProbe.records.withLock { $0[key] })
            #expect(record.tilesAfterCancel < threads, "\(record.tilesAfterCancel) tiles began after the cancel")
            // Far fewer than the 1024 tiles of the whole image: the run stopped near row 1000.
            #expect(record.tiles < 1024 / 2)
            #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("out.tif").path))
        }
    }

    /// A writer's own time is its encoding: on one thread it renders every tile itself while it waits
    /// for its bands, and that time is its inputs', counted once (it was once subtracted twice, which
    /// left the writer no time at all).
    @Test func aWriterRenderingItsOwnTilesKeepsItsOwnTime() throws {
        try withTemporaryFolder { folder in
            let report = try Self.chain(width: 512, height: 512, key: "own-time", in: folder)
                .run(options: RunOptions(threads: 1, tileSize: 64))
            let stats = Dictionary(uniqueKeysWithValues: report.nodes.map { ($0.node, $0) })
            let out = try #require(stats["out"])
            let soft = try #require(stats["soft"])
            #expect(out.seconds > 0 && soft.seconds > 0)
            // Every node's own time together is the run's time at most (one thread).
            #expect(report.nodes.reduce(0) { $0 + $1.seconds } <= report.seconds)
        }
    }

    /// A finished run frees what it made, whatever its threads: a batch or a program embedding the
    /// engine runs thousands of graphs in one process. (A run of one thread once kept every band of
    /// tiles it had submitted, and with them its images: 20 MB a megapixel photo.)
    @Test func aFinishedRunFreesItsImages() throws {
        // One test, the counts one after another: the count of live sources is shared.
        for threads in [1, 2] {
            try runFreesItsImages(threads: threads)
        }
    }

    func runFreesItsImages(threads: Int) throws {
        try withTemporaryFolder { folder in
            let text = """
                version: 1
                nodes:
                  a:   { op: testTracked }
                  b:   { op: gaussianBlur, input: a, sigma: 3 }
                  out: { op: save, input: b, path: \(folder.appendingPathComponent("out.tif").path) }
                """
            for _ in 0..<3 {
                let graph = try Graph.parse(text, file: "g.yaml", baseFolder: "", catalog: testCatalog)
                try graph.run(options: RunOptions(threads: threads, tileSize: 64))
            }
            #expect(TestTracked.alive.withLock { $0 } == 0, "\(threads) threads")
        }
    }
}
