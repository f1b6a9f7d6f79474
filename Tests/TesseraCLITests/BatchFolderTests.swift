import Foundation
import Testing

/// `tessera batch --output-dir` keeps every output in that folder, whatever a manifest names; a folder
/// that cannot be made is one line; and the bound parameter is the graph's only file it reads, files
/// that are left unset (a colorSpace node's `profile`) not counted.
@Suite struct BatchFolderTests {
    /// `work/` (the current folder) holds the graph and `in/a.png`; `other/b.png` is beside it, reached as
    /// `../other/b.png`.
    static func makeFolders(in root: URL, graph: String) throws -> URL {
        let work = root.appendingPathComponent("work")
        for folder in ["work/in", "other"] {
            try FileManager.default.createDirectory(
                at: root.appendingPathComponent(folder), withIntermediateDirectories: true)
        }
        let photo = CLI.fixtures.appendingPathComponent("png/rgb-8bit.png")
        try FileManager.default.copyItem(at: photo, to: work.appendingPathComponent("in/a.png"))
        try FileManager.default.copyItem(at: photo, to: root.appendingPathComponent("other/b.png"))
        try graph.write(to: work.appendingPathComponent("g.yaml"), atomically: false, encoding: .utf8)
        return work
    }

    static func graph(writing template: String) -> String {
        """
        version: 1
        nodes:
          photo: { op: load, path: in/a.png }
          out: { op: save, input: photo, path: "\(template)" }
        """
    }

    /// Every regular file under `folder`, relative to it.
    static func files(under folder: URL, prefix: String = "") -> Set<String> {
        var found: Set<String> = []
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [] {
            let url = folder.appendingPathComponent(name)
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder) else { continue }
            if isFolder.boolValue {
                found.formUnion(files(under: url, prefix: prefix + name + "/"))
            } else {
                found.insert(prefix + name)
            }
        }
        return found
    }

    /// One manifest row each: the input it names (`ROOT` is the test's folder, for an absolute path), the
    /// output template, and where the output lands under `out/` (nil: the batch is refused, status 2).
    /// Before, `{dir}` carried a manifest's `..` into the path, and `../other/b.png` was written to
    /// `out/../other/b.png`, outside the output folder.
    static let rows: [(input: String, template: String, output: String?)] = [
        ("../other/b.png", "{dir}/{stem}.png", "other/b.png"),
        ("in/../../other/b.png", "{dir}/{stem}.png", "other/b.png"),
        ("in/../in/a.png", "{dir}/{stem}.png", "in/a.png"),
        ("../work/../other/b.png", "{dir}-{stem}.png", "other/other-b.png"),
        ("../../../../../../../../ROOT/other/b.png", "{dir}/{stem}.png", "ROOT/other/b.png"),
        ("ROOT/other/b.png", "{stem}.png", "ROOT/other/b.png"),
        ("in/..", "{name}", nil),
    ]

    @Test(arguments: rows)
    func outputsStayInTheOutputFolder(input: String, template: String, output: String?) throws {
        try withTemporaryFolder { root in
            let work = try Self.makeFolders(in: root, graph: Self.graph(writing: template))
            let rootPath = root.path.hasPrefix("/") ? String(root.path.dropFirst()) : root.path
            let named = input.replacingOccurrences(of: "ROOT", with: input.hasPrefix("ROOT") ? root.path : rootPath)
            try "photo.path\n\(named)\n".write(
                to: work.appendingPathComponent("m.csv"), atomically: false, encoding: .utf8)
            let before = Self.files(under: root)
            let result = try CLI.run(["batch", "g.yaml", "--manifest", "m.csv", "--output-dir", "out", "-q"], in: work)
            let written = Self.files(under: root).subtracting(before)
            guard let output else {
                #expect(result.status == 2, "\(result.stderr)")
                #expect(result.stderr.contains("outside --output-dir out"), "\(result.stderr)")
                #expect(result.stderr.split(separator: "\n").count == 1)
                #expect(written.isEmpty)
                return
            }
            #expect(result.status == 0, "\(input): \(result.stderr)")
            let expected = "work/out/" + output.replacingOccurrences(of: "ROOT", with: rootPath)
            #expect(written == [expected], "\(input): \(Self.files(under: root))")
        }
    }

    /// An output folder that cannot be made is one line naming it and why, status 2, before any item runs
    /// (it was Foundation's error dump, once per item).
    @Test(arguments: [
        ("g.yaml", "Error: --output-dir g.yaml: cannot create the folder: g.yaml is a file"),
        ("g.yaml/thumbs", "Error: --output-dir g.yaml/thumbs: cannot create the folder: g.yaml is a file"),
        (
            "/proc/tessera/thumbs",
            "Error: --output-dir /proc/tessera/thumbs: cannot create the folder: no such file or directory"
        ),
    ])
    func aBadOutputFolderIsOneLine(folder name: String, message: String) throws {
        try withTemporaryFolder { root in
            let work = try Self.makeFolders(in: root, graph: Self.graph(writing: "{stem}.png"))
            let result = try CLI.run(["batch", "g.yaml", "in", "--output-dir", name], in: work)
            #expect(result.status == 2 && !result.signaled)
            #expect(result.stderr == message + "\n")
            #expect(result.stdout.isEmpty)
        }
    }

    /// `run` creating a template's folder says the same in one line.
    @Test func runSaysWhyAFolderCannotBeMade() throws {
        try withTemporaryFolder { root in
            let work = try Self.makeFolders(in: root, graph: Self.graph(writing: "g.yaml/{stem}/x.png"))
            let result = try CLI.run(["run", "g.yaml", "-q"], in: work)
            #expect(result.status == 1)
            #expect(result.stderr == "g.yaml/a: cannot create the folder: g.yaml is a file\n")
        }
    }

    /// A colorSpace node's `profile` (a file to read, unset) is not a second file the batch could bind:
    /// the graph reads one file, and its path is the one each input sets.
    @Test func anUnsetFileParameterIsNotBound() throws {
        try withTemporaryFolder { root in
            let graph = """
                version: 1
                nodes:
                  photo: { op: load, path: in/a.png }
                  srgb: { op: colorSpace, input: photo }
                  out: { op: save, input: srgb, path: "{stem}.png" }
                """
            let work = try Self.makeFolders(in: root, graph: graph)
            let result = try CLI.run(["batch", "g.yaml", "in", "../other", "--output-dir", "out", "-q"], in: work)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(Self.files(under: work.appendingPathComponent("out")) == ["a.png", "b.png"])
            // Set, the profile is a second file, and the batch asks which one to bind.
            let set = try CLI.run(
                ["batch", "g.yaml", "in", "--output-dir", "out2", "--set", "srgb.profile=in/a.png"], in: work)
            #expect(set.status == 2)
            #expect(
                set.stderr
                    == "Error: g.yaml reads 2 files (photo.path, srgb.profile): name the one each input sets with "
                    + "--bind NODE.PARAM\n")
        }
    }
}
