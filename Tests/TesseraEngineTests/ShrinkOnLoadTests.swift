import Foundation
import Testing

@testable import Tessera

/// Shrink-on-load in a running graph: what the run report says the decoding cost.
@Suite struct ShrinkOnLoadTests {
    static let photo = repositoryRoot.appendingPathComponent("Tests/TesseraNodesTests/Fixtures/shrink-photo.jpg")

    /// The pixels each node rendered, by name, running `nodes` (with the photo as `PHOTO`).
    func renderedPixels(_ nodes: [String]) throws -> [String: Int] {
        try withTemporaryFolder { folder in
            let text = (["version: 1", "nodes:"] + nodes.map { "  " + $0 }).joined(separator: "\n")
                .replacingOccurrences(of: "PHOTO", with: Self.photo.path)
            let file = folder.appendingPathComponent("g.yaml")
            try text.write(to: file, atomically: true, encoding: .utf8)
            let report = try Graph.load(path: file.path, catalog: .builtin()).run()
            return Dictionary(uniqueKeysWithValues: report.nodes.map { ($0.node, $0.pixels) })
        }
    }

    /// A 203x149 JPEG loaded with shrink 8 and resized: the load node renders its 26x19 pixels, 1/61 of
    /// the 30,247 a plain load renders for the same resize.
    @Test func aShrunkLoadRendersAFraction() throws {
        let resize = "small: { op: resize, input: photo, width: 12 }"
        let save = "out: { op: save, input: small, path: out.png }"
        let shrunk = try renderedPixels(["photo: { op: load, path: PHOTO, shrink: 8 }", resize, save])
        #expect(shrunk["photo"] == 26 * 19)
        let plain = try renderedPixels(["photo: { op: load, path: PHOTO }", resize, save])
        #expect(plain["photo"] == 203 * 149)
    }

    /// The thumbnail node streams its decode and resize: the run sees its output's pixels, once.
    @Test func aThumbnailRendersItsOutputOnce() throws {
        let pixels = try renderedPixels([
            "thumb: { op: thumbnail, path: PHOTO, size: 12 }", "out: { op: save, input: thumb, path: out.png }",
        ])
        #expect(pixels["thumb"] == 12 * 9)
    }
}
