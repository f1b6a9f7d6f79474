import Foundation
import Testing

/// Help and listings as a user reads them: every format the commands take named (convert and
/// thumbnail said "PNG, TIFF or JPEG" only), and `tessera nodes NAME`'s port table in columns (a long
/// type ran into its doc: "boxes, faces, text oThe boxes to draw").
@Suite struct HelpTextTests {
    /// The formats each command reads and writes: a fixture of each format read is decoded below, so
    /// the list is what the code does.
    static let read = ["PNG", "TIFF", "JPEG", "WebP", "GIF", "HEIC", "AVIF"]
    static let written = [".png", ".tif", ".tiff", ".jpg", ".jpeg", ".webp", ".heic", ".heif", ".avif"]
    static let samples = [
        "png/rgb-8bit.png", "tiff/rgb-8bit-strips-lzw-pred.tif", "jpeg/orient-1.jpg", "formats/webp-lossy.webp",
        "formats/gif-palette.gif", "formats/heic-rgb.heic", "formats/avif-rgb.avif",
    ]

    @Test(arguments: ["convert", "thumbnail"])
    func helpNamesEveryFormat(command: String) throws {
        let help = try CLI.run([command, "--help"])
        #expect(help.status == 0)
        // Help wraps at 80 columns: compare the words, not the lines.
        let text = help.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(text.contains("The image to read (PNG, TIFF, JPEG, WebP, GIF, HEIC or AVIF)"), "\(text)")
        for ext in Self.written {
            #expect([",", ".", " or"].contains { text.contains(" " + ext + $0) }, "\(ext)")
        }
        #expect(!text.contains("PNG, TIFF or JPEG"))
        // --quality is for WebP, HEIC and AVIF too, as the save node says.
        #expect(text.contains("JPEG, lossy WebP, HEIC and AVIF quality"), "\(text)")
    }

    /// Each format the help names is read: a file of it converts (`Fixtures/formats/README.md`).
    @Test func everyFormatNamedIsRead() throws {
        #expect(Self.samples.count == Self.read.count)
        try withTemporaryFolder { folder in
            for sample in Self.samples {
                let path = CLI.fixtures.appendingPathComponent(sample).path
                #expect(FileManager.default.fileExists(atPath: path), "\(sample)")
                let result = try CLI.run(["convert", path, folder.appendingPathComponent("out.png").path])
                #expect(result.status == 0, "\(sample): \(result.stderr)")
            }
        }
    }

    /// Every node's ports: the name, its type (naming every kind the JSON catalog says it accepts, or
    /// "any") and its doc, in columns with at least two spaces between them, nothing cut, each node's
    /// docs starting in one column.
    @Test func portColumnsNeverRunTogether() throws {
        let catalog = try CLI.run(["nodes", "--json"], environment: ["TESSERA_PLUGIN_PATH": ""])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(catalog.stdout.utf8)) as? [String: Any])
        let nodes = try #require(object["nodes"] as? [[String: Any]])
        #expect(nodes.count > 30)
        var checked = 0
        for node in nodes {
            let op = try #require(node["op"] as? String)
            let text = try CLI.run(["nodes", op], environment: ["TESSERA_PLUGIN_PATH": ""]).stdout
            let lines = text.split(separator: "\n").map(String.init)
            var docColumns: Set<Int> = []
            defer { #expect(docColumns.count <= 1, "\(op): docs in columns \(docColumns)") }
            for key in ["inputs", "outputs"] {
                for port in node[key] as? [[String: Any]] ?? [] {
                    let name = try #require(port["name"] as? String)
                    let doc = try #require(port["doc"] as? String)
                    let kinds = port["accepts"] as? [String] ?? [port["type"] as? String ?? "?"]
                    let row = try #require(
                        lines.first { $0.hasPrefix("  \(name) ") && $0.hasSuffix(doc) }, "\(op): no row for \(name)")
                    let type = row.dropFirst(2 + name.count).dropLast(doc.count)
                    #expect(type.hasPrefix(" ") && type.hasSuffix("  "), "\(op).\(name): '\(type)'")
                    let words = type.split(whereSeparator: { " ,".contains($0) }).filter { $0 != "or" }.map(String.init)
                    let optional = port["optional"] as? Bool == true
                    #expect(words.suffix(optional ? 1 : 0) == (optional ? ["(optional)"] : []), "\(op).\(name)")
                    let named = Array(words.dropLast(optional ? 1 : 0))
                    #expect(named == kinds || (named == ["any"] && kinds.count > 4), "\(op).\(name): \(named)")
                    docColumns.insert(row.count - doc.count)
                    checked += 1
                }
            }
        }
        #expect(checked > 60)
    }
}
