import Foundation
import Testing

@testable import Tessera

/// The cache windows `tessera run --plan` prints: the cells the run will keep of an image, known before
/// any pixel. Each is checked against the run itself: the cache memory the run's report measures.
@Suite struct PlanWindowTests {
    /// Plans and runs `nodes` (a 1000x700 PNG as `photo`, or a TIFF of the same pixels), tiles
    /// `tileSize` square, on two threads; `written` reads the files the run wrote before they go.
    func planAndRun(
        _ nodes: [String], tileSize: Int, format: String = "png", written: (URL) throws -> Void = { _ in }
    ) throws -> (RenderPlan, RunReport) {
        try withTemporaryFolder { folder in
            let png = folder.appendingPathComponent("photo.\(format)").path
            let make = """
                version: 1
                nodes:
                  large: { op: testLarge, size: 1000 }
                  part: { op: crop, input: large, rect: [0, 0, 1000, 700] }
                  out: { op: save, input: part, path: \(png) }
                """
            try Graph.parse(make, file: "make.yaml", baseFolder: folder.path, catalog: testCatalog).run()
            let text = (["version: 1", "nodes:", "  photo: { op: load, path: \(png) }"] + nodes.map { "  " + $0 })
                .joined(separator: "\n")
            let graph = try Graph.parse(text, file: "g.yaml", baseFolder: folder.path, catalog: testCatalog)
            let options = RunOptions(threads: 2, tileSize: tileSize)
            let result = (try graph.plan(options: options), try graph.run(options: options))
            try written(folder)
            return result
        }
    }

    func peakCache(_ report: RunReport, _ node: String) -> Int? {
        report.nodes.first { $0.node == node }?.peakCacheBytes
    }

    /// A PNG decodes front to back, so its cells are whole rows of a tile's height; a sigma 2 blur's
    /// tile reads 256 + 2 x 8 rows (SciPy's reach, 4 sigma), which spans 2 cells, plus one row of cells
    /// for the next band: 3 rows of 1000x256 gray cells.
    @Test func aDecoderReadWithMarginsKeepsWholeWidthRows() throws {
        let (plan, report) = try planAndRun(
            ["soft: { op: gaussianBlur, input: photo, sigma: 2 }", "out: { op: save, input: soft, path: o.tif }"],
            tileSize: 256)
        let window = try #require(plan.image("photo")?.window)
        #expect(window.cellWidth == 1000 && window.cellHeight == 256 && window.rows == 3 && window.cells == 3)
        #expect(window.bytes == 700 * 1000, "the 700 rows the 3 cells hold, one byte a pixel (8-bit gray, as stored)")
        // The run fills the whole window (the 700 rows are 3 cells), no more.
        #expect(peakCache(report, "photo") == window.bytes)
        #expect(plan.description.contains("cached in a window of 768 rows: 3 rows of whole-width cells 1000x256"))
    }

    /// A TIFF reader keeps the strips it decoded (here all of them: the 700 rows), so a blur's margins are
    /// read again from it and no cache holds a second copy; the blur is the same as from the PNG, whose
    /// rows the cache keeps.
    @Test func aTIFFReadWithMarginsNeedsNoCache() throws {
        let nodes = [
            "soft: { op: gaussianBlur, input: photo, sigma: 2 }", "out: { op: save, input: soft, path: o.png }",
        ]
        var fromPNG = Data()
        var fromTIFF = Data()
        _ = try planAndRun(nodes, tileSize: 256) { fromPNG = try Data(contentsOf: $0.appendingPathComponent("o.png")) }
        let (plan, report) = try planAndRun(nodes, tileSize: 256, format: "tif") {
            fromTIFF = try Data(contentsOf: $0.appendingPathComponent("o.png"))
        }
        let photo = try #require(plan.image("photo"))
        #expect(photo.window == nil && photo.keptRows == 700)
        #expect(plan.description.contains("margins read again from the 700 rows its decoder keeps, no cache"))
        #expect((peakCache(report, "photo") ?? 0) == 0)
        #expect(!fromTIFF.isEmpty && fromTIFF == fromPNG)
    }

    /// A computed image (a crop) is cached in tiles; a sigma 20 blur's 64-pixel tiles read 64 + 2 x 70
    /// rows (3.5 sigma from sigma 4.5 on), taller than a tile, so the cells are a quarter tile tall:
    /// 204 rows span 13 rows of cells, plus one, of 16 cells (1000 / 64, rounded up) each.
    @Test func aBlurOfAComputedImageKeepsQuarterTileCells() throws {
        let (plan, report) = try planAndRun(
            [
                "part: { op: crop, input: photo, rect: [0, 0, 1000, 600] }",
                "soft: { op: gaussianBlur, input: part, sigma: 20 }", "out: { op: save, input: soft, path: o.tif }",
            ], tileSize: 64)
        let window = try #require(plan.image("part")?.window)
        #expect(window.cellWidth == 64 && window.cellHeight == 16 && window.rows == 14 && window.cells == 14 * 16)
        let peak = try #require(peakCache(report, "part"))
        #expect(peak > 0 && peak <= window.bytes, "the run kept \(peak) bytes, the plan said at most \(window.bytes)")
    }

    /// A node configured only by what the run computes (here a resize of a normalize's output, known
    /// after it reads its input) has no window in the plan; nor has an image no one reads with margins.
    @Test func whatTheRunDecidesIsNotInThePlan() throws {
        let (plan, _) = try planAndRun(
            [
                "norm: { op: normalize, input: photo }", "big: { op: resize, input: norm, factor: 0.5 }",
                "soft: { op: gaussianBlur, input: big, sigma: 2 }", "out: { op: save, input: soft, path: o.tif }",
            ], tileSize: 256)
        #expect(plan.image("big")?.window == nil)
        #expect(plan.image("soft")?.window == nil)
    }
}
