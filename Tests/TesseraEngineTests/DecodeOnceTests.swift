import Foundation
import Testing

@testable import Tessera

/// The render plan's promise: a file is decoded once, whichever readers ask for it in whichever order,
/// and an image kept whole gives back exactly the samples it was decoded to.
@Suite struct DecodeOnceTests {
    /// Every load node rendered its image's pixels once: all of them when it is kept whole, at most
    /// all of them when it streams (a crop alone reads the rows down to its bottom); those of its smaller
    /// decode when it has one (shrink-on-load).
    static func expectDecodedOnce(_ report: RunReport, sourceLocation: Testing.SourceLocation = #_sourceLocation) throws
    {
        let plan = try #require(report.plan)
        for image in plan.images where image.op == "load" && image.decision != .unread {
            let size = try #require(image.decodedSize)
            let rendered = report.nodes.first { $0.node == image.node }?.pixels ?? 0
            let kept = if case .materialize = image.decision { true } else { false }
            #expect(
                kept ? rendered == size.width * size.height : rendered <= size.width * size.height,
                "\(image.node): rendered \(rendered ?? 0) pixels of a \(size.width)x\(size.height) image",
                sourceLocation: sourceLocation)
        }
    }

    /// A photo-like test image: smooth gradients, a bright disc and a dark bar, so the saliency maps and
    /// the auto-crop have something to find.
    static func scene(width: Int, height: Int) -> Image {
        var buffer = PixelBuffer(region: Rect(width: width, height: height), channels: 4)
        for y in 0..<height {
            for x in 0..<width {
                let u = Float(x) / Float(width)
                let v = Float(y) / Float(height)
                let dx = u - 0.65
                let dy = v - 0.4
                let disc: Float = dx * dx + dy * dy < 0.02 ? 0.6 : 0
                let bar: Float = (0.15..<0.25).contains(u) && v > 0.5 ? -0.3 : 0
                buffer[x, y, 0] = min(1, max(0, 0.2 + 0.5 * u + disc + bar))
                buffer[x, y, 1] = min(1, max(0, 0.3 + 0.3 * v + disc * 0.8 + bar))
                buffer[x, y, 2] = min(1, max(0, 0.5 - 0.3 * u + disc * 0.2 + bar))
                buffer[x, y, 3] = 1
            }
        }
        return Image(buffer: buffer, layout: .rgb, depth: .uint8)
    }

    static let threeConsumers = repositoryRoot.appendingPathComponent(
        "Tests/TesseraEngineTests/Fixtures/three-consumers.yaml")

    /// The issue's graph: a heat-map overlay, a spotlight and an auto-crop of one photo, in six passes
    /// (two saliency maps, a normalize, three saves).
    /// Every output is the same whether the photo is kept in memory or in a temporary file, on 1 or 2
    /// threads, and the temporary file is gone when the run ends.
    @Test(arguments: ["jpg", "png"])
    func threeConsumersDecodeThePhotoOnce(format: String) throws {
        try withTemporaryFolder { folder in
            let photo = folder.appendingPathComponent("photo.\(format)").path
            try ImageFile.save(Self.scene(width: 640, height: 427), to: photo)
            var results: [[String: Data]] = []
            for (threads, threshold) in [(2, RunOptions.defaultDiskThreshold), (1, 0)] {
                let out = folder.appendingPathComponent("out-\(threads)")
                try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
                let (outputs, report) = try ExampleGraphTests.runReporting(
                    Self.threeConsumers.path, in: out, options: RunOptions(threads: threads, diskThreshold: threshold),
                    overrides: ["photo.path=\(photo)"])
                let plan = try #require(report.plan)
                #expect(plan.passes.count == 6)
                #expect(
                    plan.image("photo")?.decision
                        == .materialize(bytes: 640 * 427 * 3, inFile: threshold < 640 * 427 * 3))
                try Self.expectDecodedOnce(report)
                results.append(try outputs.mapValues { try Data(contentsOf: URL(fileURLWithPath: $0)) })
            }
            #expect(results[0] == results[1])
            #expect(results[0].count == 3)
        }
    }

    /// A source read in two passes (saliency, then a save of the photo itself) is kept whole, stored in
    /// its file's sample type where that is exact: the copy written must hold the same samples as the
    /// file, for 8- and 16-bit, gray and color, with and without alpha, and floats.
    @Test(arguments: [
        ("png", PixelLayout.rgb, SampleDepth.uint8), ("png", .gray, .uint8), ("png", .rgba, .uint16),
        ("png", .grayAlpha, .uint16), ("tif", .rgb, .float32), ("tif", .rgba, .uint8),
    ])
    func aSourceKeptWholeGivesBackItsSamples(format: String, layout: PixelLayout, depth: SampleDepth) throws {
        try withTemporaryFolder { folder in
            let scene = try Self.scene(width: 97, height: 61).pixels()
            var buffer = PixelBuffer(region: scene.region, channels: layout.channels)
            for y in 0..<61 {
                for x in 0..<97 {
                    for c in 0..<layout.channels { buffer[x, y, c] = scene[x, y, layout.channels == 1 ? 1 : c] }
                    if layout.hasAlpha { buffer[x, y, 3] = Float((x * 7 + y) % 256) / 255 }
                }
            }
            let photo = folder.appendingPathComponent("photo.\(format)").path
            try ImageFile.save(Image(buffer: buffer, layout: layout, depth: depth), to: photo)
            let graph = folder.appendingPathComponent("g.yaml")
            try Data(
                """
                version: 1
                nodes:
                  photo: { op: load, path: photo.\(format) }
                  heat: { op: saliency, input: photo }
                  boxes: { op: save, input: heat.boxes, path: boxes.json }
                  copy: { op: save, input: photo, path: copy.\(format) }
                """.utf8
            ).write(to: graph)
            let report = try Graph.load(path: graph.path, catalog: .builtin()).run(
                options: RunOptions(threads: 2, tileSize: 16))
            guard case .materialize? = report.plan?.image("photo")?.decision else {
                Issue.record("the photo is not kept whole")
                return
            }
            try Self.expectDecodedOnce(report)
            let copy = try pixels(folder.appendingPathComponent("copy.\(format)").path)
            #expect(copy == (try pixels(photo)))
        }
    }
}
