import Foundation
import Testing

@testable import Tessera

/// `tessera batch`'s parts: output templates, finding the items, manifests, shards, the checks made
/// before anything runs, and runs with failures, resumption and results.
@Suite struct BatchTests {
    static let photos = repositoryRoot.appendingPathComponent("Examples/images")

    /// A graph that shrinks its photo to 16 pixels wide and finds its salient boxes (a result).
    static let graph = """
        version: 1
        nodes:
          photo: { op: load, path: none.png }
          small: { op: resize, input: photo, width: 16 }
          heat:  { op: saliency, input: photo }
          out:   { op: save, input: small, path: "out/{dir}/{stem}.png" }
        """

    /// `folder/in/a/{astronaut,camera}.png` and `folder/in/b/c/coffee.png`, the graph as `folder/g.yaml`.
    static func makeTree(in folder: URL, graph: String = graph) throws {
        let manager = FileManager.default
        for (name, place) in [("astronaut", "a"), ("camera", "a"), ("coffee", "b/c")] {
            let target = folder.appendingPathComponent("in/\(place)")
            try manager.createDirectory(at: target, withIntermediateDirectories: true)
            try manager.copyItem(
                at: photos.appendingPathComponent("\(name).png"), to: target.appendingPathComponent("\(name).png"))
        }
        try graph.write(to: folder.appendingPathComponent("g.yaml"), atomically: true, encoding: .utf8)
    }

    /// Runs `body` with the path of a new temporary folder holding ``makeTree(in:graph:)``. (Tests run
    /// in parallel in one process: none changes the current folder.)
    static func inTree<T>(graph: String = graph, _ body: (String) throws -> T) throws -> T {
        try withTemporaryFolder { folder in
            try makeTree(in: folder, graph: graph)
            return try body(folder.path)
        }
    }

    // MARK: Templates

    @Test func fieldsComeFromTheInputUnderItsRoot() throws {
        let fields = OutputFields(input: "photos/2024/june/IMG_0042.JPG", root: "photos", index: 7)
        #expect(try fields.fill("out/{dir}/{stem}-small.{ext}") == "out/2024/june/IMG_0042-small.JPG")
        #expect(try fields.fill("{name}") == "IMG_0042.JPG")
        #expect(try fields.fill("{index:4}_{index}") == "0007_7")
        #expect(try fields.fill("{{{stem}}}.png") == "{IMG_0042}.png")
        #expect(try fields.fill("plain}.png") == "plain}.png")
        let alone = OutputFields(input: "archive.tar.gz", root: "", index: 0)
        #expect((alone.stem, alone.ext, alone.dir) == ("archive.tar", "gz", ""))
        #expect(OutputFields(input: "/data/x/y.png", root: "/data", index: 0).dir == "x")
    }

    @Test func badTemplatesAreRefusedWithTheFieldsThereAre() throws {
        let fields = OutputFields(input: "a.png", root: "", index: 0)
        #expect(throws: ParameterProblem.self) { try fields.fill("{steam}.png") }
        #expect(throws: ParameterProblem.self) { try fields.fill("{stem.png") }
        #expect(throws: ParameterProblem.self) { try fields.fill("{index:x}.png") }
        #expect(throws: ParameterProblem.self) { try OutputFields(index: 3).fill("{stem}.png") }
        #expect(try OutputFields(index: 3).fill("row-{index}.png") == "row-3.png")
        do {
            _ = try fields.fill("{steam}.png")
        } catch {
            #expect(error.message.contains("{stem}, {name}, {ext}, {dir}, {index}"))
        }
    }

    // MARK: Items

    @Test func foldersAndGlobsGiveSortedImageFilesOnce() throws {
        try Self.inTree { f in
            try Data("x".utf8).write(to: URL(fileURLWithPath: "\(f)/in/a/notes.txt"))
            try FileManager.default.createDirectory(atPath: "\(f)/in/.hidden", withIntermediateDirectories: true)
            try Data("x".utf8).write(to: URL(fileURLWithPath: "\(f)/in/.hidden/secret.png"))
            try Data("x".utf8).write(to: URL(fileURLWithPath: "\(f)/in/a/.temp.png"))
            let found = try BatchInputs.files(["\(f)/in", "\(f)/in/a/camera.png", "\(f)/in/a/*.png"])
            #expect(found.map(\.path) == ["\(f)/in/a/astronaut.png", "\(f)/in/a/camera.png", "\(f)/in/b/c/coffee.png"])
            #expect(found.map(\.root) == ["\(f)/in", "\(f)/in", "\(f)/in"])
            let globbed = try BatchInputs.files(["\(f)/in/*/*.png"])
            #expect(globbed.map(\.path) == ["\(f)/in/a/astronaut.png", "\(f)/in/a/camera.png"])
            #expect(throws: BatchError.self) { try BatchInputs.files(["\(f)/in/missing.png"]) }
            #expect(throws: BatchError.self) { try BatchInputs.files(["\(f)/in/*.webp"]) }
        }
    }

    @Test func manifestsInCSVAndJSONLines() throws {
        try withTemporaryFolder { folder in
            let csv = folder.appendingPathComponent("m.csv")
            try
                "\u{FEFF}photo.path,heat.kind\r\n\"in/a, b.png\",attention\r\n\r\nin/c.png,\n\"say \"\"hi\"\"\",objectness\n"
                .write(to: csv, atomically: true, encoding: .utf8)
            let rows = try BatchInputs.manifest(csv.path)
            #expect(
                rows.map { $0.map(\.text) } == [
                    ["photo.path=in/a, b.png", "heat.kind=attention"], ["photo.path=in/c.png"],
                    ["photo.path=say \"hi\"", "heat.kind=objectness"],
                ])
            #expect(rows[1][0].origin == "\(csv.path):4")
            let lines = folder.appendingPathComponent("m.jsonl")
            try """
            {"photo.path": "x.png", "heat.size": 32, "out.depth": "16", "tint.a": [1, 0.5, 0, 1], "x.on": true}

            {"photo.path": "y.png"}
            """.write(to: lines, atomically: true, encoding: .utf8)
            let objects = try BatchInputs.manifest(lines.path)
            #expect(
                objects.map { $0.map(\.text) } == [
                    ["heat.size=32", "out.depth=16", "photo.path=x.png", "tint.a=[1, 0.5, 0, 1]", "x.on=true"],
                    ["photo.path=y.png"],
                ])
            #expect(objects[1][0].origin == "\(lines.path):3")
            for bad in ["a.b\n\"open", "a.b,c.d\n1\n", "nodot\n1\n"] {
                try bad.write(to: csv, atomically: true, encoding: .utf8)
                #expect(throws: BatchError.self) { try BatchInputs.manifest(csv.path) }
            }
            try "{\"a.b\": {\"nested\": 1}}\n".write(to: lines, atomically: true, encoding: .utf8)
            #expect(throws: BatchError.self) { try BatchInputs.manifest(lines.path) }
        }
    }

    /// Every item is in exactly one shard, and shard sizes differ by one at most.
    @Test(arguments: [1, 2, 3, 7, 40])
    func shardsCoverEveryItemOnce(_ count: Int) {
        let items = Array(0..<23)
        let shards = (0..<count).map { BatchInputs.shard(items, index: $0, of: count) }
        #expect(shards.flatMap { $0 }.sorted() == items)
        let sizes = shards.map(\.count)
        #expect((sizes.max() ?? 0) - (sizes.min() ?? 0) <= 1)
    }

    // MARK: Checks before running

    @Test func outputsFollowTheTemplatesOrTheOutputFolder() throws {
        try Self.inTree { f in
            let batch = try Batch(graph: "\(f)/g.yaml", catalog: .builtin(), inputs: ["\(f)/in"])
            #expect(batch.bound == "photo.path")
            #expect(
                try batch.items.map { try batch.outputs(of: $0) } == [
                    ["\(f)/out/a/astronaut.png"], ["\(f)/out/a/camera.png"], ["\(f)/out/b/c/coffee.png"],
                ])
            let moved = try Batch(
                graph: "\(f)/g.yaml", catalog: .builtin(), inputs: ["\(f)/in"], outputFolder: "\(f)/elsewhere")
            #expect(try moved.outputs(of: moved.items[2]) == ["\(f)/elsewhere/b/c/coffee.png"])
            // A name without a field gets the input's stem, so that items do not overwrite each other.
            let fixed = try Batch(
                graph: "\(f)/g.yaml", catalog: .builtin(),
                overrides: [try ParameterOverride(parsing: "out.path=\(f)/o/small.png")],
                inputs: ["\(f)/in"], outputFolder: "\(f)/elsewhere")
            #expect(try fixed.outputs(of: fixed.items[0]) == ["\(f)/elsewhere/a/astronaut-small.png"])
        }
    }

    @Test func collisionsAndOverwrittenInputsAreRefused() throws {
        try Self.inTree { f in
            func refusal(_ path: String) -> String? {
                do {
                    _ = try Batch(
                        graph: "\(f)/g.yaml", catalog: .builtin(),
                        overrides: [try ParameterOverride(parsing: "out.path=\(path)")],
                        inputs: ["\(f)/in"])
                    return nil
                } catch {
                    return "\(error)"
                }
            }
            #expect(refusal("\(f)/o/same.png")?.contains("would both write \(f)/o/same.png") == true)
            // Two folders with the same stem: {stem} alone is not enough, {dir} is.
            try FileManager.default.copyItem(atPath: "\(f)/in/a/camera.png", toPath: "\(f)/in/b/camera.png")
            #expect(
                refusal("\(f)/o/{stem}.png")?.contains("\(f)/in/a/camera.png and \(f)/in/b/camera.png would both write")
                    == true)
            #expect(refusal("\(f)/o/{dir}/{stem}.png") == nil)
            #expect(refusal("\(f)/in/{dir}/{stem}.{ext}")?.contains("would write over itself") == true)
            #expect(refusal("\(f)/o/{bogus}.png") != nil)
        }
    }

    @Test func theBoundParameterIsTheOnlyFileReadOrNamed() throws {
        let twoLoads = """
            version: 1
            nodes:
              photo: { op: load, path: a.png }
              logo:  { op: load, path: b.png }
              both:  { op: composite, input: logo, background: photo }
              out:   { op: save, input: both, path: "o/{stem}.png" }
            """
        try Self.inTree(graph: twoLoads) { f in
            #expect(throws: BatchError.self) {
                try Batch(graph: "\(f)/g.yaml", catalog: .builtin(), inputs: ["\(f)/in"])
            }
            let batch = try Batch(graph: "\(f)/g.yaml", catalog: .builtin(), bind: "logo.path", inputs: ["\(f)/in"])
            #expect(batch.items[0].settings.map(\.text) == ["logo.path=\(f)/in/a/astronaut.png"])
            do {
                _ = try Batch(graph: "\(f)/g.yaml", catalog: .builtin(), bind: "phot.path", inputs: ["\(f)/in"])
                Issue.record("an unknown node is refused")
            } catch {
                #expect("\(error)".contains("did you mean 'photo'"))
            }
        }
    }

    // MARK: Runs

    /// Each item's output is what the graph run on that file alone writes; a broken file fails its
    /// item alone, with the usual message naming it; results are kept as values.
    @Test func itemsRunAloneFailAloneAndKeepTheirResults() throws {
        try Self.inTree { f in
            try Data("not a png".utf8).write(to: URL(fileURLWithPath: "\(f)/in/a/broken.png"))
            let batch = try Batch(graph: "\(f)/g.yaml", catalog: .builtin(), inputs: ["\(f)/in"])
            var options = BatchOptions()
            options.threads = 2
            options.collectsValues = true
            let results = batch.run(batch.items, options: options)
            #expect(results.map(\.status) == [.ok, .failed, .ok, .ok])
            #expect(results[1].error?.contains("\(f)/in/a/broken.png") == true)
            #expect(results[1].outputs.isEmpty && !FileManager.default.fileExists(atPath: "\(f)/out/a/broken.png"))
            for result in results where result.status == .ok {
                let input = try #require(result.item.input)
                let alone = try Graph.load(
                    path: "\(f)/g.yaml", catalog: .builtin(),
                    overrides: [
                        try ParameterOverride(parsing: "photo.path=\(input)"),
                        try ParameterOverride(parsing: "out.path=\(f)/alone.png"),
                    ])
                try alone.run()
                #expect(
                    try Data(contentsOf: URL(fileURLWithPath: result.outputs[0]))
                        == Data(contentsOf: URL(fileURLWithPath: "\(f)/alone.png")))
                #expect(result.values.map(\.name) == ["heat.boxes"])
                let line = try JSONSerialization.jsonObject(with: Data(result.jsonLine.utf8)) as? [String: Any]
                #expect(line?["input"] as? String == input && line?["status"] as? String == "ok")
                #expect(
                    ((line?["values"] as? [String: Any])?["heat.boxes"] as? [String: Any])?["kind"] as? String
                        == "boxes")
            }
            let failedLine = try JSONSerialization.jsonObject(with: Data(results[1].jsonLine.utf8)) as? [String: Any]
            #expect((failedLine?["error"] as? String)?.contains("broken.png") == true)
        }
    }

    @Test func failFastStopsAtTheFirstFailure() throws {
        try Self.inTree { f in
            try Data("not a png".utf8).write(to: URL(fileURLWithPath: "\(f)/in/a/0-broken.png"))
            let batch = try Batch(graph: "\(f)/g.yaml", catalog: .builtin(), inputs: ["\(f)/in"])
            var options = BatchOptions()
            options.threads = 1
            options.failFast = true
            let results = batch.run(batch.items, options: options)
            #expect(results.map(\.status) == [.failed])
            #expect(!FileManager.default.fileExists(atPath: "\(f)/out/a/astronaut.png"))
        }
    }

    /// A run again with resume does only what is missing or older than its input or the graph, and
    /// removes the temporary files a killed run left.
    @Test func resumeSkipsWhatIsDoneAndNewer() throws {
        try Self.inTree { f in
            let batch = try Batch(graph: "\(f)/g.yaml", catalog: .builtin(), inputs: ["\(f)/in"])
            var options = BatchOptions()
            options.resume = true
            #expect(batch.run(batch.items, options: options).map(\.status) == [.ok, .ok, .ok])
            #expect(batch.run(batch.items, options: options).map(\.status) == [.skipped, .skipped, .skipped])
            let later = Date().addingTimeInterval(5)
            try FileManager.default.setAttributes([.modificationDate: later], ofItemAtPath: "\(f)/in/a/camera.png")
            try FileManager.default.removeItem(atPath: "\(f)/out/b/c/coffee.png")
            // A temporary file of a process that no longer runs (pid 2^22 + 1 is above Linux's default
            // pid_max), and one of this process, which is running.
            let stale = "\(f)/out/a/.astronaut.png.tessera-4194305-12.tmp"
            let live = "\(f)/out/a/.astronaut.png.tessera-\(getpid())-13.tmp"
            for name in [stale, live] { try Data().write(to: URL(fileURLWithPath: name)) }
            #expect(batch.run(batch.items, options: options).map(\.status) == [.skipped, .ok, .ok])
            #expect(!FileManager.default.fileExists(atPath: stale) && FileManager.default.fileExists(atPath: live))
            try FileManager.default.setAttributes(
                [.modificationDate: later.addingTimeInterval(5)], ofItemAtPath: "\(f)/g.yaml")
            #expect(batch.run(batch.items, options: options).map(\.status) == [.ok, .ok, .ok])
        }
    }

    /// With a budget smaller than one item needs, items run one at a time, and still all run; with room,
    /// as many as there are threads.
    @Test(arguments: [(1, 1), (Batch.defaultMemory, 2)])
    func theMemoryBudgetBoundsTheItemsRunning(_ memory: Int, _ most: Int) throws {
        try Self.inTree { f in
            let batch = try Batch(graph: "\(f)/g.yaml", catalog: .builtin(), inputs: ["\(f)/in"])
            var options = BatchOptions()
            options.threads = 2
            options.memory = memory
            let running = Locked(0)
            options.progress = { progress in running.withLock { $0 = Swift.max($0, progress.running) } }
            #expect(batch.run(batch.items, options: options).map(\.status) == [.ok, .ok, .ok])
            #expect(running.withLock { $0 } == most)
            let plan = try batch.graph(for: batch.items[0]).plan()
            #expect(plan.estimatedBytes(threads: 1, tileSize: 256) > 512 * 512 * 4)
        }
    }

    /// `tessera run` fills a graph's templates from the file it reads.
    @Test func aSingleRunFillsTemplatesFromItsFile() throws {
        try Self.inTree { f in
            let graph = try Graph.loadFillingTemplates(
                path: "\(f)/g.yaml", catalog: .builtin(),
                overrides: [try ParameterOverride(parsing: "photo.path=\(f)/in/a/camera.png")])
            #expect(graph.writtenFiles == ["\(f)/out/camera.png"])
        }
    }
}
