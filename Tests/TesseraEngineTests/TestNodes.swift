import Foundation
import Tessera

/// Nodes that exist only in the tests: they give the validator every port type to connect, and prove
/// that the catalog, schema and docs come from declarations alone.
struct TestBoxes: Node {
    static let info = NodeInfo(
        op: "testBoxes", summary: "Gives fixed boxes and their count.", access: .global,
        outputs: [.init("boxes", .boxes, doc: "Two boxes."), .init("count", .number, doc: "How many.")],
        example: "b: { op: testBoxes }")

    @Parameter(doc: "Horizontal offset of the first box.", range: -100...100, unit: "px")
    var offset = 2.5

    func run() throws -> NodeOutputs {
        let boxes = [
            Box(x: offset, y: 3.2, width: 10.1, height: 4, confidence: 0.9),
            Box(x: 0, y: 0, width: 1, height: 1, confidence: 0.5),
        ]
        return NodeOutputs(["boxes": .boxes(boxes), "count": .number(Double(boxes.count))])
    }
}

struct TestContours: Node {
    static let info = NodeInfo(
        op: "testContours", summary: "Gives no contours.", access: .global,
        outputs: [.init("contours", .contours, doc: "None.")], example: "c: { op: testContours }")

    func run() throws -> NodeOutputs {
        NodeOutputs(.contours(Contours(contours: [], width: 1, height: 1)))
    }
}

/// Records the rectangle it was given, so a test can see a value that came from upstream.
struct TestCrop: Node {
    static let info = NodeInfo(
        op: "testCrop", summary: "Crops to a rectangle.", access: .geometry,
        outputs: [.init("output", .image, doc: "The cropped image.")],
        example: """
            a: { op: testConstant }
            b: { op: testCrop, input: a, rect: [0, 0, 2, 2] }
            """)

    @Input(doc: "The image to crop.") var input: Image
    @Input(doc: "Only read to test optional inputs.") var background: Image?
    @Parameter(doc: "The rectangle to keep.") var rect: Rect
    @Parameter(doc: "Scales the rectangle.", range: 0.5...4, suggested: 1...2) var factor = 1.0

    static let seen = Locked<[Rect]>([])

    func run() throws -> NodeOutputs {
        Self.seen.withLock { $0.append(rect) }
        return NodeOutputs(.image(input))
    }
}

/// Consumes an image, reading it in strips of 8 rows as a writer does: what makes the nodes before it run.
struct TestSink: Node {
    static let info = NodeInfo(
        op: "testSink", summary: "Reads an image and keeps nothing.", access: .sink, outputs: [],
        example: "a: { op: testConstant }\nend: { op: testSink, input: a }")

    @Input(doc: "The image to consume.") var input: Image

    func run() throws -> NodeOutputs {
        for strip in input.extent.tiles(width: input.width, height: 8) { _ = try input.pixels(in: strip) }
        return .none
    }
}

struct TestConstant: Node {
    static let info = NodeInfo(
        op: "testConstant", summary: "A small gray image.", access: .source,
        outputs: [.init("output", .image, doc: "A gray image.")], example: "a: { op: testConstant }")

    enum Shade: String, ParameterChoice { case dark, light }

    @Parameter(doc: "Side of the square image.", range: 1...64, unit: "px") var size = 4
    @Parameter(doc: "How bright.") var shade = Shade.dark
    @Parameter(doc: "Channel weights.", range: 0...1) var weights: [Double] = [1, 0, 0, 0]
    @Parameter(doc: "A caption.") var caption = "none"
    @Parameter(doc: "Whether to flip.") var flipped = false

    func run() throws -> NodeOutputs {
        let value: Float = shade == .dark ? 0.25 : 0.75
        let buffer = PixelBuffer(region: Rect(x: 0, y: 0, width: size, height: size), channels: 1, value: value)
        return NodeOutputs(.image(Image(buffer: buffer, layout: .gray, depth: .uint8)))
    }
}

/// One parameter of each scalar type, for the tables of how graph files and `--set` read scalars.
struct TestScalars: Node {
    static let info = NodeInfo(
        op: "testScalars", summary: "Takes a parameter of each scalar type.", access: .source,
        outputs: [.init("output", .image, doc: "A gray pixel.")], example: "s: { op: testScalars, ratio: 4:3 }")

    @Parameter(doc: "A number.") var number = 0.0
    @Parameter(doc: "An integer.") var count = 0
    @Parameter(doc: "A boolean.") var flag = false
    @Parameter(doc: "A ratio.", range: 0.001...1000) var ratio: Ratio? = nil

    func run() throws -> NodeOutputs {
        NodeOutputs(
            .image(
                Image(
                    buffer: PixelBuffer(region: Rect(width: 1, height: 1), channels: 1, value: 0.5),
                    layout: .gray, depth: .uint8)))
    }
}

/// Passes its input through, but fails on any tile that covers row `row`: a render error in the middle
/// of a run.
struct TestFailAt: Node {
    static let info = NodeInfo(
        op: "testFailAt", summary: "Fails on the tiles that cover one row.", access: .point,
        outputs: [.init("output", .image, doc: "The input, where it does not fail.")],
        example: "a: { op: testConstant }\nb: { op: testFailAt, input: a, row: 2 }")

    struct Failure: Error, CustomStringConvertible {
        var description: String { "row is cursed" }
    }

    struct Kernel: ImageKernel {
        let row: Int
        func render(into output: inout PixelBuffer, from inputs: [PixelBuffer]) throws {
            if output.region.minY <= row && row < output.region.maxY { throw Failure() }
            output.copy(from: inputs[0])
        }
    }

    @Input(doc: "The image to pass through.") var input: Image
    @Parameter(doc: "The row whose tiles fail.", range: 0...100_000, unit: "px") var row = 0

    func run() throws -> NodeOutputs {
        NodeOutputs(
            .image(
                Image(
                    width: input.width, height: input.height, layout: input.layout, depth: input.depth,
                    kernel: Kernel(row: row), inputs: [KernelInput(input)])))
    }
}

/// A large gray gradient that remembers the largest region anyone asked it for.
struct TestLarge: Node {
    static let info = NodeInfo(
        op: "testLarge", summary: "A large gradient that records its largest request.", access: .source,
        outputs: [.init("output", .image, doc: "A gray gradient.")], example: "a: { op: testLarge }")

    static let largestRequest = Locked(0)

    struct Gradient: PixelSource {
        func render(into buffer: inout PixelBuffer) throws {
            TestLarge.largestRequest.withLock { $0 = max($0, buffer.region.area) }
            let region = buffer.region
            for y in region.minY..<region.maxY {
                for x in region.minX..<region.maxX { buffer[x, y, 0] = Float((x + y) % 256) / 255 }
            }
        }
    }

    @Parameter(doc: "Side of the square image.", range: 1...20000, unit: "px") var size = 4096

    func run() throws -> NodeOutputs {
        NodeOutputs(.image(Image(width: size, height: size, layout: .gray, depth: .uint8, source: Gradient())))
    }
}

/// Reads its input as a writer does (encoded rows, here Float32 copied as they are) and then again as
/// pixels, strip by strip, and counts the samples where the two differ.
struct TestEncodingSink: Node {
    static let info = NodeInfo(
        op: "testEncodingSink", summary: "Reads an image encoded and as pixels, and compares.", access: .sink,
        outputs: [], example: "a: { op: testConstant }\nend: { op: testEncodingSink, input: a }")

    static let differences = Locked(-1)

    @Input(doc: "The image to read.") var input: Image

    func run() throws -> NodeOutputs {
        let channels = input.channels
        let copy = SampleEncoder(format: "float32 as is", bytesPerPixel: channels * 4) { from, count, to in
            to.copyMemory(from: from, byteCount: count * channels * 4)
        }
        var scratch = PixelBuffer(region: .empty, channels: channels)
        var differences = 0
        for strip in input.extent.tiles(width: input.width, height: 7) {
            var encoded = [Float](repeating: .nan, count: strip.area * channels)
            try encoded.withUnsafeMutableBytes { bytes in
                guard let base = bytes.baseAddress else { return }
                try input.encode(strip, with: copy, scratch: &scratch, into: base, rowBytes: strip.width * channels * 4)
            }
            let pixels = try input.pixels(in: strip).samples
            differences += zip(encoded, pixels).filter { $0.0.bitPattern != $0.1.bitPattern }.count
        }
        Self.differences.withLock { $0 = differences }
        return .none
    }
}

/// Passes its input through and records, for the run that has `key` as its parameter, which threads
/// rendered its tiles and how many; with `cancelAt` it cancels that run's ``Cancellation`` when it
/// renders the tile covering that row.
struct TestProbe: Node {
    static let info = NodeInfo(
        op: "testProbe", summary: "Records the threads that render its tiles.", access: .point,
        outputs: [.init("output", .image, doc: "The input.")],
        example: "a: { op: testConstant }\nb: { op: testProbe, input: a, key: k }")

    struct Record: Sendable {
        var threads: Set<UInt> = []
        var tiles = 0
        /// Tiles that began after the cancellation was set.
        var tilesAfterCancel = 0
        var cancellation: Cancellation?
    }

    static let records = Locked<[String: Record]>([:])

    struct Kernel: ImageKernel {
        let key: String
        let cancelAt: Int
        func render(into output: inout PixelBuffer, from inputs: [PixelBuffer]) throws {
            let region = output.region
            let cancellation = TestProbe.records.withLock { records -> Cancellation? in
                records[key, default: Record()].threads.insert(UInt(pthread_self()))
                records[key, default: Record()].tiles += 1
                if records[key]?.cancellation?.isCancelled == true { records[key]?.tilesAfterCancel += 1 }
                return records[key]?.cancellation
            }
            if region.minY <= cancelAt && cancelAt < region.maxY { cancellation?.cancel() }
            output.copy(from: inputs[0])
        }
    }

    @Input(doc: "The image to pass through.") var input: Image
    @Parameter(doc: "Which record to write.") var key = "default"
    @Parameter(doc: "The row whose tile cancels the run; -1 for none.", range: -1...100_000, unit: "px")
    var cancelAt = -1

    func run() throws -> NodeOutputs {
        NodeOutputs(
            .image(
                Image(
                    width: input.width, height: input.height, layout: input.layout, depth: input.depth,
                    kernel: Kernel(key: key, cancelAt: cancelAt), inputs: [KernelInput(input)])))
    }
}

/// The catalog the engine tests validate against: the built-ins plus the test nodes.
/// A gray image whose source counts how many of it are alive: a finished run must free its images.
struct TestTracked: Node {
    static let info = NodeInfo(
        op: "testTracked", summary: "A gray image that counts its live sources.", access: .source,
        outputs: [.init("output", .image, doc: "A gray image.")], example: "a: { op: testTracked }")

    static let alive = Locked(0)

    final class Tracker: Sendable {
        init() { TestTracked.alive.withLock { $0 += 1 } }
        deinit { TestTracked.alive.withLock { $0 -= 1 } }
    }

    struct Source: PixelSource {
        let tracker = Tracker()
        func render(into buffer: inout PixelBuffer) throws {
            for i in buffer.samples.indices { buffer.samples[i] = 0.5 }
        }
    }

    func run() throws -> NodeOutputs {
        NodeOutputs(.image(Image(width: 300, height: 300, layout: .gray, depth: .uint8, source: Source())))
    }
}

let testCatalog: Catalog = {
    var catalog = Catalog.builtin()
    do {
        for type: any Node.Type in [
            TestBoxes.self, TestContours.self, TestCrop.self, TestConstant.self, TestSink.self, TestFailAt.self,
            TestLarge.self, TestEncodingSink.self, TestScalars.self, TestProbe.self, TestTracked.self,
        ] {
            try catalog.register(type)
        }
    } catch {
        preconditionFailure("\(error)")
    }
    return catalog
}()

/// The repository's root folder.
let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()
