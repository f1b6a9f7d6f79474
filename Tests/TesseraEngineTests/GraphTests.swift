import Foundation
import Testing

@testable import Tessera

/// The example graphs in Graphs/, and what running a graph does.
@Suite struct GraphTests {
    static let graphsFolder = repositoryRoot.appendingPathComponent("Graphs")
    /// An independent JSON Schema validator (python3-jsonschema) accepts every example graph against the
    /// committed schema and rejects the broken ones in SchemaRejects/.
    @Test func schemaValidatorAgrees() throws {
        let rejects = repositoryRoot.appendingPathComponent("Tests/TesseraEngineTests/SchemaRejects")
        let broken = try FileManager.default.contentsOfDirectory(atPath: rejects.path).sorted()
        #expect(broken.count >= 3)
        let python = try #require(
            ["/usr/bin/python3", "/usr/local/bin/python3", "python3"].first { canImportSchemaModules($0) },
            "python3 with jsonschema and yaml is installed (make test-deps: python3-jsonschema python3-yaml)")
        let arguments =
            [
                repositoryRoot.appendingPathComponent("Scripts/check-schema.py").path,
                repositoryRoot.appendingPathComponent("tessera.schema.json").path, "--valid",
            ]
            + ExampleGraphTests.names.map { Self.graphsFolder.appendingPathComponent($0).path } + ["--invalid"]
            + broken.map { rejects.appendingPathComponent($0).path }
        let (status, output) = try runProcess(python, arguments)
        #expect(status == 0, "\(output)")
        #expect(output.split(separator: "\n").count == ExampleGraphTests.names.count + broken.count)
    }

    /// Every broken graph the schema rejects is also rejected by `tessera validate`'s engine.
    @Test func engineRejectsTheSchemaRejects() throws {
        let rejects = repositoryRoot.appendingPathComponent("Tests/TesseraEngineTests/SchemaRejects")
        for name in try FileManager.default.contentsOfDirectory(atPath: rejects.path) {
            #expect(throws: GraphErrors.self, "\(name)") {
                try Graph.load(path: rejects.appendingPathComponent(name).path, catalog: .builtin())
            }
        }
    }

    @Test func parameterFromUpstreamOutput() throws {
        let text = """
            version: 1
            nodes:
              boxes: { op: testBoxes, offset: 7.5 }
              image: { op: testConstant }
              crop:  { op: testCrop, input: image, rect: { from: boxes } }
              end:   { op: testSink, input: crop }
            """
        let graph = try Graph.parse(text, file: "g.yaml", baseFolder: "", catalog: testCatalog)
        // The parameter edge orders the DAG: boxes runs before crop even if written after it.
        let order = graph.nodes.map(\.name)
        #expect(try #require(order.firstIndex(of: "boxes")) < #require(order.firstIndex(of: "crop")))
        TestCrop.seen.withLock { $0.removeAll() }
        try graph.run()
        // The first box is x 7.5...17.6, y 3.2...7.2: whole pixels 7...18 by 3...8.
        #expect(TestCrop.seen.withLock { $0 } == [Rect(x: 7, y: 3, width: 11, height: 5)])
        #expect(graph.dot.contains(#""boxes" -> "crop" [label="rect", style=dashed];"#))
    }

    /// A tile that fails in the middle of a run ends the run with its error, on every thread count and
    /// tile size: the tiles rendering ahead stop, and no one waits for a band that will never finish.
    @Test(arguments: [(1, 16), (2, 16), (3, 16), (2, 32), (2, 256)])
    func aFailingTileEndsTheRun(threads: Int, tileSize: Int) throws {
        let text = """
            version: 1
            nodes:
              image: { op: testConstant, size: 64 }
              fail:  { op: testFailAt, input: image, row: 40 }
              end:   { op: testSink, input: fail }
            """
        let graph = try Graph.parse(text, file: "g.yaml", baseFolder: "", catalog: testCatalog)
        let error = #expect(throws: RunError.self) {
            try graph.run(options: RunOptions(threads: threads, tileSize: tileSize))
        }
        #expect(error?.node == "fail")
        #expect(error?.message == "row is cursed")
        #expect(error?.isCancellation == false)
    }

    /// A big shrink reads its input a band of rows at a time (resize's rows pass is scheduled in cells),
    /// never the whole input at once: a 2048x2048 image made into a 64-pixel thumbnail asks its source
    /// for at most a tile's rows across the width (2048 x 128), not 2048 x 2048.
    @Test func aBigShrinkReadsItsInputInBands() throws {
        let text = """
            version: 1
            nodes:
              large: { op: testLarge, size: 2048 }
              small: { op: resize, input: large, width: 64, interpolation: lanczos3 }
              end:   { op: testSink, input: small }
            """
        let graph = try Graph.parse(text, file: "g.yaml", baseFolder: "", catalog: testCatalog)
        TestLarge.largestRequest.withLock { $0 = 0 }
        try graph.run(options: RunOptions(threads: 2, tileSize: 128))
        let largest = TestLarge.largestRequest.withLock { $0 }
        #expect(largest > 0 && largest <= 2048 * 128, "largest request \(largest) pixels")
    }

    /// A program may run graphs from Dispatch's own threads, several at once. Each run renders on its
    /// own workers and the thread that called it, none waiting for Dispatch's pool to grow, and every
    /// run writes the same pixels as one run alone.
    @Test func graphsRunConcurrentlyFromDispatchThreads() throws {
        let text = """
            version: 1
            nodes:
              large: { op: testLarge, size: 384 }
              soft:  { op: gaussianBlur, input: large, sigma: 3 }
              norm:  { op: normalize, input: soft }
              small: { op: resize, input: norm, width: 50 }
            """
        let graph = try Graph.parse(text, file: "g.yaml", baseFolder: "", catalog: testCatalog)
        let options = RunOptions(threads: 2, tileSize: 64)
        let alone = try #require(graph.run(options: options, keeping: ["small"]).outputs["small"])
        guard case .image(let expected) = alone else { throw ImageError(message: "no image") }
        let reference = try expected.pixels()
        let results = Locked<[Bool]>([])
        DispatchQueue.concurrentPerform(iterations: 6) { _ in
            let same: Bool
            if case .image(let image)? = try? graph.run(options: options, keeping: ["small"]).outputs["small"] {
                same = (try? image.pixels()) == reference
            } else {
                same = false
            }
            results.withLock { $0.append(same) }
        }
        #expect(results.withLock { $0 } == Array(repeating: true, count: 6))
    }

    /// A writer's encoded rows (rendered and encoded by the workers into the bands) hold the same
    /// samples as the pixels of the same strips read afterwards, on every thread count and tile size.
    /// Serialized: the sink counts into one static, which cases run side by side would share.
    @Test(.serialized, arguments: [(1, 16), (2, 16), (2, 64)])
    func encodedRowsAreThePixels(threads: Int, tileSize: Int) throws {
        let text = """
            version: 1
            nodes:
              large: { op: testLarge, size: 200 }
              soft:  { op: gaussianBlur, input: large, sigma: 2 }
              end:   { op: testEncodingSink, input: soft }
            """
        let graph = try Graph.parse(text, file: "g.yaml", baseFolder: "", catalog: testCatalog)
        TestEncodingSink.differences.withLock { $0 = -1 }
        try graph.run(options: RunOptions(threads: threads, tileSize: tileSize))
        #expect(TestEncodingSink.differences.withLock { $0 } == 0)
    }

    @Test func upstreamOrderDoesNotFollowFileOrder() throws {
        let text = """
            version: 1
            nodes:
              crop:  { op: testCrop, input: image, rect: { from: boxes.boxes } }
              image: { op: testConstant }
              boxes: { op: testBoxes }
            """
        let graph = try Graph.parse(text, file: "g.yaml", baseFolder: "", catalog: testCatalog)
        #expect(graph.nodes.map(\.name) == ["image", "boxes", "crop"])
    }

    /// Only what a sink reads runs: an unused load of a missing file does not fail the run.
    @Test func onlyNeededNodesRun() throws {
        let text = """
            version: 1
            nodes:
              unused: { op: load, path: missing.png }
              a: { op: testConstant }
              b: { op: testCrop, input: a, rect: [0, 0, 1, 1] }
              c: { op: testCrop, input: a, rect: [1, 1, 1, 1] }
              end: { op: testSink, input: c }
            """
        let graph = try Graph.parse(text, file: "g.yaml", baseFolder: "", catalog: testCatalog)
        #expect(graph.neededNodes.map(\.name) == ["a", "c", "end"])
        TestCrop.seen.withLock { $0.removeAll() }
        try graph.run()
        #expect(TestCrop.seen.withLock { $0 } == [Rect(x: 1, y: 1, width: 1, height: 1)])
    }

    /// Names YAML would read as booleans or null are still node names where a name is expected.
    @Test func nodeNamesThatReadAsBooleans() throws {
        let text = "version: 1.0\nnodes:\n  yes: { op: testConstant }\n  null: { op: testSink, input: yes }\n"
        let graph = try Graph.parse(text, file: "g.yaml", baseFolder: "", catalog: testCatalog)
        #expect(graph.nodes.map(\.name) == ["yes", "null"])
    }

    @Test func jsonGraphMayNameItsSchema() throws {
        let text = #"{"$schema": "../tessera.schema.json", "version": 1, "nodes": {"a": {"op": "testConstant"}}}"#
        #expect(throws: Never.self) { try Graph.parse(text, file: "g.json", baseFolder: "", catalog: testCatalog) }
    }

    /// Aliases that expand exponentially ("billion laughs") are refused, quickly.
    @Test func expandingAliasesAreRefused() throws {
        var lines = ["x0: &a0 [" + Array(repeating: "lol", count: 10).joined(separator: ", ") + "]"]
        for level in 1...8 {
            let items = Array(repeating: "*a\(level - 1)", count: 10).joined(separator: ", ")
            lines.append("x\(level): &a\(level) [\(items)]")
        }
        let text = lines.joined(separator: "\n") + "\nversion: 1\nnodes: {a: {op: testConstant}}\n"
        #expect {
            try Graph.parse(text, file: "g.yaml", baseFolder: "", catalog: testCatalog)
        } throws: { error in
            (error as? GraphErrors)?.diagnostics.first?.message
                == "the file holds more than 1000000 values once its aliases are expanded"
        }
    }

    @Test func overridesAreTypedAndPathsFollowTheirOrigin() throws {
        let text = "version: 1\nnodes:\n  a: { op: load, path: in.png }\n  b: { op: save, input: a, path: o.png }\n"
        let overrides = try ["b.path=elsewhere/x.tif", "b.depth=16", "a.maxPixels=1000"].map {
            text throws(GraphErrors) in try ParameterOverride(parsing: text)
        }
        let graph = try Graph.parse(
            text, file: "dir/g.yaml", baseFolder: "dir", catalog: .builtin(), overrides: overrides)
        let load = try #require(graph.node(named: "a"))
        let save = try #require(graph.node(named: "b"))
        #expect(
            (load.parameters["path"]?.source).flatMap(Self.value) as? FilePath
                == FilePath(written: "in.png", resolved: "dir/in.png"))
        #expect(
            (save.parameters["path"]?.source).flatMap(Self.value) as? OutputPath
                == OutputPath(written: "elsewhere/x.tif", resolved: "elsewhere/x.tif"))
        #expect((load.parameters["maxPixels"]?.source).flatMap(Self.value) as? Int == 1000)
        #expect(save.parameters["depth"]?.location == SourceLocation(file: "--set b.depth=16"))
    }

    static func value(_ source: ParameterSetting.Source) -> (any ParameterValue)? {
        if case .value(let value) = source { return value }
        return nil
    }

    @Test func unusedOutputIsAWarning() throws {
        let text =
            "version: 1\nnodes:\n  a: { op: load, path: in.png }\n  b: { op: load, path: in.png }\n  c: { op: save, input: a, path: o.png }\n"
        let graph = try Graph.parse(text, file: "g.yaml", baseFolder: "", catalog: .builtin())
        #expect(graph.warnings.map(\.description) == ["g.yaml:4:3: warning: nothing reads the output of load node 'b'"])
    }

    @Test func dotShowsNodesParametersAndPorts() throws {
        let text = """
            version: 1
            nodes:
              b: { op: testBoxes }
              c: { op: testConstant, caption: "say \\"hi\\"" }
              d: { op: testCrop, input: c, rect: { from: b.boxes }, factor: 2 }
            """
        let graph = try Graph.parse(text, file: "g.yaml", baseFolder: "", catalog: testCatalog)
        #expect(
            graph.dot == """
                digraph "g.yaml" {
                    rankdir=LR;
                    node [shape=box, fontname="Helvetica"];
                    edge [fontname="Helvetica", fontsize=10];
                    "b" [label="b\\ntestBoxes"];
                    "c" [label="c\\ntestConstant\\ncaption: say \\"hi\\""];
                    "d" [label="d\\ntestCrop\\nfactor: 2"];
                    "c" -> "d" [label="input"];
                    "b" -> "d" [label="boxes → rect", style=dashed];
                }

                """)
    }

    @Test func runErrorNamesTheNodeAndItsPlace() throws {
        let text =
            "version: 1\nnodes:\n  a: { op: load, path: missing.png }\n  b: { op: save, input: a, path: o.png }\n"
        let graph = try Graph.parse(text, file: "g.yaml", baseFolder: "/nonexistent", catalog: .builtin())
        #expect {
            try graph.run()
        } throws: { error in
            (error as? RunError)?.description
                == "g.yaml:3:3: error: load node 'a': /nonexistent/missing.png: no such file"
        }
    }
}

func pixels(_ path: String) throws -> [Float] {
    let (_, image) = try ImageFile.load(path: path)
    let region = Rect(x: 0, y: 0, width: image.width, height: image.height)
    return try image.pixels(in: region).samples
}

func canImportSchemaModules(_ python: String) -> Bool {
    (try? runProcess(python, ["-c", "import jsonschema, yaml; jsonschema.Draft202012Validator"]).status) == 0
}

func runProcess(_ executable: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
    let process = Process()
    if executable.hasPrefix("/") {
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
    } else {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [executable] + arguments
    }
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: data, as: UTF8.self))
}

func withTemporaryFolder<T>(_ body: (URL) throws -> T) throws -> T {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-engine-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    return try body(folder)
}
