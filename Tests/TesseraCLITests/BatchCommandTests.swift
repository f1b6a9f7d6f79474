import Foundation
import Testing

/// `tessera batch` as a user meets it: a folder tree in, a mirrored tree and a report out, a broken
/// file failing alone, collisions refused, Ctrl-C and kill -9 followed by --resume, Slurm's shards, a
/// manifest, and the progress bar on a terminal.
@Suite(.serialized) struct BatchCommandTests {
    static let photos = CLI.fixtures.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Examples/images")

    /// Shrinks the photo to 16 pixels wide; its salient boxes are the graph's result.
    static let graph = """
        version: 1
        nodes:
          photo: { op: load, path: none.png }
          small: { op: resize, input: photo, width: 16 }
          heat:  { op: saliency, input: photo }
          out:   { op: save, input: small, path: "out/{dir}/{stem}.png" }
        """

    /// `in/a/` with `count` copies of the example photos (cycling), `in/b/coffee.png`, and the graph.
    static func makeTree(in folder: URL, copies count: Int = 2, graph: String = graph) throws {
        let manager = FileManager.default
        for place in ["in/a", "in/b"] {
            try manager.createDirectory(at: folder.appendingPathComponent(place), withIntermediateDirectories: true)
        }
        let names = ["astronaut", "camera"]
        for i in 0..<count {
            try manager.copyItem(
                at: photos.appendingPathComponent("\(names[i % 2]).png"),
                to: folder.appendingPathComponent(String(format: "in/a/p%03d.png", i)))
        }
        try manager.copyItem(
            at: photos.appendingPathComponent("coffee.png"), to: folder.appendingPathComponent("in/b/coffee.png"))
        try graph.write(to: folder.appendingPathComponent("g.yaml"), atomically: true, encoding: .utf8)
    }

    /// Every file under `folder`, relative to it, sorted (hidden ones too).
    static func files(under folder: URL) -> [String] {
        let walker = FileManager.default.enumerator(atPath: folder.path)
        var found: [String] = []
        while let path = walker?.nextObject() as? String {
            if walker?.fileAttributes?[.type] as? FileAttributeType == .typeRegular { found.append(path) }
        }
        return found.sorted()
    }

    static func reportLines(_ url: URL) throws -> [[String: Any]] {
        try String(contentsOf: url, encoding: .utf8).split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
    }

    @Test func aFolderTreeIsMirroredAndABrokenFileFailsAlone() throws {
        try withTemporaryFolder { folder in
            try Self.makeTree(in: folder)
            try Data("GIF89a broken".utf8).write(to: folder.appendingPathComponent("in/a/broken.gif"))
            let result = try CLI.run(
                ["batch", "g.yaml", "in", "--output-dir", "thumbs", "--report", "report.jsonl"], in: folder)
            #expect(result.status == 1 && !result.signaled)
            let errors = result.stderr.split(separator: "\n")
            #expect(errors.count == 1 && errors[0].contains("in/a/broken.gif"), "\(result.stderr)")
            #expect(result.stdout.contains("4 items: 3 done, 1 failed"), "\(result.stdout)")
            #expect(
                Self.files(under: folder.appendingPathComponent("thumbs")) == [
                    "a/p000.png", "a/p001.png", "b/coffee.png",
                ])
            let lines = try Self.reportLines(folder.appendingPathComponent("report.jsonl"))
            #expect(
                lines.map { $0["input"] as? String } == [
                    "in/a/broken.gif", "in/a/p000.png", "in/a/p001.png", "in/b/coffee.png",
                ])
            #expect(lines.map { $0["status"] as? String } == ["failed", "ok", "ok", "ok"])
            #expect(lines.map { $0["index"] as? Int } == [0, 1, 2, 3])
            #expect((lines[0]["error"] as? String)?.contains("broken.gif") == true)
            #expect(lines[3]["outputs"] as? [String] == ["thumbs/b/coffee.png"])
            let boxes = ((lines[1]["values"] as? [String: Any])?["heat.boxes"] as? [String: Any])?["boxes"] as? [Any]
            #expect((boxes?.count ?? 0) > 0)
        }
    }

    @Test func collisionsAreRefusedBeforeAnythingRuns() throws {
        try withTemporaryFolder { folder in
            try Self.makeTree(in: folder)
            let result = try CLI.run(["batch", "g.yaml", "in", "--set", "out.path=one.png"], in: folder)
            #expect(result.status == 2)
            #expect(result.stderr.contains("would both write one.png"), "\(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("one.png").path))
            let quoted = try CLI.run(["batch", "g.yaml", "in", "--set", "out.path=o/{nope}.png"], in: folder)
            #expect(quoted.status == 2 && quoted.stderr.contains("no field '{nope}'"), "\(quoted.stderr)")
        }
    }

    /// Starts a batch of `count` items and stops it with `signal` once some outputs exist; then runs it
    /// again with --resume: the items done before are not redone, every output exists once, and no
    /// temporary file is left.
    @Test(arguments: [SIGINT, SIGTERM, SIGKILL])
    func aStoppedBatchResumes(_ signal: Int32) throws {
        try withTemporaryFolder { folder in
            try Self.makeTree(in: folder, copies: 16)
            let arguments = ["batch", "g.yaml", "in", "--threads", "2", "--resume", "--report", "r.jsonl"]
            let process = Process()
            process.executableURL = try #require(CLI.executable)
            process.arguments = arguments
            process.currentDirectoryURL = folder
            process.standardError = FileHandle.nullDevice
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            let outputs = folder.appendingPathComponent("out/a")
            let deadline = Date().addingTimeInterval(60)
            while process.isRunning && Date() < deadline
                && ((try? FileManager.default.contentsOfDirectory(atPath: outputs.path))?.filter { !$0.hasPrefix(".") }
                    .count ?? 0) < 4
            {
                usleep(5_000)
            }
            #expect(process.isRunning, "the batch was still running when stopped")
            kill(process.processIdentifier, signal)
            process.waitUntilExit()
            if signal != SIGKILL {
                // Ctrl-C, or SIGTERM (a cluster's time limit): the items running are cancelled, their
                // temporary files removed, and the report written for what ended.
                #expect(process.terminationReason == .exit && process.terminationStatus == 130)
                #expect(Self.files(under: folder.appendingPathComponent("out")).allSatisfy { !$0.contains("/.") })
                let ended = try Self.reportLines(folder.appendingPathComponent("r.jsonl"))
                #expect(ended.filter { $0["status"] as? String == "ok" }.count >= 4)
            }
            let before = Self.files(under: folder.appendingPathComponent("out")).filter { !$0.contains("/.") }
            let dates = try before.map {
                try FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent("out/\($0)").path)[
                    .modificationDate] as? Date
            }
            #expect(before.count >= 4 && before.count < 17)

            let again = try CLI.run(arguments, in: folder)
            #expect(again.status == 0, "\(again.stderr)")
            let after = Self.files(under: folder.appendingPathComponent("out"))
            #expect(
                after.count == 17 && after.allSatisfy { !$0.contains("/.") }, "\(after.filter { $0.contains("/.") })")
            for (name, date) in zip(before, dates) {
                let now =
                    try FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent("out/\(name)").path)[
                        .modificationDate] as? Date
                #expect(now == date, "\(name) was not redone")
            }
            let lines = try Self.reportLines(folder.appendingPathComponent("r.jsonl"))
            #expect(lines.count == 17)
            #expect(lines.filter { $0["status"] as? String == "skipped" }.count == before.count)
            #expect(again.stdout.contains("\(before.count) skipped"), "\(again.stdout)")
        }
    }

    /// Three Slurm array tasks (as the variables Slurm sets; Scripts/cluster-test.sh runs a real Slurm)
    /// share the items: each output is written once, and the merged reports list every item once.
    @Test func slurmArrayTasksShareTheItems() throws {
        try withTemporaryFolder { folder in
            try Self.makeTree(in: folder, copies: 9)
            for task in 1...3 {
                let result = try CLI.run(
                    ["batch", "g.yaml", "in", "--output-dir", "o", "--report", "r\(task).jsonl", "--threads", "1"],
                    in: folder,
                    environment: [
                        "SLURM_ARRAY_TASK_ID": "\(task)", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_MAX": "3",
                        "SLURM_ARRAY_TASK_COUNT": "3",
                    ])
                #expect(result.status == 0, "\(result.stderr)")
                #expect(result.stdout.contains("(shard \(task - 1)/3 of 10)"), "\(result.stdout)")
            }
            #expect(Self.files(under: folder.appendingPathComponent("o")).count == 10)
            let merged = try (1...3).flatMap { try Self.reportLines(folder.appendingPathComponent("r\($0).jsonl")) }
            #expect(merged.compactMap { $0["index"] as? Int }.sorted() == Array(0..<10))
            #expect(try Self.reportLines(folder.appendingPathComponent("r1.jsonl")).count == 4)
            // One shard redone on its own: with --shards, the task id is the shard.
            let redo = try CLI.run(
                ["batch", "g.yaml", "in", "--output-dir", "o", "--shards", "3", "--report", "r.jsonl"], in: folder,
                environment: [
                    "SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_MAX": "1",
                    "SLURM_ARRAY_TASK_COUNT": "1",
                ])
            #expect(redo.stdout.contains("3 items (shard 1/3 of 10)"), "\(redo.stdout)")
            let stepped = try CLI.run(
                ["batch", "g.yaml", "in", "--output-dir", "o"], in: folder,
                environment: [
                    "SLURM_ARRAY_TASK_ID": "4", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_MAX": "4",
                    "SLURM_ARRAY_TASK_COUNT": "3",
                ])
            #expect(stepped.status == 2 && stepped.stderr.contains("step 1"), "\(stepped.stderr)")
            let wrong = try CLI.run(
                ["batch", "g.yaml", "in", "--output-dir", "o"], in: folder, environment: ["JOB_COMPLETION_INDEX": "2"])
            #expect(wrong.status == 2 && wrong.stderr.contains("--shards"), "\(wrong.stderr)")
        }
    }

    /// A manifest sets several parameters per item; a bad value fails its row alone, named by its line.
    @Test func aManifestSetsParametersPerItem() throws {
        try withTemporaryFolder { folder in
            try Self.makeTree(in: folder)
            let manifest =
                "photo.path,heat.kind,out.path\nin/a/p000.png,attention,m/first.png\n"
                + "in/b/coffee.png,objectness,m/second.png\nin/a/p001.png,nonsense,m/third.png\n"
            try manifest.write(to: folder.appendingPathComponent("m.csv"), atomically: true, encoding: .utf8)
            let result = try CLI.run(["batch", "g.yaml", "--manifest", "m.csv", "--report", "r.jsonl"], in: folder)
            #expect(result.status == 1)
            #expect(result.stderr.contains("m.csv:4") && result.stderr.contains("nonsense"), "\(result.stderr)")
            #expect(Self.files(under: folder.appendingPathComponent("m")) == ["first.png", "second.png"])
            let lines = try Self.reportLines(folder.appendingPathComponent("r.jsonl"))
            #expect((lines[0]["settings"] as? [String: String])?["heat.kind"] == "attention")
        }
    }

    @Test func aTerminalSeesItemsCountedToTheEnd() throws {
        try withTemporaryFolder { folder in
            try Self.makeTree(in: folder, copies: 6)
            let run = try ProgressTests.runOnTerminal(["batch", "g.yaml", "in", "--threads", "2"], in: folder)
            #expect(run.status == 0)
            #expect(run.terminal.contains("/7 items"), "\(run.terminal)")
            #expect(run.terminal.hasSuffix("\r\u{1B}[K"), "the bar is cleared at the end")
            #expect(run.stdout.contains("7 items: 7 done"))
            let quiet = try ProgressTests.runOnTerminal(["batch", "g.yaml", "in", "-q"], in: folder)
            #expect(quiet.terminal.isEmpty && quiet.stdout.isEmpty)
        }
    }
}
