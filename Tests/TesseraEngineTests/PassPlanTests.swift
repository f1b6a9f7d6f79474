import Foundation
import Testing

@testable import Tessera

/// Each pass's plan, made from the requests its readers make (``PassPlan``), against the run itself:
/// what `run --plan` prints is what the run does, every decoder decodes its pixels once, and a window
/// holds no more than the plan says.
@Suite struct PassPlanTests {
    /// Plans and runs `nodes` (a 1000x700 gray PNG as `photo`, or a TIFF of the same pixels), tiles
    /// `tileSize` square, on `threads` threads; `written` reads the files the run wrote before they go.
    func planAndRun(
        _ nodes: [String], tileSize: Int, threads: Int = 2, format: String = "png",
        written: (URL) throws -> Void = { _ in }
    ) throws -> (RenderPlan, RunReport) {
        try withTemporaryFolder { folder in
            let file = folder.appendingPathComponent("photo.\(format)").path
            let make = """
                version: 1
                nodes:
                  large: { op: testLarge, size: 1000 }
                  part: { op: crop, input: large, rect: [0, 0, 1000, 700] }
                  out: { op: save, input: part, path: \(file) }
                """
            try Graph.parse(make, file: "make.yaml", baseFolder: folder.path, catalog: testCatalog).run()
            let text = (["version: 1", "nodes:", "  photo: { op: load, path: \(file) }"] + nodes.map { "  " + $0 })
                .joined(separator: "\n")
            let graph = try Graph.parse(text, file: "g.yaml", baseFolder: folder.path, catalog: testCatalog)
            let options = RunOptions(threads: threads, tileSize: tileSize)
            let result = (try graph.plan(options: options), try graph.run(options: options))
            try written(folder)
            return result
        }
    }

    func entry(_ plan: PassPlan?, _ node: String) -> PassPlan.Entry? {
        plan?.entries.first { $0.node == node && !$0.isStage }
    }

    func pixels(_ report: RunReport, _ node: String) -> Int? { report.nodes.first { $0.node == node }?.pixels }

    func peakCache(_ report: RunReport, _ node: String) -> Int? {
        report.nodes.first { $0.node == node }?.peakCacheBytes
    }

    /// Each output band of a 90-degree turn reads a column of the input from its top row to its bottom:
    /// a window would hold all of it, so the PNG is kept whole for the pass and decoded once, at any tile
    /// size and thread count.
    @Test(arguments: [(16, 1), (64, 2), (256, 2), (1024, 2)])
    func aTurnedDecoderIsKeptWholeAndDecodedOnce(_ tileSize: Int, _ threads: Int) throws {
        let (plan, report) = try planAndRun(
            ["turned: { op: rotate, input: photo, angle: 90 }", "out: { op: save, input: turned, path: o.tif }"],
            tileSize: tileSize, threads: threads)
        let photo = try #require(entry(plan.passPlans["out"], "photo"))
        #expect(photo.serving == .whole(bytes: 700 * 1000, inFile: false))
        #expect(photo.reason.contains("kept whole, decoded once"))
        #expect(pixels(report, "photo") == 700 * 1000)
        #expect(entry(plan.passPlans["out"], "turned")?.serving == .stream)
    }

    /// A flip top to bottom asks for the last rows first: the same.
    @Test func aFlippedDecoderIsKeptWhole() throws {
        let (plan, report) = try planAndRun(
            [
                "flipped: { op: flip, input: photo, direction: vertical }",
                "out: { op: save, input: flipped, path: o.tif }",
            ],
            tileSize: 128)
        #expect(entry(plan.passPlans["out"], "photo")?.serving == .whole(bytes: 700 * 1000, inFile: false))
        #expect(pixels(report, "photo") == 700 * 1000)
    }

    /// A sigma 2 blur's tile reads 8 rows (4 sigma) above and below it: the PNG's rows stay while the band
    /// below reads them again, in a window of whole-width rows; the run's cache stays within it.
    @Test func aDecoderReadWithMarginsKeepsAWindow() throws {
        let (plan, report) = try planAndRun(
            ["soft: { op: gaussianBlur, input: photo, sigma: 2 }", "out: { op: save, input: soft, path: o.tif }"],
            tileSize: 64)
        let photo = try #require(entry(plan.passPlans["out"], "photo"))
        guard case .window(let rows, let bytes) = photo.serving else {
            Issue.record("the photo is served as \(photo.serving)")
            return
        }
        // In rows of 64-row cells: the one above the band (its top margin), the band, the band the workers
        // may render ahead of it, and the one below that (its bottom margin).
        #expect(rows == 4 * 64 && bytes == 4 * 64 * 1000)
        #expect(pixels(report, "photo") == 700 * 1000)
        let peak = try #require(peakCache(report, "photo"))
        #expect(peak > 0 && peak <= bytes, "the run kept \(peak) bytes, the plan said at most \(bytes)")
    }

    /// A TIFF is read with margins through a window of cells too, each decoded once, and the blur is the
    /// same as from the PNG. Its cells are a quarter of a tile tall (a tile reads more rows than a tile):
    /// from the cell above the band's margin to the one below the margin of the band ahead, 160 rows.
    @Test func aTIFFReadWithMarginsKeepsAWindowToo() throws {
        let nodes = [
            "soft: { op: gaussianBlur, input: photo, sigma: 2 }", "out: { op: save, input: soft, path: o.png }",
        ]
        var fromPNG = Data()
        var fromTIFF = Data()
        _ = try planAndRun(nodes, tileSize: 64) { fromPNG = try Data(contentsOf: $0.appendingPathComponent("o.png")) }
        let (plan, report) = try planAndRun(nodes, tileSize: 64, format: "tif") {
            fromTIFF = try Data(contentsOf: $0.appendingPathComponent("o.png"))
        }
        #expect(entry(plan.passPlans["out"], "photo")?.serving == .window(rows: 160, bytes: 160 * 1000))
        #expect(pixels(report, "photo") == 700 * 1000)
        #expect(!fromTIFF.isEmpty && fromTIFF == fromPNG)
    }

    /// Which requests make a file's chunks worth keeping: bands far apart reading the same chunk (a turn),
    /// not bands reading theirs in order (a copy) or a band and the next sharing a boundary's (margins),
    /// which the reader's four recent strips serve.
    @Test func chunksAreKeptOnlyWhereTheReadersRecentOnesWouldNotServe() {
        struct Strips: PixelSource {
            func render(into buffer: inout PixelBuffer) throws {}
            var preferredTileSize: (width: Int, height: Int)? { (1000, 16) }
            var keptChunkCount: Int { 4 }
        }
        let extent = Rect(width: 1000, height: 700)
        let bands = 0..<11
        let copy = bands.map { (band: $0, region: Rect(x: 0, y: $0 * 64, width: 1000, height: 64)) }
        let margins = bands.map { (band: $0, region: Rect(x: 0, y: $0 * 64 - 8, width: 1000, height: 80)) }
        let turn = bands.map { (band: $0, region: Rect(x: $0 * 64, y: 0, width: 64, height: 700)) }
        #expect(PassPlan.rereadChunk(of: Strips(), requests: copy, extent: extent) == nil)
        #expect(PassPlan.rereadChunk(of: Strips(), requests: margins, extent: extent) == nil)
        let chunk = PassPlan.rereadChunk(of: Strips(), requests: turn, extent: extent)
        // Whole-width cells of strips, at least 64 rows.
        #expect(chunk?.width == 1000 && chunk?.height == 64)
    }

    /// Two readers of the photo in one pass (a blur and the composite over it) share its cells.
    @Test func twoReadersInOnePassShareCells() throws {
        let (plan, report) = try planAndRun(
            [
                "soft: { op: gaussianBlur, input: photo, sigma: 4 }",
                "mix: { op: composite, input: soft, background: photo }", "out: { op: save, input: mix, path: o.tif }",
            ], tileSize: 64)
        guard case .window? = entry(plan.passPlans["out"], "photo")?.serving else {
            Issue.record("the photo is served as \(String(describing: entry(plan.passPlans["out"], "photo")))")
            return
        }
        #expect(pixels(report, "photo") == 700 * 1000)
    }

    /// A crop that moves rows up, beside the photo read in place: the decoder is read in two orders at once.
    @Test func aDecoderReadInTwoOrdersIsDecodedOnce() throws {
        let (_, report) = try planAndRun(
            [
                "part: { op: crop, input: photo, rect: [0, 400, 1000, 300] }",
                "moved: { op: resize, input: part, width: 1000, height: 700 }",
                "mix: { op: composite, input: moved, background: photo }", "out: { op: save, input: mix, path: o.tif }",
            ], tileSize: 64)
        #expect(pixels(report, "photo") == 700 * 1000)
    }

    /// What `run --plan` prints for a pass is what the run planned when the pass began; a pass that reads
    /// what a global node makes is planned only then.
    @Test func thePrintedPlanIsTheRunsPlan() throws {
        let (plan, report) = try planAndRun(
            [
                "turned: { op: rotate, input: photo, angle: 270 }", "a: { op: save, input: turned, path: a.tif }",
                "norm: { op: normalize, input: photo }", "big: { op: resize, input: norm, factor: 0.5 }",
                "b: { op: save, input: big, path: b.tif }",
            ], tileSize: 128)
        let ran = Dictionary(report.passes.map { ($0.reader, $0.description) }, uniquingKeysWith: { a, _ in a })
        #expect(plan.passPlans["a"]?.description == ran["a"])
        #expect(plan.passPlans["norm"]?.description == ran["norm"])
        #expect(plan.passPlans["b"] == nil && ran["b"] != nil)
        #expect(plan.description.contains("planned when it begins"))
    }

    /// A resize to a tenth of a 6000-pixel PNG: each band of 256 output rows reads 2560 rows of it, and the
    /// band ahead as many, so in the run's tiles the pass would keep the photo (36 MB) and the resize's
    /// rows pass whole. It takes tiles of 64 instead, streams the photo through a window, holds less
    /// than half, decodes it once, and writes the bytes of whole-image tiles.
    @Test func aPassThatWouldKeepMuchWholeTakesSmallerTiles() throws {
        try withTemporaryFolder { folder in
            let file = folder.appendingPathComponent("big.png").path
            let make = """
                version: 1
                nodes:
                  large: { op: testLarge, size: 6000 }
                  out: { op: save, input: large, path: \(file) }
                """
            try Graph.parse(make, file: "make.yaml", baseFolder: folder.path, catalog: testCatalog).run()
            func run(tileSize: Int, output: String) throws -> (RenderPlan, RunReport) {
                let text = """
                    version: 1
                    nodes:
                      photo: { op: load, path: big.png }
                      small: { op: resize, input: photo, factor: 0.1 }
                      out: { op: save, input: small, path: \(output), depth: float }
                    """
                let graph = try Graph.parse(text, file: "g.yaml", baseFolder: folder.path, catalog: testCatalog)
                let options = RunOptions(threads: 2, tileSize: tileSize)
                return (try graph.plan(options: options), try graph.run(options: options))
            }
            let (plan, report) = try run(tileSize: 256, output: "a.tif")
            let pass = try #require(plan.passPlans["out"])
            #expect(pass.tileSize == 64 && pass.narrowed?.tileSize == 256, "\(pass.description)")
            #expect(try #require(pass.narrowed).heldBytes >= 2 * pass.heldBytes)
            guard case .window? = entry(pass, "photo")?.serving else {
                Issue.record("the photo is not read through a window: \(pass.description)")
                return
            }
            #expect(plan.description.contains("(tiles of 64, not 256: in those its bands would hold"))
            #expect(report.passes.first { $0.reader == "out" }?.tileSize == 64)
            #expect(pixels(report, "photo") == 6000 * 6000)
            _ = try run(tileSize: 4096, output: "b.tif")
            let (a, b) = (folder.appendingPathComponent("a.tif").path, folder.appendingPathComponent("b.tif").path)
            #expect(FileManager.default.contents(atPath: a) == FileManager.default.contents(atPath: b))
        }
    }
}
