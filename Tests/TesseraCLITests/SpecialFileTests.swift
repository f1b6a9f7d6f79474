import Foundation
import Testing

/// A named pipe (FIFO) or a device where an image, a profile or a manifest is expected: refused at once
/// with one line naming the file, never opened. Opening a FIFO for reading blocks until some other
/// process writes to it, so every command used to hang on one (`convert`, `run`, a `batch` over a folder
/// holding one); `/dev/zero` would be read for ever.
@Suite struct SpecialFileTests {
    /// Runs `tessera` in `folder`, killed after `seconds`: a command that blocks fails the test instead of
    /// hanging it.
    static func run(_ arguments: [String], in folder: URL, seconds: Double = 20) throws -> (CLI.Result, Bool) {
        let process = Process()
        process.executableURL = try #require(CLI.executable)
        process.arguments = arguments
        process.currentDirectoryURL = folder
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let timedOut = Flag()
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds) {
            if process.isRunning {
                timedOut.raise()
                process.terminate()
            }
        }
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let result = CLI.Result(
            status: process.terminationStatus, signaled: process.terminationReason == .uncaughtSignal,
            stdout: String(decoding: outData, as: UTF8.self), stderr: String(decoding: errData, as: UTF8.self))
        return (result, timedOut.isRaised)
    }

    static let fifoMessage = "is a named pipe (FIFO), not a regular file; Tessera reads files only"

    /// Each way a file reaches a reader, with `fifo.png` (or `fifo.icc`, `fifo.csv`) a named pipe in the
    /// folder, and the line the command must print.
    static let cases: [(arguments: [String], status: Int32, message: String)] = [
        (["convert", "fifo.png", "out.png"], 1, "Error: fifo.png: \(fifoMessage)"),
        (["thumbnail", "fifo.png", "out.png", "--size", "8"], 1, "Error: fifo.png: \(fifoMessage)"),
        (["info", "fifo.png"], 1, "Error: fifo.png: \(fifoMessage)"),
        (["run", "load.yaml", "-q"], 1, "load.yaml:3:3: error: load node 'photo': fifo.png: \(fifoMessage)"),
        (
            ["run", "profile.yaml", "-q"], 1,
            "profile.yaml:4:3: error: colorSpace node 'web': fifo.icc: \(fifoMessage)"
        ),
        (["run", "input.yaml", "-q", "--input", "photo=fifo.png"], 2, "fifo.png: \(fifoMessage)"),
        (["batch", "load.yaml", "--manifest", "fifo.csv", "-q"], 2, "Error: fifo.csv: \(fifoMessage)"),
        (
            ["batch", "load.yaml", "photos", "--output-dir", "out", "-q"], 1,
            "load.yaml:3:3: error: load node 'photo': photos/b.png: \(fifoMessage)"
        ),
        (
            ["convert", "/dev/zero", "out.png"], 1,
            "Error: /dev/zero: is a device, not a regular file; Tessera reads files only"
        ),
        // A graph file that is a FIFO blocked `validate` and `run` until something wrote to it.
        (["validate", "fifo.yaml"], 2, "fifo.yaml: error: \(fifoMessage)"),
        (["run", "fifo.yaml", "-q"], 2, "fifo.yaml: error: \(fifoMessage)"),
    ]

    @Test(arguments: cases)
    func aSpecialFileIsRefusedAtOnce(arguments: [String], status: Int32, message: String) throws {
        try withTemporaryFolder { folder in
            for name in ["fifo.png", "fifo.icc", "fifo.csv", "fifo.yaml"] {
                #expect(mkfifo(folder.appendingPathComponent(name).path, 0o600) == 0)
            }
            let photos = folder.appendingPathComponent("photos")
            try FileManager.default.createDirectory(at: photos, withIntermediateDirectories: true)
            try FileManager.default.copyItem(
                at: CLI.fixtures.appendingPathComponent("png/rgb-8bit.png"), to: photos.appendingPathComponent("a.png"))
            #expect(mkfifo(photos.appendingPathComponent("b.png").path, 0o600) == 0)
            let graphs = [
                "load.yaml": "photo: { op: load, path: fifo.png }\n  out: { op: save, input: photo, path: out.png }",
                "profile.yaml": """
                photo: { op: load, path: photos/a.png }
                  web: { op: colorSpace, input: photo, profile: fifo.icc }
                  out: { op: save, input: web, path: out.png }
                """,
                "input.yaml": """
                photo: { op: input, width: 61, height: 47, channels: 3 }
                  out: { op: save, input: photo, path: out.png }
                """,
            ]
            for (name, nodes) in graphs {
                try "version: 1\nnodes:\n  \(nodes)\n".write(
                    to: folder.appendingPathComponent(name), atomically: false, encoding: .utf8)
            }
            let (result, timedOut) = try Self.run(arguments, in: folder)
            #expect(!timedOut, "blocked on the FIFO: \(arguments)")
            #expect(result.status == status && !result.signaled, "\(arguments): \(result.stderr)")
            let lines = result.stderr.split(separator: "\n").map(String.init)
            #expect(lines == [message], "\(arguments)")
            #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("out.png").path))
        }
    }
}

/// Set by the timer that kills a blocked process, read after it ends.
private final class Flag: @unchecked Sendable {
    private var raised = false
    private let lock = NSLock()
    var isRaised: Bool { lock.withLock { raised } }
    func raise() { lock.withLock { raised = true } }
}
