import Foundation
import Testing
import TesseraIO

/// Plugins from the command line: where they load from, how their nodes show, and every way a plugin
/// can be unusable, each a clear message naming the file, status 1 and no crash.
@Suite struct PluginCommandTests {
    static let repository = GraphCommandTests.repository
    static let header = repository.appendingPathComponent("Sources/CTesseraPlugin/include").path
    static let photo = GraphCommandTests.photo

    /// Compiles a C plugin source into `folder` as `name` with extra compiler flags.
    static func compile(_ source: String, _ flags: [String] = [], as name: String, in folder: URL) throws -> String {
        let output = folder.appendingPathComponent(name).path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments =
            ["cc", "-std=c11", "-fPIC", "-shared", "-I", header] + flags + [source, "-o", output, "-lm"]
        try process.run()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "cc \(name) failed")
        return output
    }

    static func sobel(in folder: URL) throws -> String {
        try compile(
            repository.appendingPathComponent("Plugins/Sobel/sobel.c").path, ["-O2"], as: "libsobel.so", in: folder)
    }

    static func broken(_ flags: [String], as name: String, in folder: URL) throws -> String {
        let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "Plugins/broken.c")
        return try compile(source.path, flags, as: name, in: folder)
    }

    static func graph(_ op: String, in folder: URL) throws -> String {
        let path = folder.appendingPathComponent("g.yaml").path
        let text = """
            version: 1
            nodes:
              photo: { op: load, path: \(photo) }
              f: { op: \(op), input: photo }
              out: { op: save, input: f, path: out.png }
            """
        try text.write(toFile: path, atomically: false, encoding: .utf8)
        return path
    }

    /// Every command that reads the catalog or graphs takes `--plugin`, and shows the plugin's node as
    /// it shows a built-in.
    @Test func pluginNodesShowInEveryCommand() throws {
        try withTemporaryFolder { folder in
            let plugin = try Self.sobel(in: folder)
            let graph = try Self.graph("sobel", in: folder)
            let nodes = try CLI.run(["nodes", "--plugin", plugin])
            #expect(nodes.status == 0)
            // Listed like a built-in: name, access and summary in the table's columns.
            let row = nodes.stdout.split(separator: "\n").first { $0.hasPrefix("sobel ") }
            #expect(
                row?.split(separator: " ", omittingEmptySubsequences: true).prefix(3).joined(separator: " ")
                    == "sobel area Edge")
            #expect(row?.contains("Edge strength by the 3x3 Sobel operator") == true)
            let one = try CLI.run(["nodes", "sobel", "--plugin", plugin])
            #expect(one.stdout.contains("  scale: number, default 1, 0...16\n"))
            #expect(one.stdout.contains("\nPlugin: \(plugin)\n"))
            let schema = try CLI.run(["schema", "--plugin", plugin])
            #expect(schema.stdout.contains("\"op-sobel\""))
            #expect(try CLI.run(["validate", graph, "--plugin", plugin]).stdout == "\(graph): ok (3 nodes)\n")
            #expect(try CLI.run(["dot", graph, "--plugin", plugin]).stdout.contains("sobel"))
            let bad = try CLI.run(["validate", graph, "--plugin", plugin, "--set", "f.scale=20", "--set", "f.scael=1"])
            #expect(bad.status == 2)
            #expect(bad.stderr.contains("f.scale: 20 is out of range: 0...16"))
            #expect(bad.stderr.contains("did you mean 'scale'?"))
            // Without the plugin, the node is unknown.
            #expect(try CLI.run(["validate", graph]).status == 2)
        }
    }

    /// The schema made with a plugin describes its node as it describes a built-in: an independent
    /// validator (python3-jsonschema) accepts the plugin's graph and rejects an out-of-range value.
    @Test func schemaWithAPluginChecksItsNode() throws {
        try withTemporaryFolder { folder in
            let plugin = try Self.sobel(in: folder)
            let schema = try CLI.run(["schema", "--plugin", plugin])
            let schemaPath = folder.appendingPathComponent("schema.json").path
            try schema.stdout.write(toFile: schemaPath, atomically: false, encoding: .utf8)
            let bad = folder.appendingPathComponent("bad.yaml").path
            try "version: 1\nnodes:\n  a: { op: load, path: a.png }\n  e: { op: sobel, input: a, scale: 20 }\n"
                .write(toFile: bad, atomically: false, encoding: .utf8)
            let check = try CLI.run(
                [
                    Self.repository.appendingPathComponent("Scripts/check-schema.py").path, schemaPath, "--valid",
                    Self.repository.appendingPathComponent("Plugins/Sobel/edges.yaml").path, "--invalid", bad,
                ], binary: URL(fileURLWithPath: "/usr/bin/python3"))
            #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
            #expect(check.stdout.contains("bad.yaml: rejected at 'nodes/e/scale'"), "\(check.stdout)")
        }
    }

    /// `run` renders a plugin node, and the bytes do not depend on the thread count or tile size.
    @Test func runIsDeterministicAcrossThreadsAndTiles() throws {
        try withTemporaryFolder { folder in
            let plugin = try Self.sobel(in: folder)
            let graph = try Self.graph("sobel", in: folder)
            var written: [Data] = []
            for (threads, tile) in [(1, 512), (2, 16), (2, 100)] {
                let run = try CLI.run(
                    ["run", graph, "--plugin", plugin, "-q", "--threads", "\(threads)", "--tile-size", "\(tile)"])
                #expect(run.status == 0, "\(run.stderr)")
                written.append(try Data(contentsOf: folder.appendingPathComponent("out.png")))
            }
            #expect(written.count == 3 && written.allSatisfy { $0 == written[0] })
        }
    }

    /// Plugins load from TESSERA_PLUGIN_PATH's folders and from a `plugins` folder beside the executable.
    @Test func pluginsLoadFromTheSearchPath() throws {
        try withTemporaryFolder { folder in
            let lib = folder.appendingPathComponent("lib")
            try FileManager.default.createDirectory(at: lib, withIntermediateDirectories: true)
            _ = try Self.sobel(in: lib)
            let found = try CLI.run(
                ["nodes", "sobel"], environment: ["TESSERA_PLUGIN_PATH": "/nonexistent:" + lib.path])
            #expect(found.status == 0, "\(found.stderr)")
            // The same file also named with --plugin loads once, without clashing with itself.
            let twice = try CLI.run(
                ["nodes", "sobel", "--plugin", lib.appendingPathComponent("libsobel.so").path],
                environment: ["TESSERA_PLUGIN_PATH": lib.path])
            #expect(twice.status == 0, "\(twice.stderr)")
            #expect(try CLI.run(["nodes", "sobel"], environment: ["TESSERA_PLUGIN_PATH": ""]).status == 1)

            let bin = folder.appendingPathComponent("bin")
            try FileManager.default.createDirectory(
                at: bin.appendingPathComponent("plugins"), withIntermediateDirectories: true)
            let copy = bin.appendingPathComponent("tessera")
            try FileManager.default.copyItem(at: try #require(CLI.executable), to: copy)
            _ = try Self.sobel(in: bin.appendingPathComponent("plugins"))
            let beside = try CLI.run(["nodes", "sobel"], environment: ["TESSERA_PLUGIN_PATH": ""], binary: copy)
            #expect(beside.status == 0, "\(beside.stderr)")
        }
    }

    /// One row per way a plugin can be unusable: what to build, the command, and what stderr must say.
    @Test(arguments: [
        ("not a shared library", "", "not a plugin: it does not load as a shared library ("),
        ("no entry symbol", "-DNO_ENTRY", "not a Tessera plugin: it does not export 'tessera_plugin_entry'"),
        (
            "another ABI version", "-DABI_VERSION=999",
            "built for plugin ABI version 999, but this Tessera reads versions 1 to 4; rebuild the plugin against "
                + "this Tessera's tessera_plugin.h"
        ),
        (
            "a built-in's name", "-DOP=\"crop\"",
            "node 'crop' clashes with the built-in node 'crop'; a node name must be unique"
        ),
    ])
    func unusablePluginsAreRefused(what: String, flags: String, message: String) throws {
        try withTemporaryFolder { folder in
            let plugin: String
            if flags.isEmpty {
                plugin = folder.appendingPathComponent("notes.so").path
                try "not a library\n".write(toFile: plugin, atomically: false, encoding: .utf8)
            } else {
                plugin = try Self.broken([flags], as: "libbroken.so", in: folder)
            }
            let graph = try Self.graph("halve", in: folder)
            for arguments in [["nodes"], ["schema"], ["validate", graph], ["dot", graph], ["run", graph]] {
                let result = try CLI.run(arguments + ["--plugin", plugin])
                #expect(result.status == 1 && !result.signaled, "\(what): \(arguments[0]) gave \(result.status)")
                #expect(result.stderr.hasPrefix("Error: \(plugin): \(message)"), "\(what): \(result.stderr)")
                #expect(result.stdout.isEmpty)
            }
        }
    }

    /// `--plugin NAME` without a slash is the file NAME in the current folder, never a library the
    /// dynamic loader finds by that name: a local file named like the C math library is read, and
    /// refused for what it is.
    @Test func aPluginNameIsAPathNotALibrarySearch() throws {
        try withTemporaryFolder { folder in
            try "not a library\n".write(
                to: folder.appendingPathComponent("libm.so.6"), atomically: false, encoding: .utf8)
            let result = try CLI.run(["nodes", "--plugin", "libm.so.6"], in: folder)
            #expect(result.status == 1 && !result.signaled)
            #expect(
                result.stderr.hasPrefix("Error: libm.so.6: not a plugin: it does not load as a shared library ("),
                "\(result.stderr)")
        }
    }

    /// Two plugins declaring the same node: the second is refused, naming both files.
    @Test func twoPluginsWithOneNodeName() throws {
        try withTemporaryFolder { folder in
            let first = try Self.broken([], as: "libfirst.so", in: folder)
            let second = try Self.broken([], as: "libsecond.so", in: folder)
            let result = try CLI.run(["nodes", "--plugin", first, "--plugin", second])
            #expect(result.status == 1 && !result.signaled)
            #expect(
                result.stderr
                    == "Error: \(second): node 'halve' clashes with the node 'halve' of \(first); a node name must be unique\n"
            )
        }
    }

    /// A plugin that fails to make its node or to render, or answers nonsense: the run stops with status
    /// 1, the message names the node, the plugin file and what went wrong, and no output is left behind.
    @Test(arguments: [
        ("-DFAIL_RENDER", "the broken plugin cannot render (code 3)"),
        ("-DFAIL_CREATE", "the broken plugin refuses to make its node (code 1)"),
        ("-DEMPTY_OUTPUT", "the plugin made an output of 0x512, layout 2"),
        ("-DHUGE_REGION", "input_region gave 1099511627776x"),
        (
            "-DBAD_EDGE",
            "kernel input 0 has edge mode 77, which is neither TESSERA_EDGE_CLAMP (0) nor TESSERA_EDGE_TRANSPARENT (1)"
        ),
    ])
    func failingPluginStopsTheRun(flag: String, message: String) throws {
        try withTemporaryFolder { folder in
            let plugin = try Self.broken([flag], as: "libbroken.so", in: folder)
            let graph = try Self.graph("halve", in: folder)
            let result = try CLI.run(["run", graph, "--plugin", plugin, "-q"])
            #expect(result.status == 1 && !result.signaled)
            #expect(result.stderr.hasPrefix("\(graph):4:3: error: halve node 'f': \(plugin): halve: \(message)"))
            #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("out.png").path))
        }
    }

    /// `tessera verify`: the node verifier (TesseraTesting) for a plugin's author, whatever the plugin's
    /// language. A plugin that keeps the rules passes, one line per run; one that reads outside its
    /// declared region, or cannot render, fails with status 1 and says where.
    @Test func verifyHoldsAPluginsNodesToTheRules() throws {
        try withTemporaryFolder { folder in
            let sobel = try Self.sobel(in: folder)
            let good = try CLI.run(["verify", sobel])
            #expect(good.status == 0 && good.stderr.isEmpty)
            let lines = good.stdout.split(separator: "\n")
            #expect(lines.prefix(2) == ["ok      sobel (input: 61x47 rgba)", "ok      sobel (input: 53x41 gray)"])
            #expect(lines.count == 4 && lines[2].hasPrefix("ok      sobel (scale: "), "\(good.stdout)")
            #expect(lines.last == "1 node, 3 runs: every rule kept")

            let leaky = try CLI.run(["verify", try Self.broken(["-DREADS_RIGHT"], as: "libleaky.so", in: folder)])
            #expect(leaky.status == 1 && !leaky.signaled)
            #expect(leaky.stdout.hasPrefix("FAILED  halve (input: 61x47 rgba)\n"), "\(leaky.stdout)")
            #expect(
                leaky.stdout.contains(
                    "  - halve.output (input: 61x47 rgba): reads outside the input region it declares: "))
            #expect(leaky.stdout.contains("1 node, 2 runs: ") && leaky.stdout.hasSuffix(" failures\n"))

            let failing = try CLI.run(["verify", try Self.broken(["-DFAIL_RENDER"], as: "libfail.so", in: folder)])
            #expect(failing.status == 1)
            #expect(failing.stdout.contains("halve (input: 61x47 rgba): it threw: "), "\(failing.stdout)")

            let unknown = try CLI.run(["verify", sobel, "--node", "blur"])
            #expect(unknown.status == 1 && unknown.stderr == "Error: the plugins declare no node named 'blur'\n")
        }
    }

    /// The working variant of the test plugin halves every sample: checked against the photo's samples.
    @Test func aPluginNodeComputesWhatItSays() throws {
        try withTemporaryFolder { folder in
            let plugin = try Self.broken([], as: "libhalve.so", in: folder)
            let graph = try Self.graph("halve", in: folder)
            let out = folder.appendingPathComponent("out.tif").path
            let run = try CLI.run([
                "run", graph, "--plugin", plugin, "-q", "--set", "out.path=\(out)", "--set", "out.depth=float",
            ])
            #expect(run.status == 0, "\(run.stderr)")
            let source = try ImageFile.load(path: Self.photo).1.pixels()
            let halved = try ImageFile.load(path: out).1.pixels()
            #expect(halved.region == source.region)
            // The photo is RGB: the file written holds red, green and blue (alpha is 1 again when read).
            let colors = halved.samples.indices.filter { $0 % 4 != 3 }
            #expect(colors.allSatisfy { halved.samples[$0] == source.samples[$0] * 0.5 })
        }
    }

    /// A plugin runs in-process: one that crashes takes the process down, and one that calls exit() ends
    /// it. Either way the partial output is removed; an exit() during a write is reported as a failure.
    @Test(arguments: [("-DCRASH_RENDER", true), ("-DEXIT_RENDER", false)])
    func aPluginEndingTheProcessLeavesNoFile(flag: String, crashes: Bool) throws {
        try withTemporaryFolder { folder in
            let plugin = try Self.broken([flag], as: "libbroken.so", in: folder)
            let graph = try Self.graph("halve", in: folder)
            let run = try CLI.run(["run", graph, "--plugin", plugin, "-q", "--tile-size", "64"], in: folder)
            if crashes {
                #expect(run.signaled || run.status > 128, "status \(run.status): \(run.stderr)")
            } else {
                #expect(!run.signaled && run.status == 1, "status \(run.status): \(run.stderr)")
                #expect(run.stderr.contains("the process was ended while writing a file"), "\(run.stderr)")
            }
            let left = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
            #expect(left == ["g.yaml", "libbroken.so"], "\(left)")
        }
    }
}
