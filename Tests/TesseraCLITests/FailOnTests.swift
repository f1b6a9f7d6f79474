import Foundation
import Testing

/// `--fail-on` on `convert`, `run` and `batch`, and `failOn` on `load` (issue 37): by default recoverable
/// damage is read with one warning line naming the file (status 0); from the damage's level up it is one
/// error line naming the file (status 1), and nothing is written.
@Suite struct FailOnTests {
    static let corpus = CLI.fixtures.appendingPathComponent("corpus")

    /// A JPEG with a bad Huffman code (damage of level error) and a clean PNG, copied into `folder`.
    static func copyFiles(to folder: URL) throws {
        try FileManager.default.copyItem(
            at: corpus.appendingPathComponent("jpeg-bad-huffman.jpg"), to: folder.appendingPathComponent("bad.jpg"))
        try FileManager.default.copyItem(
            at: CLI.fixtures.appendingPathComponent("png/rgb-8bit.png"), to: folder.appendingPathComponent("ok.png"))
    }

    static let warning =
        "Warning: bad.jpg: JPEG: Corrupt JPEG data: bad Huffman code (read anyway; --fail-on error refuses it)\n"

    @Test(
        arguments: [
            ([], 0, warning),
            (["--fail-on", "none"], 0, warning),
            (["--fail-on", "truncated"], 0, warning),
            (["--fail-on", "error"], 1, "Error: bad.jpg: JPEG: Corrupt JPEG data: bad Huffman code\n"),
            (["--fail-on", "warning"], 1, "Error: bad.jpg: JPEG: Corrupt JPEG data: bad Huffman code\n"),
        ] as [([String], Int32, String)])
    func convertReadsPastOrRefuses(options: [String], status: Int32, stderr: String) throws {
        try withTemporaryFolder { folder in
            try Self.copyFiles(to: folder)
            let result = try CLI.run(["convert", "bad.jpg", "out.png"] + options, in: folder)
            #expect(result.status == status && !result.signaled)
            #expect(result.stderr == stderr)
            #expect(
                FileManager.default.fileExists(atPath: folder.appendingPathComponent("out.png").path) == (status == 0))
        }
    }

    @Test func anUnknownLevelIsAUsageError() throws {
        let result = try CLI.run(["convert", "bad.jpg", "out.png", "--fail-on", "sometimes"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("--fail-on"), "\(result.stderr)")
    }

    /// `run --fail-on` sets every load node's failOn; a node's own failOn does the same for its file.
    @Test(
        arguments: [
            ("", [], 0),
            ("", ["--fail-on", "error"], 1),
            (", failOn: error", [], 1),
            (", failOn: error", ["--set", "photo.failOn=truncated"], 0),
        ] as [(String, [String], Int32)])
    func runHonoursTheNodeAndTheOption(parameter: String, options: [String], status: Int32) throws {
        try withTemporaryFolder { folder in
            try Self.copyFiles(to: folder)
            let graph = """
                version: 1
                nodes:
                  photo: { op: load, path: bad.jpg\(parameter) }
                  out: { op: save, input: photo, path: out.png }
                """
            try graph.write(to: folder.appendingPathComponent("g.yaml"), atomically: true, encoding: .utf8)
            let result = try CLI.run(["run", "g.yaml", "-q"] + options, in: folder)
            #expect(result.status == status && !result.signaled, "\(result.stderr)")
            let lines = result.stderr.split(separator: "\n")
            #expect(lines.count == 1, "\(result.stderr)")
            #expect(lines.first?.contains("bad.jpg") == true)
            #expect(lines.first?.contains("Corrupt JPEG data: bad Huffman code") == true)
            if status == 0 { #expect(result.stderr == Self.warning) }
        }
    }

    /// In a batch the damaged item warns (or fails, with --fail-on error) and the others go on.
    @Test(arguments: [([], 0), (["--fail-on", "error"], 1)] as [([String], Int32)])
    func batchItemsReadPastOrFailAlone(options: [String], status: Int32) throws {
        try withTemporaryFolder { folder in
            let inputs = folder.appendingPathComponent("in")
            try FileManager.default.createDirectory(at: inputs, withIntermediateDirectories: true)
            try Self.copyFiles(to: inputs)
            let graph = """
                version: 1
                nodes:
                  photo: { op: load, path: none.png }
                  out: { op: save, input: photo, path: "out/{stem}.png" }
                """
            try graph.write(to: folder.appendingPathComponent("g.yaml"), atomically: true, encoding: .utf8)
            let result = try CLI.run(["batch", "g.yaml", "in", "-q"] + options, in: folder)
            #expect(result.status == status && !result.signaled, "\(result.stderr)")
            let lines = result.stderr.split(separator: "\n")
            #expect(lines.count == 1, "\(result.stderr)")
            #expect(lines.first?.contains("bad.jpg") == true && lines.first?.contains("bad Huffman code") == true)
            // A warning, or the item's error at its node: "g.yaml:3:3: error: load node 'photo': in/bad.jpg: ...".
            let line = String(lines.first ?? "")
            #expect(status == 0 ? line.hasPrefix("Warning: ") : line.contains("error: load node 'photo'"), "\(line)")
            let written = try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("out").path)
            #expect(written.sorted() == (status == 0 ? ["bad.png", "ok.png"] : ["ok.png"]))
        }
    }
}

/// What libraries say goes into the one line about the file (issue 37): an ICC profile Little CMS cannot
/// convert from is named by the file it came in (before: "Error: Little CMS cannot convert from "(no
/// description)" to "sRGB"", naming none), and the lines libheif's decoders print themselves (before:
/// printed as lines of their own, beside Tessera's) are inside its warning or error.
@Suite struct LibraryMessageTests {
    static let corpus = CLI.fixtures.appendingPathComponent("corpus")

    /// Files every failOn refuses, with the words of their one line (Scripts/make-decoder-corpus.py).
    static let refused: [(file: String, words: String)] = {
        struct Corpus: Decodable {
            struct Refused: Decodable {
                var file: String
                var error: String
            }
            var refused: [Refused]
        }
        let data = (try? Data(contentsOf: corpus.appendingPathComponent("corpus.json"))) ?? Data()
        return ((try? JSONDecoder().decode(Corpus.self, from: data))?.refused ?? []).map { ($0.file, $0.error) }
    }()

    @Test func aBrokenProfileIsDroppedNamingItsFile() throws {
        try withTemporaryFolder { folder in
            try FileManager.default.copyItem(
                at: Self.corpus.appendingPathComponent("jpeg-icc-broken-tags.jpg"),
                to: folder.appendingPathComponent("p.jpg"))
            let converted = try CLI.run(["convert", "p.jpg", "out.png", "--profile", "srgb"], in: folder)
            #expect(converted.status == 0 && !converted.signaled)
            #expect(
                converted.stderr
                    == "Warning: p.jpg: JPEG: the embedded ICC profile cannot be read (2576 bytes); dropped, the colors "
                    + "read as sRGB (read anyway; --fail-on warning refuses it)\n")
            let refused = try CLI.run(["convert", "p.jpg", "out2.png", "--fail-on", "warning"], in: folder)
            #expect(refused.status == 1)
            #expect(refused.stderr == "Error: p.jpg: JPEG: the embedded ICC profile cannot be read (2576 bytes)\n")
        }
    }

    @Test func whatADecoderPrintsIsInTheOneLine() throws {
        #expect(Self.refused.count == 2)
        try withTemporaryFolder { folder in
            for (file, words) in Self.refused {
                let result = try CLI.run(
                    ["convert", Self.corpus.appendingPathComponent(file).path, "out.png"], in: folder)
                #expect(result.status == 1 && !result.signaled)
                #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
                #expect(result.stderr.hasPrefix("Error: ") && result.stderr.contains(words), "\(result.stderr)")
                #expect(result.stderr.contains(file))
            }
            let read = try CLI.run(
                ["convert", Self.corpus.appendingPathComponent("avif-decoder-prints.avif").path, "out.png"], in: folder)
            #expect(read.status == 0)
            #expect(read.stderr.split(separator: "\n").count == 1, "\(read.stderr)")
            #expect(read.stderr.hasPrefix("Warning: ") && read.stderr.contains("Unknown OBU type 8 of size 0"))
        }
    }
}
