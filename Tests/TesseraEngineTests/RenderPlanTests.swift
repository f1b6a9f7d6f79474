import Foundation
import Testing

@testable import Tessera
@testable import TesseraCatalog
@testable import TesseraGraph
@testable import TesseraPluginHost
@testable import TesseraRunner

/// The planner on small graphs: no file is opened, the sources' headers are given as facts.
@Suite struct RenderPlanTests {
    static func plan(
        _ nodes: String, sources: [String: RenderPlan.SourceFacts] = ["photo": rgb(512, 512)],
        keeping: Set<String> = [], supplied: Set<String> = [], diskThreshold: Int = RunOptions.defaultDiskThreshold
    ) throws -> RenderPlan {
        let text = "version: 1\nnodes:\n" + nodes.split(separator: "\n").map { "  " + $0 }.joined(separator: "\n")
        let graph = try Graph.parse(text, file: "g.yaml", baseFolder: "", catalog: .builtin())
        return RenderPlan(
            nodes: graph.neededNodes(keeping: keeping, supplied: supplied), keeping: keeping, supplied: supplied,
            sources: sources, diskThreshold: diskThreshold)
    }

    /// An 8-bit RGB file decoded front to back, as a PNG or JPEG.
    static func rgb(_ width: Int, _ height: Int, sequential: Bool = true, exact: Bool = true) -> RenderPlan.SourceFacts
    {
        RenderPlan.SourceFacts(
            width: width, height: height, layout: .rgb, depth: .uint8, sequential: sequential, givesFileSamples: exact)
    }

    @Test func aChainReadByOneSinkStreams() throws {
        let plan = try Self.plan(
            """
            photo: { op: load, path: p.png }
            soft: { op: gaussianBlur, input: photo, sigma: 2 }
            out: { op: save, input: soft, path: o.png }
            """)
        #expect(plan.passes.map(\.node) == ["out"])
        #expect(plan.passes[0].images == ["soft", "photo"])
        #expect(plan.image("photo")?.decision == .perPass)
        #expect(plan.image("photo")?.readers == [RenderPlan.Reader(node: "soft", pass: 0)])
        #expect(plan.image("soft")?.decision == .perPass)
    }

    /// The heat-map example: the photo is read by saliency, then again by the composite that writes.
    @Test func aSourceReadInTwoPassesIsKeptWholeInItsFileSamples() throws {
        let plan = try Self.plan(
            """
            photo: { op: load, path: p.png }
            heat: { op: saliency, input: photo }
            big: { op: resize, input: heat, like: photo }
            over: { op: composite, input: big, background: photo }
            out: { op: save, input: over, path: o.png }
            """)
        #expect(plan.passes.map(\.node) == ["heat", "out"])
        let photo = try #require(plan.image("photo"))
        #expect(photo.decision == .materialize(bytes: 512 * 512 * 3, inFile: false))
        #expect(photo.passes == [0, 1])
        // `like` takes the size only: resize is not a reader of the photo's pixels.
        #expect(photo.readers.map(\.node) == ["heat", "over"])
        // The saliency map is the node's own result, read once.
        #expect(plan.image("heat")?.decision == .perPass)
    }

    @Test func samplesThatAreNotFileSamplesAreKeptAsFloats() throws {
        let plan = try Self.plan(
            """
            photo: { op: load, path: p.tif }
            a: { op: save, input: photo, path: a.png }
            b: { op: save, input: photo, path: b.png }
            """, sources: ["photo": Self.rgb(100, 10, sequential: false, exact: false)])
        #expect(plan.image("photo")?.decision == .materialize(bytes: 100 * 10 * 16, inFile: false))
    }

    @Test func pastTheDiskThresholdTheImageGoesToAFile() throws {
        let graph = """
            photo: { op: load, path: p.png }
            a: { op: save, input: photo, path: a.png }
            b: { op: save, input: photo, path: b.png }
            """
        let bytes = 512 * 512 * 3
        #expect(
            try Self.plan(graph, diskThreshold: bytes).image("photo")?.decision
                == .materialize(bytes: bytes, inFile: false))
        #expect(
            try Self.plan(graph, diskThreshold: bytes - 1).image("photo")?.decision
                == .materialize(bytes: bytes, inFile: true))
    }

    /// normalize reads its input once to find the range, and again, tile by tile, when its output is
    /// read: two passes over the photo.
    @Test func aGlobalNodeThatReadsItsInputAgainCountsForIt() throws {
        let plan = try Self.plan(
            """
            photo: { op: load, path: p.png }
            norm: { op: normalize, input: photo }
            out: { op: save, input: norm, path: o.png }
            """)
        #expect(plan.passes.map(\.node) == ["norm", "out"])
        #expect(plan.image("photo")?.passes == [0, 1])
        #expect(plan.image("photo")?.decision == .materialize(bytes: 512 * 512 * 3, inFile: false))
    }

    @Test func nothingReadsAnImageOnlyMeasured() throws {
        let plan = try Self.plan(
            """
            photo: { op: load, path: p.png }
            black: { op: constant, like: photo, color: [0, 0, 0, 1] }
            out: { op: save, input: black, path: o.png }
            """)
        #expect(plan.image("photo")?.decision == .unread)
        #expect(plan.image("photo")?.readers == [])
    }

    @Test func keptOutputsAreAPassEachAndSuppliedNodesReadNothing() throws {
        let plan = try Self.plan(
            """
            photo: { op: load, path: p.png }
            soft: { op: gaussianBlur, input: photo, sigma: 2 }
            out: { op: save, input: soft, path: o.png }
            """, sources: [:], keeping: ["soft"], supplied: ["photo"])
        #expect(plan.passes.map(\.node) == ["soft", "out"])
        #expect(plan.passes.map(\.kind) == [.kept, .sink])
        // A supplied image is in memory already: read twice, but nothing to decode.
        #expect(plan.image("photo")?.decision == .perPass)
        #expect(plan.image("soft")?.passes == [0, 1])
    }

    /// Progress weighs a pass by the pixels it renders and reads; a kept image is rendered in one pass.
    @Test func passesWeighThePixelsTheyRender() throws {
        let plan = try Self.plan(
            """
            photo: { op: load, path: p.png }
            a: { op: save, input: photo, path: a.png }
            soft: { op: gaussianBlur, input: photo, sigma: 2 }
            b: { op: save, input: soft, path: b.png }
            heat: { op: saliency, input: photo }
            h: { op: save, input: heat.boxes, path: h.json }
            """, sources: ["photo": Self.rgb(100, 50)])
        // b renders the blur, not the photo again; saliency reads the kept photo itself: its own work.
        #expect(plan.passes.map(\.node) == ["a", "b", "heat", "h"])
        #expect(plan.passes.map(\.estimatedPixels) == [5000, 5000, 5000, 1])
    }

    @Test func thePlanPrintsEachPassAndImage() throws {
        let plan = try Self.plan(
            """
            photo: { op: load, path: p.png }
            a: { op: save, input: photo, path: a.png }
            b: { op: save, input: photo, path: b.png }
            """)
        let text = plan.description
        #expect(text.contains("1. a (save) renders photo, about 0.26 megapixels"))
        #expect(text.contains("2. b (save) renders photo"))
        #expect(text.contains("photo (load 512x512): kept whole in memory, 768 KiB; read in 2 passes"))
    }
}
