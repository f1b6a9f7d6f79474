import Foundation
import Testing
import TesseraNodes

/// `tessera run`, `validate`, `dot`, `nodes` and `schema` as a user calls them.
@Suite struct GraphCommandTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let photo = repository.appendingPathComponent("Examples/images/astronaut.png").path

    /// Writes `folder`/g.yaml: the example photo loaded as `photo`, then `nodes`, one a line.
    static func writePhotoGraph(_ nodes: [String], in folder: URL) throws {
        let lines = ["version: 1", "nodes:", "  photo: { op: load, path: \(photo) }"] + nodes.map { "  " + $0 }
        try Data(lines.joined(separator: "\n").utf8).write(to: folder.appendingPathComponent("g.yaml"))
    }

    /// A load-save graph writes the same bytes as `tessera convert` with the same options.
    @Test(arguments: [
        (
            ["--depth", "16", "--tile", "256", "--compression", "deflate"],
            "depth: 16, tile: 256, compression: deflate", "tif"
        ),
        (["--compression", "lzw"], "compression: lzw", "tiff"),
        (["--compression", "9"], "compression: 9", "png"),
        (["--quality", "70", "--progressive"], "quality: 70, progressive: true", "jpg"),
        ([], "", "png"),
    ])
    func runReproducesConvert(convertOptions: [String], saveOptions: String, ext: String) throws {
        try withTemporaryFolder { folder in
            let converted = folder.appendingPathComponent("converted.\(ext)").path
            let convert = try CLI.run(["convert", Self.photo, converted] + convertOptions)
            #expect(convert.status == 0, "\(convert.stderr)")
            let options = saveOptions.isEmpty ? "" : ", " + saveOptions
            let graph = """
                version: 1
                nodes:
                  photo: { op: load, path: \(Self.photo) }
                  out: { op: save, input: photo, path: graph.\(ext)\(options) }
                """
            let graphPath = folder.appendingPathComponent("g.yaml").path
            try graph.write(toFile: graphPath, atomically: false, encoding: .utf8)
            let run = try CLI.run(["run", graphPath])
            let written = folder.appendingPathComponent("graph.\(ext)").path
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stdout == "Wrote \(written)\n")
            let a = try Data(contentsOf: URL(fileURLWithPath: converted))
            let b = try Data(contentsOf: URL(fileURLWithPath: written))
            #expect(a == b, "graph output differs from convert's (\(a.count) vs \(b.count) bytes)")
        }
    }

    @Test func setOverridesAndResolvesAgainstTheCurrentFolder() throws {
        try withTemporaryFolder { folder in
            let graph =
                "version: 1\nnodes:\n  photo: { op: load, path: \(Self.photo) }\n  out: { op: save, input: photo, path: a.png }\n"
            try graph.write(to: folder.appendingPathComponent("g.yaml"), atomically: false, encoding: .utf8)
            try FileManager.default.createDirectory(
                at: folder.appendingPathComponent("sub"), withIntermediateDirectories: true)
            let run = try CLI.run(
                ["run", "../g.yaml", "--set", "out.path=b.tif", "--set", "out.depth=16"],
                in: folder.appendingPathComponent("sub"))
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stdout == "Wrote b.tif\n")
            let info = try CLI.run(["info", folder.appendingPathComponent("sub/b.tif").path])
            #expect(info.stdout.contains("bit depth:   16"))
            #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("a.png").path))
        }
    }

    @Test func validateReportsEveryErrorWithStatus2() throws {
        try withTemporaryFolder { folder in
            let good = folder.appendingPathComponent("good.yaml")
            let bad = folder.appendingPathComponent("bad.json")
            try "version: 1\nnodes:\n  a: { op: load, path: x.png }\n  b: { op: save, input: a, path: o.png }\n"
                .write(to: good, atomically: false, encoding: .utf8)
            try
                #"{"version": 1, "nodes": {"a": {"op": "lod"}, "b": {"op": "save", "input": "a", "path": "o.png", "quality": 0}}}"#
                .write(to: bad, atomically: false, encoding: .utf8)
            let result = try CLI.run(["validate", "good.yaml", "bad.json"], in: folder)
            #expect(result.status == 2)
            #expect(!result.signaled)
            #expect(result.stdout == "good.yaml: ok (2 nodes)\n")
            #expect(
                result.stderr == """
                    bad.json:1:38: error: unknown op 'lod'; did you mean 'load'?
                    bad.json:1:108: error: b.quality: 0 is out of range: 1...100

                    """)
            let missing = try CLI.run(["validate", "nope.yaml"], in: folder)
            #expect(missing.status == 2)
            #expect(missing.stderr == "nope.yaml: error: no such file\n")
        }
    }

    @Test func runFailureNamesTheNodeAndLeavesNoFile() throws {
        try withTemporaryFolder { folder in
            let broken = folder.appendingPathComponent("broken.png")
            try Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0]).write(to: broken)
            try "version: 1\nnodes:\n  a: { op: load, path: broken.png }\n  b: { op: save, input: a, path: o.png }\n"
                .write(to: folder.appendingPathComponent("g.yaml"), atomically: false, encoding: .utf8)
            let result = try CLI.run(["run", "g.yaml"], in: folder)
            #expect(result.status == 1)
            #expect(!result.signaled)
            #expect(result.stderr.hasPrefix("g.yaml:3:3: error: load node 'a': broken.png: "))
            let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
            #expect(files == ["broken.png", "g.yaml"])
        }
    }

    @Test func nodesListsShowsAndExports() throws {
        let table = try CLI.run(["nodes"])
        #expect(table.status == 0)
        #expect(table.stdout.contains("Reads a PNG, TIFF, JPEG, WebP, GIF, HEIC or AVIF image"))
        #expect(table.stdout.split(separator: "\n").contains { $0.hasPrefix("load ") })
        let save = try CLI.run(["nodes", "save"])
        #expect(save.stdout.contains("  quality: integer, optional, 1...100\n"))
        #expect(save.stdout.contains("Example:\n  version: 1\n  nodes:\n    photo: { op: load, path: photo.png }"))
        let json = try CLI.run(["nodes", "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let ops = (object["nodes"] as? [[String: Any]])?.compactMap { $0["op"] as? String } ?? []
        #expect(ops == BuiltinNodes.all.map { $0.info.op }.sorted())
        let unknown = try CLI.run(["nodes", "sav"])
        #expect(unknown.status == 1)
        #expect(unknown.stderr == "Error: no node named 'sav'; did you mean 'save'?\n")
    }

    @Test func schemaMatchesTheCommittedFile() throws {
        let schema = try CLI.run(["schema"])
        #expect(schema.status == 0)
        let committed = try String(
            contentsOf: Self.repository.appendingPathComponent("tessera.schema.json"), encoding: .utf8)
        #expect(schema.stdout == committed)
    }

    @Test func dotPrintsTheGraph() throws {
        let result = try CLI.run(["dot", Self.repository.appendingPathComponent("Graphs/archive.yaml").path])
        #expect(result.status == 0)
        #expect(result.stdout.contains(#""photo" -> "archive" [label="input"];"#))
        #expect(
            result.stdout.contains(
                #"[label="web\nsave\npath: ../out/graphs/astronaut.jpg\nprogressive: true\nquality: 85"];"#))
    }

    /// `run --plan` prints the plan and writes nothing; `dot --plan` shows it on the graph.
    @Test func planIsPrintedWithoutRunning() throws {
        try withTemporaryFolder { folder in
            try Self.writePhotoGraph(
                [
                    "heat: { op: saliency, input: photo }",
                    "over: { op: composite, input: heat, background: photo }",
                    "out: { op: save, input: over, path: out.png }",
                ], in: folder)
            let plan = try CLI.run(["run", "--plan", "g.yaml"], in: folder)
            #expect(plan.status == 0, "\(plan.stderr)")
            #expect(plan.stdout.hasPrefix("2 passes:\n  1. heat (saliency) renders photo, about 0.26 megapixels\n"))
            #expect(plan.stdout.contains("photo (load 512x512): kept whole in memory, 768 KiB; read in 2 passes"))
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["g.yaml"])
            let dot = try CLI.run(["dot", "--plan", "g.yaml"], in: folder)
            #expect(dot.status == 0)
            #expect(dot.stdout.contains(#"[label="heat\nsaliency\npass 1"]"#))
            #expect(dot.stdout.contains(#"→ kept whole in memory, 768 KiB", style=filled"#))
        }
    }

    /// `run --plan` says what a blur's margins make the run keep of the photo: whole rows (a PNG decodes
    /// front to back) in cells of 32, from the one above the band (its margin, 8 rows at sigma 2) down
    /// through the band the workers may render ahead and the cell below it: 128 rows. At the default
    /// tiles, 256, that is most of the 512 rows: `dot --plan` shows the photo kept whole.
    @Test func planShowsTheCacheWindow() throws {
        try withTemporaryFolder { folder in
            try Self.writePhotoGraph(
                [
                    "soft: { op: gaussianBlur, input: photo, sigma: 2 }",
                    "out: { op: save, input: soft, path: out.png }",
                ], in: folder)
            let plan = try CLI.run(["run", "--plan", "--tile-size", "32", "g.yaml"], in: folder)
            #expect(plan.status == 0, "\(plan.stderr)")
            #expect(
                plan.stdout.contains(
                    // 128 x 512 pixels of 3 bytes: the cells keep the PNG's 8-bit RGB.
                    "    photo (load) 512x512: a window of 128 rows, 192 KiB at most, renders 0.26 MP for 0.26\n"
                        + "      decoded front to back: rows kept while the bands below read them again\n"
                        + "      moves as uint8 x 3, the file's samples"),
                "\(plan.stdout)")
            let dot = try CLI.run(["dot", "--plan", "g.yaml"], in: folder)
            #expect(dot.stdout.contains(#"\npass 1: kept whole for the pass in memory, 768 KiB""#), "\(dot.stdout)")
        }
    }

    /// Past `--disk-threshold` the photo is kept in a temporary file: same output, and the file is gone.
    @Test func aKeptImageInATemporaryFileLeavesNothing() throws {
        try withTemporaryFolder { folder in
            let temporary = folder.appendingPathComponent("tmp")
            try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: true)
            try Self.writePhotoGraph(
                [
                    "a: { op: save, input: photo, path: a.png }",
                    "soft: { op: gaussianBlur, input: photo, sigma: 3 }",
                    "b: { op: save, input: soft, path: b.png }",
                ], in: folder)
            let inMemory = try CLI.run(["run", "-q", "g.yaml"], in: folder)
            #expect(inMemory.status == 0)
            let a = try Data(contentsOf: folder.appendingPathComponent("a.png"))
            let b = try Data(contentsOf: folder.appendingPathComponent("b.png"))
            let plan = try CLI.run(["run", "--plan", "--disk-threshold", "1K", "g.yaml"], in: folder)
            #expect(plan.stdout.contains("photo (load 512x512): kept whole in a temporary file, 768 KiB"))
            let inFile = try CLI.run(
                ["run", "-q", "--disk-threshold", "1K", "g.yaml"], in: folder, environment: ["TMPDIR": temporary.path])
            #expect(inFile.status == 0, "\(inFile.stderr)")
            #expect(try Data(contentsOf: folder.appendingPathComponent("a.png")) == a)
            #expect(try Data(contentsOf: folder.appendingPathComponent("b.png")) == b)
            #expect(try FileManager.default.contentsOfDirectory(atPath: temporary.path).isEmpty)
            let bad = try CLI.run(["run", "--disk-threshold", "lots", "g.yaml"], in: folder)
            #expect(bad.status == 2)
            #expect(
                bad.stderr.contains("--disk-threshold must be a positive number of bytes, as 2G or 512M, not 'lots'"))
        }
    }

    /// `--trace` writes Chrome trace events (a span per node per tile, workers as threads), `--stats`
    /// prints a row per node, `--quiet` prints nothing else, and piped stderr gets no progress bar.
    @Test func traceStatsAndQuiet() throws {
        try withTemporaryFolder { folder in
            let graph = """
                version: 1
                nodes:
                  photo: { op: load, path: \(Self.photo) }
                  gray: { op: grayscale, input: photo }
                  out: { op: save, input: gray, path: gray.png }
                """
            try graph.write(to: folder.appendingPathComponent("g.yaml"), atomically: false, encoding: .utf8)
            let result = try CLI.run(
                [
                    "run", "g.yaml", "--trace", "trace.json", "--stats", "--quiet", "--tile-size", "128", "--threads",
                    "2",
                ],
                in: folder)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.isEmpty)
            #expect(!result.stderr.contains("\r"))
            let lines = result.stderr.split(separator: "\n")
            #expect(lines.contains { $0.hasPrefix("photo ") && $0.contains("load") })
            #expect(lines.contains { $0.hasPrefix("gray ") && $0.contains("grayscale") })
            #expect(lines.last?.hasPrefix("total ") == true)
            let data = try Data(contentsOf: folder.appendingPathComponent("trace.json"))
            let trace = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            let events = try #require(trace["traceEvents"] as? [[String: Any]])
            let spans = events.filter { $0["ph"] as? String == "X" }
            // 512x512 in 128-pixel tiles: 16 tiles of gray; each a span on a worker thread.
            #expect(spans.filter { $0["name"] as? String == "gray" }.count == 16)
            #expect(spans.allSatisfy { $0["dur"] is Double && $0["ts"] is Double })
            // Two workers: the thread that ran the graph (0), which encodes and takes the tiles of the
            // band it waits for, and one more (1), which renders the bands ahead of the writer.
            let tiles = spans.filter { $0["name"] as? String != "out" }
            #expect(Set(tiles.compactMap { $0["tid"] as? Int }).isSubset(of: [0, 1]))
            #expect(tiles.contains { $0["tid"] as? Int == 1 })
            #expect(spans.filter { $0["name"] as? String == "out" }.map { $0["tid"] as? Int } == [0])
            #expect(lines.contains { $0.hasPrefix("out ") && $0.contains("save") })
            let bad = try CLI.run(["run", "g.yaml", "--threads", "0"], in: folder)
            #expect(
                bad.status == 2
                    && bad.stderr == "Error: --threads must be from 1 to 256, not 0 (see 'tessera run --help')\n")
        }
    }
}

/// `run --input NODE=FILE`: a graph's `input` node fed from a file on the command line.
@Suite struct RunInputTests {
    static let graph = """
        version: 1
        nodes:
          photo: { op: input, width: 512, height: 512, channels: 3 }
          soft: { op: gaussianBlur, input: photo, sigma: 2 }
          out: { op: save, input: soft, path: fed.png }
        """

    @Test func anInputNodeTakesAFileAndGivesWhatLoadGives() throws {
        try withTemporaryFolder { folder in
            try Self.graph.write(to: folder.appendingPathComponent("g.yaml"), atomically: false, encoding: .utf8)
            try """
            version: 1
            nodes:
              photo: { op: load, path: \(GraphCommandTests.photo) }
              soft: { op: gaussianBlur, input: photo, sigma: 2 }
              out: { op: save, input: soft, path: loaded.png }
            """.write(to: folder.appendingPathComponent("l.yaml"), atomically: false, encoding: .utf8)
            let fed = try CLI.run(["run", "g.yaml", "-q", "--input", "photo=" + GraphCommandTests.photo], in: folder)
            #expect(fed.status == 0, "\(fed.stderr)")
            #expect(try CLI.run(["run", "l.yaml", "-q"], in: folder).status == 0)
            let bytes = try Data(contentsOf: folder.appendingPathComponent("fed.png"))
            #expect(bytes == (try Data(contentsOf: folder.appendingPathComponent("loaded.png"))))
        }
    }

    @Test(arguments: [
        (
            ["--input", "photo=small.png"],
            "g.yaml:3:30: error: input node 'photo': the image supplied is 61x47, and the graph declares 512x512"
        ),
        (["--input", "phto=small.png"], "g.yaml: error: the graph has no node 'phto'; did you mean 'photo'?"),
        (["--input", "photo=missing.png"], "missing.png: no such file"),
        (["--input", "photo"], "Error: --input takes NODE=FILE, as photo=photo.png, not 'photo'"),
        ([], "g.yaml:3:3: error: input node 'photo': no image was supplied for this input"),
        (
            ["--input", "photo=small.png", "--max-pixels", "100"],
            "small.png: 61x47 is more than the limit of 100 pixels (raise the limit: --max-pixels, or maxPixels in a graph)"
        ),
    ])
    func mistakesAreExplained(arguments: [String], message: String) throws {
        try withTemporaryFolder { folder in
            try Self.graph.write(to: folder.appendingPathComponent("g.yaml"), atomically: false, encoding: .utf8)
            try FileManager.default.copyItem(
                at: CLI.fixtures.appendingPathComponent("png/rgb-8bit.png"),
                to: folder.appendingPathComponent("small.png"))
            let result = try CLI.run(["run", "g.yaml", "-q"] + arguments, in: folder)
            #expect(result.status == (arguments.isEmpty ? 1 : 2) && !result.signaled)
            #expect(result.stderr.hasPrefix(message), "\(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("fed.png").path))
        }
    }
}

/// `tessera chain`: the same bytes as the graph file it stands for, that file printed by `--emit-graph`,
/// and errors shown under the chain at their column.
@Suite struct ChainCommandTests {
    static let steps = "contrast amount=1.5 | gaussianBlur sigma=2 | crop aspectRatio=4:3"

    @Test func aChainWritesWhatItsGraphFileWrites() throws {
        try withTemporaryFolder { folder in
            let photo = GraphCommandTests.photo
            let chained = try CLI.run(["chain", photo, Self.steps, "chained.png", "-q"], in: folder)
            #expect(chained.status == 0, "\(chained.stderr)")
            try """
            version: 1
            nodes:
              photo: { op: load, path: \(photo) }
              c: { op: contrast, input: photo, amount: 1.5 }
              b: { op: gaussianBlur, input: c, sigma: 2 }
              k: { op: crop, input: b, aspectRatio: 4:3 }
              o: { op: save, input: k, path: file.png }
            """.write(to: folder.appendingPathComponent("g.yaml"), atomically: false, encoding: .utf8)
            #expect(try CLI.run(["run", "g.yaml", "-q"], in: folder).status == 0)
            let bytes = try Data(contentsOf: folder.appendingPathComponent("chained.png"))
            #expect(bytes == (try Data(contentsOf: folder.appendingPathComponent("file.png"))))
            // --emit-graph prints a graph file that runs to the same bytes.
            let emitted = try CLI.run(["chain", photo, Self.steps, "emitted.png", "--emit-graph"], in: folder)
            #expect(
                emitted.status == 0
                    && emitted.stdout.contains("  crop: { op: crop, input: gaussianBlur, aspectRatio: 4:3 }\n"))
            try emitted.stdout.write(to: folder.appendingPathComponent("e.yaml"), atomically: false, encoding: .utf8)
            #expect(try CLI.run(["validate", "e.yaml"], in: folder).status == 0)
            #expect(try CLI.run(["run", "e.yaml", "-q"], in: folder).status == 0)
            #expect(bytes == (try Data(contentsOf: folder.appendingPathComponent("emitted.png"))))
        }
    }

    @Test(arguments: [
        (
            "contrast amount=1.5 | gaussianBlur sigma=-2", 2,
            "chain:1:42: error: gaussianBlur.sigma: -2 is out of range: 0...1000\n  contrast amount=1.5 | gaussianBlur sigma=-2\n                                           ^\n"
        ),
        (
            "contrast amount=1.5 | gausianBlur", 2,
            "chain:1:23: error: unknown op 'gausianBlur'; did you mean 'gaussianBlur'?\n  contrast amount=1.5 | gausianBlur\n                        ^\n"
        ),
        (
            "contrast amount=1.5 |", 2,
            "chain:1:22: error: an empty step: write an op between the bars, as 'contrast amount=1.5'\n  contrast amount=1.5 |\n                       ^\n"
        ),
    ])
    func errorsAreShownUnderTheChain(steps: String, status: Int32, message: String) throws {
        try withTemporaryFolder { folder in
            let result = try CLI.run(["chain", GraphCommandTests.photo, steps, "out.png"], in: folder)
            #expect(result.status == status && !result.signaled)
            #expect(result.stderr == message)
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
        }
    }

    @Test func filesAreNamedByTheirPaths() throws {
        try withTemporaryFolder { folder in
            let missing = try CLI.run(["chain", "nope.png", "contrast", "out.png"], in: folder)
            #expect(missing.status == 1)
            #expect(missing.stderr == "error: \(folder.path)/nope.png: no such file\n")
            let format = try CLI.run(["chain", GraphCommandTests.photo, "contrast", "out.xyz"], in: folder)
            #expect(format.status == 2)
            #expect(format.stderr.hasPrefix("error: out.xyz: cannot tell the output format from the name"))
        }
    }
}
