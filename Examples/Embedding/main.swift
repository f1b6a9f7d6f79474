// A program embedding Tessera: it registers a node of its own, builds a graph in code and loads one
// from text, feeds images it holds in memory to an input node, overrides a parameter, watches progress,
// reads the results back as pixels and boxes, and cancels a run. `swift run EmbeddingExample` runs it; the tests
// run it too and check what it prints.
import Foundation
import Tessera

/// A node of this program's own: inverts the color channels. Written as a built-in is.
struct Invert: Node {
    static let info = NodeInfo(
        op: "invert", summary: "Turns each color value v into 1 - v; alpha is kept.", access: .point,
        outputs: [.init("output", .image, doc: "The inverted image.")],
        example: "a: { op: constant, width: 4, height: 4 }\nb: { op: invert, input: a }")

    @Input(doc: "The image to invert.") var input: Image

    func run() throws -> NodeOutputs {
        .init(
            .image(
                Image(
                    width: input.width, height: input.height, layout: input.layout, depth: input.depth,
                    kernel: InvertKernel(), inputs: [KernelInput(input)])))
    }
}

struct InvertKernel: ImageKernel {
    func render(into output: inout PixelBuffer, from inputs: [PixelBuffer]) throws {
        output.copy(from: inputs[0])
        let channels = output.channels
        for index in output.samples.indices where channels == 1 || index % 4 != 3 {
            output.samples[index] = 1 - output.samples[index]
        }
    }
}

/// Another: the box around the pixels brighter than a threshold (a value output, as boxes).
struct BrightBox: Node {
    static let info = NodeInfo(
        op: "brightBox", summary: "The box around the pixels whose red is above a threshold.", access: .global,
        outputs: [.init("boxes", .boxes, doc: "One box, or none.")],
        example: "a: { op: constant, width: 4, height: 4 }\nb: { op: brightBox, input: a }")

    @Input(doc: "The image to look at.") var input: Image
    @Parameter(doc: "Red above this counts as bright.", range: 0...1) var threshold = 0.5

    func run() throws -> NodeOutputs {
        let pixels = try input.pixels()
        var minX = Int.max
        var minY = Int.max
        var maxX = -1
        var maxY = -1
        for y in 0..<input.height {
            for x in 0..<input.width where Double(pixels[x, y, 0]) > threshold {
                minX = min(minX, x)
                minY = min(minY, y)
                maxX = max(maxX, x)
                maxY = max(maxY, y)
            }
        }
        guard maxX >= 0 else { return NodeOutputs(.boxes([])) }
        return NodeOutputs(
            .boxes([
                Box(x: Double(minX), y: Double(minY), width: Double(maxX - minX + 1), height: Double(maxY - minY + 1))
            ]))
    }
}

func mean(_ buffer: PixelBuffer) -> Double {
    buffer.samples.reduce(0) { $0 + Double($1) } / Double(buffer.samples.count)
}

do {
    // 1. The catalog: the built-ins and this program's nodes (plugins would load here too).
    var catalog = Catalog.builtin()
    try catalog.register(Invert.self)
    try catalog.register(BrightBox.self)

    // 2. An image in memory: a horizontal gray ramp, 64x32, 0 at the left to 1 at the right.
    var ramp = PixelBuffer(region: Rect(width: 64, height: 32), channels: 1)
    for y in 0..<32 { for x in 0..<64 { ramp[x, y, 0] = Float(x) / 63 } }
    let image = Image(buffer: ramp, layout: .gray)

    // 3. A graph built in code. `photo` is an input node: the program supplies its image, of the size and
    // channels it declares.
    var builder = GraphBuilder()
    builder.add("photo", op: "input", ["width": 64, "height": 32, "channels": 1])
    builder.add("inverted", op: "invert", ["input": "photo"])
    builder.add("soft", op: "gaussianBlur", ["input": "inverted", "sigma": 2])
    builder.add("box", op: "brightBox", ["input": "soft", "threshold": 0.75])
    let graph = try builder.build(catalog: catalog)

    // 4. Run it on two threads, watching progress, keeping the blurred image and the box.
    let seen = Progress()
    let report = try graph.run(
        options: RunOptions(threads: 2, tileSize: 16, progress: { seen.record($0) }),
        supplying: ["photo": .image(image)], keeping: ["soft", "box"])
    guard case .image(let soft)? = report.outputs["soft"], case .boxes(let boxes)? = report.outputs["box"] else {
        fatalError("the kept outputs are missing")
    }
    let pixels = try soft.pixels()
    print("soft: \(soft.width)x\(soft.height), mean \(String(format: "%.4f", mean(pixels)))")
    print("soft left \(String(format: "%.4f", pixels[0, 16, 0])), right \(String(format: "%.4f", pixels[63, 16, 0]))")
    print("box: \(boxes.map { "x \(Int($0.x)) y \(Int($0.y)) w \(Int($0.width)) h \(Int($0.height))" })")
    print("progress reached \(String(format: "%.2f", seen.last))")

    // 5. The same from text, with a parameter overridden as `--set` does.
    let text = """
        version: 1
        nodes:
          photo: { op: input, width: 64, height: 32, channels: 1 }
          box: { op: brightBox, input: photo, threshold: 0.1 }
        """
    let fromText = try Graph.parse(
        text, file: "inline.yaml", baseFolder: ".", catalog: catalog,
        overrides: [ParameterOverride(parsing: "box.threshold=0.5")])
    let second = try fromText.run(supplying: ["photo": .image(image)], keeping: ["box"])
    if case .boxes(let found)? = second.outputs["box"] {
        print("text graph box x: \(found.first.map { Int($0.x) } ?? -1)")
    }
    // An image of another size than the input declares is refused before anything runs, at its line.
    let bytes = [UInt8](repeating: 128, count: 32 * 32)
    let square = try bytes.withUnsafeBytes { raw in
        try Image(copying: raw, SampleBufferLayout(width: 32, height: 32, channels: 1, depth: .uint8))
    }
    do {
        try fromText.run(supplying: ["photo": .image(square)], keeping: ["box"])
    } catch {
        print(error)
    }

    // 6. Cancel: a run whose cancellation is already set stops with an error that says so.
    let cancellation = Cancellation()
    cancellation.cancel()
    do {
        try graph.run(
            options: RunOptions(cancellation: cancellation), supplying: ["photo": .image(image)], keeping: ["soft"])
        print("cancelled run: finished?!")
    } catch {
        print("cancelled run: \(error.isCancellation ? "stopped" : "failed: \(error)")")
    }

    // 7. A mistake in a graph built in code is reported as in a file.
    var broken = GraphBuilder()
    broken.add("photo", op: "load", ["path": "x.png"])
    broken.add("soft", op: "gaussianBlur", ["input": "photo", "sigam": 2])
    do {
        _ = try broken.build(catalog: catalog)
    } catch {
        print(error.diagnostics.map(\.message).joined(separator: "\n"))
    }
} catch {
    print("error: \(error)")
    exit(1)
}

/// The last progress fraction reported (from the workers' threads).
final class Progress: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0.0
    func record(_ fraction: Double) { lock.withLock { value = max(value, fraction) } }
    var last: Double { lock.withLock { value } }
}
