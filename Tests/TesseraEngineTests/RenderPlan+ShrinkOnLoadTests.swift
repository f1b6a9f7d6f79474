import Testing

@testable import Tessera
@testable import TesseraCatalog
@testable import TesseraGraph
@testable import TesseraPluginHost
@testable import TesseraRunner

/// The plan's shrink-on-load decision, on small graphs without files: a 6400x4270 JPEG (`photo`) that
/// can be decoded at 1/2, 1/4 and 1/8 is read by nodes that shrink it, or need its pixels.
@Suite struct RenderPlanShrinkOnLoadTests {
    /// The JPEG's header: 8-bit RGB, decoded front to back, DCT-scalable.
    static let jpeg = RenderPlan.SourceFacts(
        width: 6400, height: 4270, layout: .rgb, depth: .uint8, sequential: true, givesFileSamples: true,
        shrinks: [2, 4, 8])

    /// A 200x133 PNG, for `like` (no smaller decodes).
    static let png = RenderPlan.SourceFacts(
        width: 200, height: 133, layout: .rgb, depth: .uint8, sequential: true, givesFileSamples: true)

    /// The plan of `nodes` after the photo and a small PNG (`small`); the test nodes are there too.
    static func plan(_ nodes: String, keeping: Set<String> = []) throws -> RenderPlan {
        try planned(nodes, keeping: keeping).plan
    }

    static func planned(_ nodes: String, keeping: Set<String> = []) throws -> (graph: Graph, plan: RenderPlan) {
        let text =
            (["version: 1", "nodes:", "photo: { op: load, path: p.jpg }", "small: { op: load, path: s.png }"]
            + nodes.split(separator: "\n").map(String.init)).enumerated().map { $0 < 2 ? $1 : "  " + $1 }
        let graph = try Graph.parse(
            text.joined(separator: "\n"), file: "g.yaml", baseFolder: "", catalog: testCatalog)
        let plan = RenderPlan(
            nodes: graph.neededNodes(keeping: keeping, supplied: []), keeping: keeping,
            sources: ["photo": jpeg, "small": png])
        return (graph, plan)
    }

    /// `nodes`, each image node among `saved` written by a save node of its own.
    static func saving(_ nodes: String, _ saved: [String] = ["r"]) -> String {
        ([nodes] + saved.map { "out\($0): { op: save, input: \($0), path: \($0).png }" }).joined(separator: "\n")
    }

    /// The least factor the readers shrink by, and the shrink the photo is decoded at: 1/8 where that
    /// leaves the readers 6, else 1/4 where it leaves 8 (``RenderPlan/shrinkLeftToReaders``).
    static let shrinks: [(nodes: String, readersShrink: Double, shrink: Int)] = [
        // 100 rows of 4270, 150 columns of 6400: 42.7, 1/4 leaving 10.7.
        (saving("r: { op: resize, input: photo, height: 100, interpolation: lanczos3 }"), 6400 / 150, 4),
        (saving("r: { op: resize, input: photo, width: 100, interpolation: bilinear }"), 4270 / 67, 8),
        // 160x107: a factor sets the size, which sets the scale.
        (saving("r: { op: resize, input: photo, factor: 0.025 }"), 4270 / 107, 4),
        (saving("r: { op: resize, input: photo, width: 120, height: 80 }"), 6400 / 120, 8),
        // 6400 / 200 = 32, 4270 / 133 = 32.1: 1/4 leaving 8.
        (saving("r: { op: resize, input: photo, like: small }"), 32, 4),
        // Two readers, in two passes: the lesser shrink decides; the photo is decoded once, kept whole.
        (
            saving(
                "a: { op: resize, input: photo, width: 160 }\nb: { op: resize, input: photo, width: 40 }", ["a", "b"]),
            4270 / 107, 4
        ),
        // A resize of the resize: the photo's only reader is the first.
        (saving("a: { op: resize, input: photo, width: 100 }\nr: { op: resize, input: a, width: 10 }"), 4270 / 67, 8),
    ]

    @Test(arguments: shrinks.indices)
    func aSourceOnlyShrunkIsDecodedSmaller(_ index: Int) throws {
        let (nodes, readersShrink, shrink) = Self.shrinks[index]
        let photo = try #require(try Self.plan(nodes).image("photo"))
        #expect(photo.shrinkOnLoad == RenderPlan.ShrinkOnLoad(shrink: shrink, readersShrink: readersShrink), "\(nodes)")
        #expect(photo.size?.width == 6400 && photo.size?.height == 4270, "the graph sees the full size")
        let decoded = try #require(photo.decodedSize)
        #expect(decoded.width == (6400 + shrink - 1) / shrink && decoded.height == (4270 + shrink - 1) / shrink)
        if case .materialize(let bytes, _) = photo.decision {
            #expect(bytes == decoded.width * decoded.height * 3, "kept whole at the decoded size")
        }
    }

    /// Each reason to decode the whole file: a reader that needs the photo's pixels, a shrink the
    /// decode would leave too little of, a size not known before the run.
    static let refusals: [(nodes: String, why: String)] = [
        (saving("r: { op: resize, input: photo, width: 640 }"), "10x"),
        // 1/2 is never chosen: it is the least exact of the three (1/4 and 1/8 need 32x and 48x).
        (saving("r: { op: resize, input: photo, width: 320 }"), "20x: 1/2 would leave 10"),
        (saving("r: { op: resize, input: photo, width: 214 }"), "29.9x: 1/4 would leave 7.5, less than 8"),
        (saving("r: { op: resize, input: photo, width: 320, height: 4270 }"), "the height is not shrunk"),
        (saving("r: { op: resize, input: photo, width: 12800 }"), "enlarged"),
        (saving("r: { op: resize, input: photo, width: 100, interpolation: nearest }"), "nearest picks pixels"),
        (saving("r: { op: crop, input: photo, rect: [0, 0, 100, 100] }"), "a crop"),
        (saving("b: { op: gaussianBlur, input: photo, sigma: 2 }\nr: { op: resize, input: b, width: 100 }"), "a blur"),
        (saving("r: { op: resize, input: photo, width: 100 }", ["r", "photo"]), "a save"),
        (
            saving("r: { op: resize, input: photo, width: 100 }\nh: { op: saliency, input: photo }", ["r", "h"]),
            "an analysis"
        ),
        (
            saving("b: { op: resize, input: small, width: 20 }\nr: { op: resize, input: photo, like: b }"),
            "like: not a source, its size is not known"
        ),
        (
            saving(
                "r: { op: resize, input: photo, width: 100 }\nt: { op: resize, input: photo, factor: 0.9 }", ["r", "t"]),
            "one reader shrinks by less than 2"
        ),
    ]

    @Test(arguments: refusals.indices)
    func aSourceThatIsNotOnlyShrunkIsDecodedWhole(_ index: Int) throws {
        let (nodes, why) = Self.refusals[index]
        let photo = try #require(try Self.plan(nodes).image("photo"))
        #expect(!photo.readers.isEmpty, "\(why)")
        #expect(photo.shrinkOnLoad == nil, "\(why)")
        #expect(photo.decodedSize?.width == 6400)
    }

    @Test func aFileThatCannotBeDecodedSmallerIsDecodedWhole() throws {
        var png = Self.jpeg
        png.shrinks = []
        let plan = try RenderPlanTests.plan(
            """
            photo: { op: load, path: p.png }
            r: { op: resize, input: photo, width: 100 }
            o: { op: save, input: r, path: o.png }
            """, sources: ["photo": png])
        #expect(plan.image("photo")?.shrinkOnLoad == nil)
    }

    /// A program that keeps the photo itself reads it whole.
    @Test func aKeptSourceIsDecodedWhole() throws {
        let plan = try Self.plan(Self.saving("r: { op: resize, input: photo, width: 100 }"), keeping: ["photo"])
        #expect(plan.image("photo")?.shrinkOnLoad == nil)
    }

    /// A width taken from an upstream value is known only when the run gets there.
    @Test func aSizeFromUpstreamIsNotKnownBeforeTheRun() throws {
        let plan = try Self.plan(
            """
            n: { op: testBoxes }
            r: { op: resize, input: photo, width: { from: n.count } }
            o: { op: save, input: r, path: o.png }
            """)
        #expect(plan.image("photo")?.readers.map(\.node) == ["r"])
        #expect(plan.image("photo")?.shrinkOnLoad == nil)
    }

    /// Progress, `run --plan` and `dot --plan` count or show the smaller decode.
    @Test func thePlanShowsAndCountsTheSmallerDecode() throws {
        let (graph, plan) = try Self.planned(Self.saving("r: { op: resize, input: photo, width: 160 }"))
        #expect(graph.dot(plan: plan).contains("load\\npath: p.jpg\\ndecoded at 1/4"))
        #expect(plan.image("photo")?.shrinkOnLoad?.shrink == 4)
        #expect(
            plan.description.contains(
                "  photo (load 6400x4270): as each pass decides; read in one pass\n"
                    + "      decoded at 1/4 scale, 1600x1068 (every reader shrinks it by 39.91 or more, the rest "
                    + "of it by 9.98)\n"))
        // The photo's 1600x1068 pixels, and the resize's estimate (the largest image it reads: the
        // photo's full size, as for any resize).
        #expect(plan.passes[0].estimatedPixels == 1600 * 1068 + 6400 * 4270)
    }

    /// The rule's table: 1/8 leaving 6, 1/4 leaving 8, never 1/2, else 1.
    @Test func theDecodeLeavesTheReadersEnough() {
        let cases: [(Double, Int)] = [(1, 1), (12, 1), (31.9, 1), (32, 4), (47.9, 4), (48, 8), (500, 8)]
        for (readersShrink, shrink) in cases {
            #expect(RenderPlan.decodeShrink(readersShrink: readersShrink, available: [2, 4, 8]) == shrink)
        }
        #expect(RenderPlan.decodeShrink(readersShrink: 100, available: [2]) == 1)
        #expect(RenderPlan.decodeShrink(readersShrink: 100, available: [2, 4]) == 4)
        #expect(RenderPlan.decodeShrink(readersShrink: 100, available: []) == 1)
    }
}
