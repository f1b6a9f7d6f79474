import Foundation
import Testing

/// A small file whose header claims far more than it holds (`Fixtures/hostile/`, made by
/// Scripts/make-decoder-corpus.py, libpng's "crasher" PNGs among them).
struct HostileFile: Decodable, CustomTestStringConvertible, Sendable {
    var file: String
    var what: String
    var claims: String

    var testDescription: String { file }

    static let folder = CLI.fixtures.appendingPathComponent("hostile")

    static let all: [HostileFile] = {
        struct List: Decodable { var files: [HostileFile] }
        do {
            let data = try Data(contentsOf: folder.appendingPathComponent("hostile.json"))
            return try JSONDecoder().decode(List.self, from: data).files
        } catch {
            Issue.record("cannot read the hostile list: \(error)")
            return []
        }
    }()
}

/// Small files stay small (issue 37): each hostile file ends in under 2 s and 200 MB with one line naming
/// it, whatever its header claims (before: a 140-byte animated WebP took 3.2 GB and 28 s, a 35-byte GIF
/// screen 2.4 GB and 78 s, libpng's 57-byte crashers 1 GB each, a HEIF grid of one tile 1.6 GB and 85 s).
/// Measured by /usr/bin/time (Debian's `time`) around `tessera convert`.
@Suite struct HostileFileTests {
    static let time = URL(fileURLWithPath: "/usr/bin/time")

    /// `tessera convert` under /usr/bin/time: the result, and the seconds and peak megabytes it took.
    static func measured(_ arguments: [String], in folder: URL) throws -> (
        CLI.Result, seconds: Double, megabytes: Double
    ) {
        let tessera = try #require(CLI.executable)
        var result = try CLI.run(["-f", "time: %e %M", tessera.path] + arguments, in: folder, binary: time)
        var lines = result.stderr.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" { lines.removeLast() }
        let timing = try #require(lines.last { $0.hasPrefix("time: ") }, "\(result.stderr)")
        lines.removeAll { $0.hasPrefix("time: ") || $0.hasPrefix("Command exited with non-zero status") }
        result.stderr = lines.map { $0 + "\n" }.joined()
        let numbers = timing.dropFirst(6).split(separator: " ").compactMap { Double($0) }
        return (result, numbers.first ?? .infinity, (numbers.last ?? .infinity) / 1024)
    }

    @Test(arguments: HostileFile.all)
    func hostileFilesEndSmallAndFast(_ hostile: HostileFile) throws {
        try withTemporaryFolder { folder in
            let input = HostileFile.folder.appendingPathComponent(hostile.file).path
            // Read past (a GIF frame larger than its data is drawn as far as the data goes), or refused.
            for policy in [[], ["--fail-on", "truncated"]] {
                let (result, seconds, megabytes) = try Self.measured(
                    ["convert", input, "out.png"] + policy, in: folder)
                #expect(!result.signaled, "\(hostile.file): \(result.stderr)")
                #expect(seconds < 2, "\(hostile.file) took \(seconds) s")
                #expect(megabytes < 200, "\(hostile.file) took \(megabytes) MB")
                let lines = result.stderr.split(separator: "\n")
                #expect(lines.count == 1, "\(hostile.file): \(result.stderr)")
                #expect(result.stderr.contains(hostile.file), "names the file: \(result.stderr)")
                if result.status == 0 {
                    #expect(policy.isEmpty && result.stderr.hasPrefix("Warning: "), "\(result.stderr)")
                } else {
                    #expect(result.status == 1 && result.stderr.hasPrefix("Error: "), "\(result.stderr)")
                    #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
                }
                try? FileManager.default.removeItem(at: folder.appendingPathComponent("out.png"))
            }
        }
    }
}
