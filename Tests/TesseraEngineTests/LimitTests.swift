import Foundation
import Testing

@testable import TesseraCatalog
@testable import TesseraGraph
@testable import TesseraPluginHost
@testable import TesseraRunner

/// What a run refuses before it allocates or writes: an output larger than the output limit, and thread
/// counts and tile sizes out of range.
@Suite struct RunLimitTests {
    /// A 1000000x1000000 image saved as a tiled TIFF would write until the disk is full: where only the
    /// run knows its size (a resize by a factor), it is refused before the file is opened, naming the sink,
    /// the size and how to raise the limit; nothing is left behind.
    @Test(arguments: [
        (1_000_000, RunOptions.defaultMaxOutputPixels, "1000000x1000000 (1000000000000 pixels)", 4_294_967_296),
        (67, 1000, "67x67 (4489 pixels)", 1000),
    ])
    func anOutputOverTheLimitIsRefusedBeforeWriting(side: Int, limit: Int, size: String, shown: Int) throws {
        try withTemporaryFolder { folder in
            let text = """
                version: 1
                nodes:
                  c: { op: constant, width: 100, height: 100 }
                  r: { op: resize, input: c, factor: \(Double(side) / 100) }
                  o: { op: save, input: r, path: big.tif, tile: 256 }
                """
            let graph = try Graph.parse(text, file: "g.yaml", baseFolder: folder.path, catalog: testCatalog)
            let error = #expect(throws: RunError.self) {
                try graph.run(options: RunOptions(maxOutputPixels: limit))
            }
            #expect(
                error?.description
                    == "g.yaml:5:3: error: save node 'o': the image to write is \(size), more than the output limit "
                    + "of \(shown) pixels; raise it with --max-output-pixels N (RunOptions.maxOutputPixels)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
        }
    }

    /// Where the parameters fix the size (a `constant` with a width and height), validation finds it, at
    /// the limit the run will have.
    @Test func aKnownSizeOverTheLimitIsAValidationError() throws {
        let text = """
            version: 1
            nodes:
              c: { op: constant, width: 1000000, height: 1000000 }
              o: { op: save, input: c, path: big.tif }
            """
        let error = #expect(throws: GraphErrors.self) {
            try Graph.parse(text, file: "g.yaml", baseFolder: "", catalog: testCatalog)
        }
        #expect(
            error?.diagnostics.map(\.description) == [
                "g.yaml:4:25: error: o.input: 'c' is 1000000x1000000 (1000000000000 pixels), more than the output "
                    + "limit of 4294967296 pixels; raise it with --max-output-pixels N"
            ])
        let raised = try? Graph.parse(
            text, file: "g.yaml", baseFolder: "", catalog: testCatalog, maxOutputPixels: 1 << 40)
        #expect(raised != nil)
    }

    /// Thread counts and tile sizes out of range are named by `problem`, and held in range by the options
    /// themselves, so a program that skips the check never allocates per-worker state for 2^31 workers.
    @Test func threadsAndTileSizesStayInRange() {
        #expect(RunOptions.problem(threads: 2, tileSize: 256) == nil)
        #expect(RunOptions.problem(threads: 0, tileSize: 256) == "--threads must be from 1 to 256, not 0")
        #expect(
            RunOptions.problem(threads: 1 << 31, tileSize: 256) == "--threads must be from 1 to 256, not 2147483648")
        #expect(
            RunOptions.problem(threads: 1, tileSize: .max) == "--tile-size must be from 16 to 4096, not \(Int.max)")
        #expect(
            RunOptions.problem(threads: 1, tileSize: 16, maxOutputPixels: 0)
                == "--max-output-pixels must be positive, not 0")
        var options = RunOptions(threads: .max, tileSize: .max)
        #expect(options.threads == 256 && options.tileSize == 4096)
        options.threads = -5
        options.tileSize = 2
        #expect(options.threads == 1 && options.tileSize == 16)
    }
}
