import Foundation
import Testing

/// The progress bar as a user meets it: `tessera run` on a terminal shows it advance to 100% and clears
/// it; with `--quiet`, or when stderr is a pipe or a file, nothing is drawn.
@Suite(.serialized) struct ProgressTests {
    /// A graph with two stages (a global node, then a sink) over a 512x512 image: with 16-pixel tiles
    /// each stage reads 1024 tiles, so every percentage has its own tiles.
    static let graph = """
        version: 1
        nodes:
          plain: { op: constant, width: 512, height: 512, color: [0.2, 0.4, 0.6, 1] }
          lit:   { op: contrast, input: plain, amount: 1.5 }
          even:  { op: normalize, input: lit }
          out:   { op: save, input: even, path: out.png }
        """

    /// Runs `tessera` with stderr on a new pseudo-terminal and stdout on a pipe; returns both and the status.
    static func runOnTerminal(_ arguments: [String], in folder: URL) throws -> (
        status: Int32, stdout: String, terminal: String
    ) {
        // Glibc's module leaves out the X/Open terminal calls: look them up in libc.
        func libc<T>(_ name: String, as type: T.Type) throws -> T {
            unsafeBitCast(
                try #require(dlsym(UnsafeMutableRawPointer(bitPattern: 0), name), "libc has \(name)"), to: type)
        }
        typealias OnDescriptor = @convention(c) (Int32) -> Int32
        let openMaster = try libc("posix_openpt", as: OnDescriptor.self)
        let grant = try libc("grantpt", as: OnDescriptor.self)
        let unlock = try libc("unlockpt", as: OnDescriptor.self)
        let slaveName = try libc("ptsname", as: (@convention(c) (Int32) -> UnsafeMutablePointer<CChar>?).self)
        let master = openMaster(O_RDWR | O_NOCTTY | O_CLOEXEC)
        try #require(master >= 0, "a pseudo-terminal opens")
        defer { close(master) }
        try #require(grant(master) == 0 && unlock(master) == 0)
        let name = try #require(slaveName(master).map { String(cString: $0) })
        let terminal = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC)
        try #require(terminal >= 0)
        let process = Process()
        process.executableURL = try #require(CLI.executable)
        process.arguments = arguments
        process.currentDirectoryURL = folder
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle(fileDescriptor: terminal, closeOnDealloc: false)
        do {
            try process.run()
        } catch {
            close(terminal)
            throw error
        }
        close(terminal)  // the child holds it; reads on the master end with EIO once the child exits
        var shown = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(master, &buffer, buffer.count)
            if count <= 0 { break }
            shown += buffer[0..<count]
        }
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (
            process.terminationStatus, String(decoding: stdout, as: UTF8.self), String(decoding: shown, as: UTF8.self)
        )
    }

    /// The percentages a bar drew, in order.
    static func percentages(_ text: String) -> [Int] {
        text.split(separator: "\r").compactMap { line in
            guard line.hasPrefix("["), let end = line.lastIndex(of: "%"), let space = line.lastIndex(of: " ") else {
                return nil
            }
            return Int(line[line.index(after: space)..<end])
        }
    }

    @Test func aTerminalSeesTheBarAdvanceToTheEnd() throws {
        try withTemporaryFolder { folder in
            try Self.graph.write(to: folder.appendingPathComponent("g.yaml"), atomically: false, encoding: .utf8)
            let run = try Self.runOnTerminal(["run", "g.yaml", "--tile-size", "16", "--threads", "2"], in: folder)
            #expect(run.status == 0, "\(run.terminal)")
            #expect(run.stdout == "Wrote out.png\n")
            let shown = Self.percentages(run.terminal)
            #expect(shown.last == 100, "the bar reaches 100%: \(shown)")
            #expect(shown.filter { $0 > 0 && $0 < 100 }.count >= 20, "the bar advances in steps: \(shown)")
            #expect(shown == shown.sorted(), "the bar never goes back: \(shown)")
            // The bar is cleared at the end, so the terminal is left clean.
            #expect(run.terminal.hasSuffix("\r\u{1B}[K"))
        }
    }

    @Test func quietDrawsNothingOnATerminal() throws {
        try withTemporaryFolder { folder in
            try Self.graph.write(to: folder.appendingPathComponent("g.yaml"), atomically: false, encoding: .utf8)
            let run = try Self.runOnTerminal(["run", "g.yaml", "--tile-size", "16", "--quiet"], in: folder)
            #expect(run.status == 0)
            #expect(run.terminal.isEmpty && run.stdout.isEmpty, "\(run.terminal.debugDescription)")
        }
    }

    @Test func aPipeOrAFileGetsNoBar() throws {
        try withTemporaryFolder { folder in
            try Self.graph.write(to: folder.appendingPathComponent("g.yaml"), atomically: false, encoding: .utf8)
            let piped = try CLI.run(["run", "g.yaml", "--tile-size", "16"], in: folder)
            #expect(piped.status == 0)
            #expect(piped.stderr.isEmpty, "\(piped.stderr.debugDescription)")
            // stderr to a file, as `2> log` does.
            let log = folder.appendingPathComponent("log")
            FileManager.default.createFile(atPath: log.path, contents: nil)
            let process = Process()
            process.executableURL = try #require(CLI.executable)
            process.arguments = ["run", "g.yaml", "--tile-size", "16"]
            process.currentDirectoryURL = folder
            process.standardOutput = FileHandle.nullDevice
            process.standardError = try FileHandle(forWritingTo: log)
            try process.run()
            process.waitUntilExit()
            #expect(process.terminationStatus == 0)
            #expect(try Data(contentsOf: log).isEmpty)
        }
    }
}
