import Foundation
import Testing

@testable import Tessera

/// A graph prepared once and run on frame after frame (``PreparedGraph``): every run gives what a fresh
/// run of the graph gives on the same frame, and runs on frames of the same shape reuse what the first
/// prepared.
@Suite struct PreparedGraphTests {
    /// An 8-bit RGB frame of noise from `seed`.
    static func frame(width: Int, height: Int, seed: UInt64) throws -> Image {
        var random = RandomGraphTests.Generator(state: seed)
        let bytes = (0..<width * height * 3).map { _ in UInt8.random(in: 0...255, using: &random) }
        return try bytes.withUnsafeBytes {
            try Image(copying: $0, SampleBufferLayout(width: width, height: height, channels: 3, depth: .uint8))
        }
    }

    /// The kept image's samples, as a program reads them back.
    static func bytes(_ report: RunReport, _ node: String) throws -> [UInt8] {
        guard case .image(let image)? = report.outputs[node] else { throw ImageError(message: "no kept \(node)") }
        let layout = SampleBufferLayout(width: image.width, height: image.height, channels: 3, depth: .uint8)
        var bytes = [UInt8](repeating: 0, count: layout.byteCount)
        try bytes.withUnsafeMutableBytes { try image.copyPixels(to: $0, layout) }
        return bytes
    }

    /// `nodes` after `frame`, an `input` node, or a `load` (supplied, never read) that takes any size.
    static func graph(_ nodes: [String], anySize: Bool = false, in folder: URL) throws -> Graph {
        let frame =
            anySize
            ? "frame: { op: load, path: supplied.png }" : "frame: { op: input, width: 160, height: 90, channels: 3 }"
        let text = (["version: 1", "nodes:", "  " + frame] + nodes.map { "  " + $0 }).joined(separator: "\n")
        return try Graph.parse(text, file: "g.yaml", baseFolder: folder.path, catalog: .builtin())
    }

    /// Point, area and geometry nodes after the frame, and a logo read from a file: the second and third
    /// frames reuse the kernels, and each output is a fresh run's.
    @Test(arguments: [1, 2])
    func framesOfOneShapeReuseWhatTheFirstPrepared(threads: Int) throws {
        try withTemporaryFolder { folder in
            try ImageFile.save(
                DecodeOnceTests.scene(width: 40, height: 30), to: folder.appendingPathComponent("logo.png").path)
            let graph = try Self.graph(
                [
                    "lit: { op: contrast, input: frame, amount: 1.4 }",
                    "soft: { op: gaussianBlur, input: lit, sigma: 1.5 }",
                    "turned: { op: rotate, input: soft, angle: 17, background: [0, 0, 0, 1] }",
                    "logo: { op: load, path: logo.png }",
                    "marked: { op: composite, input: logo, background: turned, x: 8, y: 6 }",
                ], in: folder)
            let options = RunOptions(threads: threads, tileSize: 64)
            let prepared = graph.prepared(options: options, keeping: ["marked"])
            for seed in 1...3 {
                let frame = try Self.frame(width: 160, height: 90, seed: UInt64(seed))
                let again = try prepared.run(supplying: ["frame": .image(frame)])
                #expect(prepared.lastRunReused == (seed > 1))
                let fresh = try graph.run(options: options, supplying: ["frame": .image(frame)], keeping: ["marked"])
                #expect(try Self.bytes(again, "marked") == Self.bytes(fresh, "marked"), "frame \(seed)")
            }
        }
    }

    /// A frame of another size prepares again; a global node (normalize) reads each frame's pixels, so
    /// it and what follows it run again every time.
    @Test func anotherShapePreparesAgainAndGlobalNodesRunEachFrame() throws {
        try withTemporaryFolder { folder in
            let graph = try Self.graph(
                [
                    "stretched: { op: normalize, input: frame }",
                    "small: { op: resize, input: stretched, factor: 0.5 }",
                ], anySize: true, in: folder)
            let prepared = graph.prepared(keeping: ["small"])
            for (seed, width) in [(1, 160), (2, 160), (3, 120), (4, 120)] {
                let frame = try Self.frame(width: width, height: 90, seed: UInt64(seed))
                let again = try prepared.run(supplying: ["frame": .image(frame)])
                #expect(prepared.lastRunReused == (seed == 2 || seed == 4))
                let fresh = try graph.run(supplying: ["frame": .image(frame)], keeping: ["small"])
                #expect(try Self.bytes(again, "small") == Self.bytes(fresh, "small"), "frame \(seed)")
            }
        }
    }
}
