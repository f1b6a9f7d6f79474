import Foundation
import Testing

/// The command line under hostile input: values that would overflow or allocate wildly, outputs that
/// cannot be written, closed pipes. Each ends with one clear line and a status, never a signal.
@Suite struct HostileInputTests {
    static let graph = """
        version: 1
        nodes:
          c: { op: constant, width: 67, height: 45, color: [1, 0, 0, 1] }
          b: { op: crop, input: c, margin: 2 }
          o: { op: save, input: b, path: o.png }
        """

    /// A mistake on the command line is one line naming the fix, and status 2, as an invalid graph.
    @Test(arguments: [
        (["run", "g.yaml", "--bogus"], "Error: Unknown option '--bogus' (see 'tessera run --help')"),
        (["--bogus"], "Error: Unknown option '--bogus' (see 'tessera --help')"),
        (
            ["run", "g.yaml", "--threads", "2147483648"],
            "Error: --threads must be from 1 to 256, not 2147483648 (see 'tessera run --help')"
        ),
        (
            ["run", "g.yaml", "--tile-size", "9223372036854775807"],
            "Error: --tile-size must be from 16 to 4096, not 9223372036854775807 (see 'tessera run --help')"
        ),
        (
            ["run", "g.yaml", "--tile-size", "2147483647"],
            "Error: --tile-size must be from 16 to 4096, not 2147483647 (see 'tessera run --help')"
        ),
        (
            ["run", "g.yaml", "--max-output-pixels", "0"],
            "Error: --max-output-pixels must be positive, not 0 (see 'tessera run --help')"
        ),
    ])
    func usageErrorsAreOneLine(arguments: [String], message: String) throws {
        try withTemporaryFolder { folder in
            try Self.graph.write(to: folder.appendingPathComponent("g.yaml"), atomically: false, encoding: .utf8)
            let result = try CLI.run(arguments, in: folder)
            #expect(result.status == 2 && !result.signaled)
            #expect(result.stderr == message + "\n")
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["g.yaml"])
        }
    }

    /// A 1000000x1000000 image would be written until the disk is full: refused by validation where the
    /// parameters fix its size (status 2), before the file is opened otherwise (status 1); the limit is
    /// `--max-output-pixels`.
    @Test(arguments: [
        (
            "c: { op: constant, width: 1000000, height: 1000000 }", [String](), Int32(2),
            "g.yaml:4:25: error: o.input: 'c' is 1000000x1000000 (1000000000000 pixels), more than the output "
                + "limit of 4294967296 pixels; raise it with --max-output-pixels N"
        ),
        (
            "c: { op: constant, width: 2, height: 2 }", ["--max-output-pixels", "3"], Int32(2),
            "g.yaml:4:25: error: o.input: 'c' is 2x2 (4 pixels), more than the output limit of 3 pixels; raise it "
                + "with --max-output-pixels N"
        ),
        (
            "k: { op: constant, width: 100, height: 100 }\n  c: { op: resize, input: k, factor: 10000 }", [], Int32(1),
            "g.yaml:5:3: error: save node 'o': the image to write is 1000000x1000000 (1000000000000 pixels), "
                + "more than the output limit of 4294967296 pixels; raise it with --max-output-pixels N "
                + "(RunOptions.maxOutputPixels)"
        ),
    ])
    func anOutputOverTheLimitIsRefused(source: String, options: [String], status: Int32, message: String) throws {
        try withTemporaryFolder { folder in
            let text = "version: 1\nnodes:\n  \(source)\n  o: { op: save, input: c, path: big.tif, tile: 256 }\n"
            try text.write(to: folder.appendingPathComponent("g.yaml"), atomically: false, encoding: .utf8)
            let result = try CLI.run(["run", "g.yaml", "-q"] + options, in: folder)
            #expect(result.status == status && !result.signaled)
            #expect(result.stderr == message + "\n")
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["g.yaml"])
        }
    }

    /// A trace that cannot be written is found before the run, which then writes nothing.
    /// A fuzzer finding: 38,694 tiles of 16x5 pixels. The reader's recent-chunk list was searched
    /// linearly, so decoding took 33 s (debug build) for 2.4 megapixels; it now takes well under one. The
    /// CPU limit is a guard against that quadratic blow-up, far above the linear time (a limit a slow
    /// machine meets), not a speed target.
    @Test func aTIFFOfTinyTilesDecodesInLinearTime() throws {
        try withTemporaryFolder { folder in
            let input = CLI.fixtures.appendingPathComponent("bombs/fuzz-tiny-tiles.tif").path
            let tessera = try #require(CLI.executable).path
            let result = try CLI.run(
                ["-c", "ulimit -t 15; exec \"$0\" convert \"$1\" o.png", tessera, input], in: folder,
                binary: URL(fileURLWithPath: "/bin/sh"))
            #expect(!result.signaled && result.status == 0, "\(result.status) \(result.stderr)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["o.png"])
        }
    }

    @Test func anUnwritableTraceIsFoundFirst() throws {
        try withTemporaryFolder { folder in
            try Self.graph.write(to: folder.appendingPathComponent("g.yaml"), atomically: false, encoding: .utf8)
            let result = try CLI.run(["run", "g.yaml", "--trace", "missing/t.json", "-q"], in: folder)
            #expect(result.status == 1 && !result.signaled)
            #expect(
                result.stderr == "missing/t.json: cannot write: the folder missing does not exist (the --trace file)\n")
            #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("o.png").path))
        }
    }

    /// An output name of up to 255 bytes is written, though its temporary name is longer than that.
    @Test func aLongOutputNameIsWritten() throws {
        try withTemporaryFolder { folder in
            let name = String(repeating: "n", count: 251) + ".png"
            let text = Self.graph.replacingOccurrences(of: "path: o.png", with: "path: \(name)")
            try text.write(to: folder.appendingPathComponent("g.yaml"), atomically: false, encoding: .utf8)
            let result = try CLI.run(["run", "g.yaml", "-q"], in: folder)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent(name).path))
        }
    }

    /// A full disk behind stdout is an error (a redirect must not leave a truncated file behind status 0).
    @Test(arguments: [["schema"], ["nodes"], ["--help"], ["run", "--help"], ["--version"]])
    func aFullStandardOutputIsAnError(arguments: [String]) throws {
        let result = try Self.run(arguments, stdout: try #require(FileHandle(forWritingAtPath: "/dev/full")))
        #expect(result.status == 1 && !result.signaled)
        #expect(result.stderr == "tessera: cannot write to standard output: No space left on device\n")
    }

    /// A reader that stops early (`| head -c 10`) ends the command quietly: status 0, no SIGPIPE, no message.
    @Test func aClosedPipeIsAQuietEnd() throws {
        let pipe = Pipe()
        let process = try Self.start(["nodes", "--json"], stdout: pipe.fileHandleForWriting)
        try pipe.fileHandleForWriting.close()
        let head = try pipe.fileHandleForReading.read(upToCount: 10)
        try pipe.fileHandleForReading.close()
        let stderr = process.stderr.fileHandleForReading.readDataToEndOfFile()
        process.process.waitUntilExit()
        #expect(head?.count == 10)
        #expect(process.process.terminationReason == .exit && process.process.terminationStatus == 0)
        #expect(stderr.isEmpty)
    }

    static func start(_ arguments: [String], stdout: FileHandle) throws -> (process: Process, stderr: Pipe) {
        let process = Process()
        process.executableURL = try #require(CLI.executable)
        process.arguments = arguments
        let stderr = Pipe()
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        return (process, stderr)
    }

    static func run(_ arguments: [String], stdout: FileHandle) throws -> CLI.Result {
        let (process, stderr) = try start(arguments, stdout: stdout)
        let errors = stderr.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return CLI.Result(
            status: process.terminationStatus, signaled: process.terminationReason == .uncaughtSignal, stdout: "",
            stderr: String(decoding: errors, as: UTF8.self))
    }
}
