import Foundation
import Testing

/// The front door: the README is a landing page (what Tessera is, the two commands, one graph, where the
/// rest is) and every relative link of it and of the manual under Docs/ resolves, headings included
/// (Scripts/check-links.py, which a broken link in a test file of its own shows failing).
@Suite struct DocumentationTests {
    static func checkLinks(_ files: [String] = []) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [repositoryRoot.appendingPathComponent("Scripts/check-links.py").path] + files
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    @Test func everyLinkResolves() throws {
        let result = try Self.checkLinks()
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.hasSuffix(" broken links\n") && result.output.contains(", 0 broken links"))
    }

    /// The checker finds what it is there to find: a missing file, a missing heading, either side of a
    /// code span or fence.
    @Test func aBrokenLinkIsFound() throws {
        let file = repositoryRoot.appendingPathComponent("Docs/.links-test-\(UUID().uuidString).md")
        defer { try? FileManager.default.removeItem(at: file) }
        try """
        # Links
        [ok](Nodes.md#crop) [missing](Nowhere.md) [heading](Nodes.md#nowhere) [here](#links) `[code](x.md)`
        ```
        [fenced](y.md)
        ```
        """.write(to: file, atomically: false, encoding: .utf8)
        let result = try Self.checkLinks(["Docs/" + file.lastPathComponent])
        #expect(result.status == 1)
        let lines = result.output.split(separator: "\n").map(String.init)
        let name = "Docs/" + file.lastPathComponent
        #expect(
            lines == [
                "\(name):2: Nowhere.md: no such file",
                "\(name):2: Nodes.md#nowhere: no heading '#nowhere' in Docs/Nodes.md",
                "1 files checked, 2 broken links",
            ])
    }

    @Test func theReadmeIsALandingPage() throws {
        let readme = try String(contentsOf: repositoryRoot.appendingPathComponent("README.md"), encoding: .utf8)
        #expect(readme.split(separator: "\n", omittingEmptySubsequences: false).count < 150)
        for needed in ["make demo", "make test", "op: load", "Docs/Guide.md", "Docs/CLI.md", "LICENSE", "NOTICE"] {
            #expect(readme.contains(needed), "\(needed)")
        }
    }
}
