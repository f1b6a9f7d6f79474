import Foundation
import Testing

@testable import Tessera

/// Shrink-on-load in a running graph: what the run report says the decoding cost.
@Suite struct ShrinkOnLoadTests {
    static let photo = repositoryRoot.appendingPathComponent("Tests/TesseraNodesTests/Fixtures/shrink-photo.jpg")

    static let png = repositoryRoot.appendingPathComponent("Tests/TesseraNodesTests/Fixtures/shrink-rgb.png")

    /// Runs `nodes` (the JPEG photo as `PHOTO`, a PNG as `PNG`) in `folder`.
    func run(_ nodes: [String], in folder: URL) throws -> RunReport {
        let text = (["version: 1", "nodes:"] + nodes.map { "  " + $0 }).joined(separator: "\n")
            .replacingOccurrences(of: "PHOTO", with: Self.photo.path)
            .replacingOccurrences(of: "PNG", with: Self.png.path)
        let file = folder.appendingPathComponent("g.yaml")
        try text.write(to: file, atomically: true, encoding: .utf8)
        return try Graph.load(path: file.path, catalog: .builtin()).run()
    }

    /// The pixels each node rendered, by name, running `nodes`.
    func renderedPixels(_ nodes: [String]) throws -> [String: Int] {
        try withTemporaryFolder { folder in
            let report = try run(nodes, in: folder)
            return Dictionary(uniqueKeysWithValues: report.nodes.map { ($0.node, $0.pixels) })
        }
    }

    /// Block averages and a thumbnail's resized samples are not file samples (`givesFileSamples`):
    /// read in two passes, such an image is kept whole in Float32, so each pass writes the samples a
    /// single pass writes (in 8 bits they would be rounded to 1/255). A DCT-scaled JPEG's are file
    /// samples, kept in 8 bits, and exact too.
    @Test(arguments: [
        "{ op: load, path: PNG, shrink: 4 }", "{ op: thumbnail, path: PHOTO, size: 24 }",
        "{ op: load, path: PHOTO, shrink: 2 }",
    ])
    func computedShrinksKeptWholeKeepTheirSamples(_ node: String) throws {
        try withTemporaryFolder { folder in
            func saved(_ name: String) throws -> PixelBuffer {
                try ImageFile.load(path: folder.appendingPathComponent(name).path).1.pixels()
            }
            let one = try run(["a: \(node)", "o: { op: save, input: a, path: one.tif, depth: float }"], in: folder)
            #expect(one.plan?.image("a")?.decision == .stream)
            let two = try run(
                [
                    "a: \(node)", "o: { op: save, input: a, path: x.tif, depth: float }",
                    "p: { op: save, input: a, path: y.tif, depth: float }",
                ], in: folder)
            guard case .materialize = two.plan?.image("a")?.decision else {
                Issue.record(
                    "\(node) read in two passes is not kept whole: \(String(describing: two.plan?.image("a")))")
                return
            }
            let single = try saved("one.tif")
            #expect(try saved("x.tif") == single && saved("y.tif") == single, "\(node)")
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
