import Foundation
import Testing

@testable import Tessera

/// What a program embedding the engine does: build graphs in code, supply in-memory values, keep
/// outputs, watch progress and cancel.
@Suite struct EmbeddingTests {
    /// A 40x30 gray ramp whose sample at (x, y) is (x + y) / 68.
    static let ramp: Image = {
        var buffer = PixelBuffer(region: Rect(width: 40, height: 30), channels: 1)
        for y in 0..<30 { for x in 0..<40 { buffer[x, y, 0] = Float(x + y) / 68 } }
        return Image(buffer: buffer, layout: .gray)
    }()

    /// A graph built in code validates and runs as the same graph in a file: here a supplied image
    /// through a crop, kept and read back.
    @Test func builtGraphRunsOnASuppliedImage() throws {
        var builder = GraphBuilder()
        builder.add("photo", op: "load", ["path": "no-such-file.png"])  // supplied: never read
        builder.add("part", op: "crop", ["input": "photo", "rect": [5, 7, 10, 4]])
        let graph = try builder.build(catalog: .builtin())
        #expect(graph.nodes.map(\.name) == ["photo", "part"])
        let report = try graph.run(supplying: ["photo": .image(Self.ramp)], keeping: ["part"])
        guard case .image(let part)? = report.outputs["part"] else {
            Issue.record("no kept image")
            return
        }
        let pixels = try part.pixels()
        #expect(pixels.region == Rect(width: 10, height: 4))
        for y in 0..<4 { for x in 0..<10 { #expect(pixels[x, y, 0] == Float(x + 5 + y + 7) / 68) } }
        #expect(report.outputs["part.output"] != nil)
    }

    @Test func builtGraphMistakesAreDiagnosedAsInAFile() throws {
        var builder = GraphBuilder()
        builder.add("photo", op: "load", ["path": "a.png"])
        builder.add("soft", op: "gaussianBlur", ["input": "foto", "sigma": 2000])
        do {
            _ = try builder.build(catalog: .builtin())
            Issue.record("a broken graph built")
        } catch {
            let messages = error.diagnostics.map(\.message)
            #expect(messages.contains("no node 'foto'; did you mean 'photo'?"))
            #expect(messages.contains("soft.sigma: 2000 is out of range: 0...1000"))
            #expect(error.diagnostics.allSatisfy { $0.location.file == "graph in code" })
        }
    }

    /// Values of other types are kept as they are: boxes and numbers from a test node.
    @Test func keptValuesAreReadBack() throws {
        var builder = GraphBuilder()
        builder.add("b", op: "testBoxes", ["offset": 7])
        let graph = try builder.build(catalog: testCatalog)
        let report = try graph.run(keeping: ["b"])
        guard case .boxes(let boxes)? = report.outputs["b"], case .number(let count)? = report.outputs["b.count"]
        else {
            Issue.record("no kept values: \(report.outputs.keys.sorted())")
            return
        }
        #expect(boxes.first?.x == 7 && boxes.count == 2 && count == 2)
    }

    @Test func suppliedValuesMustFitAndNamesMustExist() throws {
        var builder = GraphBuilder()
        builder.add("photo", op: "load", ["path": "a.png"])
        builder.add("part", op: "crop", ["input": "photo", "rect": [0, 0, 2, 2]])
        let graph = try builder.build(catalog: .builtin())
        #expect {
            try graph.run(supplying: ["photo": .number(3)], keeping: ["part"])
        } throws: { error in
            (error as? RunError)?.message == "the value supplied is a number, but the node's output is an image"
        }
        #expect {
            try graph.run(keeping: ["nothing"])
        } throws: { error in
            (error as? RunError)?.message == "the graph has no node 'nothing'"
        }
    }

    /// Progress is reported up to 1 for kept images; a cancelled run stops with a cancellation error.
    @Test func progressAndCancellation() throws {
        var builder = GraphBuilder()
        builder.add("photo", op: "load", ["path": "a.png"])
        builder.add("soft", op: "gaussianBlur", ["input": "photo", "sigma": 3])
        let graph = try builder.build(catalog: .builtin())
        let fractions = Locked<[Double]>([])
        let options = RunOptions(
            threads: 2, tileSize: 16, progress: { value in fractions.withLock { $0.append(value) } })
        try graph.run(options: options, supplying: ["photo": .image(Self.ramp)], keeping: ["soft"])
        let seen = fractions.withLock { $0 }
        #expect(seen.count >= 2 && seen.max() == 1)

        let cancellation = Cancellation()
        cancellation.cancel()
        #expect {
            try graph.run(
                options: RunOptions(cancellation: cancellation), supplying: ["photo": .image(Self.ramp)],
                keeping: ["soft"])
        } throws: { error in
            guard let error = error as? RunError else { return false }
            return error.isCancellation && error.cause is CancellationError && error.message == "interrupted"
        }
    }

    /// A failed run keeps the error that caused it, typed, with the node and where it is written.
    @Test func aRunErrorKeepsItsCause() throws {
        var builder = GraphBuilder()
        builder.add("photo", op: "load", ["path": "/nonexistent/a.png"])
        builder.add("out", op: "save", ["input": "photo", "path": "/nonexistent/b.png"])
        let graph = try builder.build(catalog: .builtin(), file: "code.json")
        let error = #expect(throws: RunError.self) { try graph.run() }
        #expect(error?.node == "photo" && error?.op == "load" && error?.location.file == "code.json")
        #expect((error?.cause as? ImageError)?.path == "/nonexistent/a.png")
        #expect(error?.isCancellation == false)
    }
}

/// `input` nodes and images from and to a program's memory.
@Suite struct InputNodeTests {
    static let graph = """
        version: 1
        nodes:
          photo: { op: input, width: 4, height: 3, channels: 3, depth: 16 }
          part: { op: crop, input: photo, rect: [1, 1, 2, 2] }
        """

    /// Samples with padded rows go in, and come back out in every format: 16-bit exactly, 8-bit as the
    /// nearest level (OpenCV's rounding of v / 257), float as v / 65535.
    @Test func samplesGoInAndComeBackOut() throws {
        let graph = try Graph.parse(Self.graph, file: "g.yaml", baseFolder: ".", catalog: .builtin())
        // 4 pixels of 3 samples a row, padded to 14 samples.
        let words: [UInt16] = (0..<(3 * 14)).map { UInt16(truncatingIfNeeded: $0 &* 1543 &+ 11) }
        let image = try words.withUnsafeBytes { raw in
            try Image(copying: raw, SampleBufferLayout(width: 4, height: 3, channels: 3, depth: .uint16, rowBytes: 28))
        }
        // Held in the buffer's own format, as a decoded file's samples are: 6 bytes a pixel, not 16.
        #expect(image.layout == .rgb && image.depth == .uint16)
        #expect(image.nativeFormat == SampleFormat(depth: .uint16, bands: 3))
        let report = try graph.run(supplying: ["photo": .image(image)], keeping: ["part"])
        guard case .image(let part)? = report.outputs["part"] else {
            Issue.record("no kept image")
            return
        }
        var sixteen = [UInt16](repeating: 0, count: 2 * 2 * 3)
        try sixteen.withUnsafeMutableBytes {
            try part.copyPixels(to: $0, .init(width: 2, height: 2, channels: 3, depth: .uint16))
        }
        var expected: [UInt16] = []
        for y in 1...2 {
            for x in 1...2 {
                for c in 0..<3 { expected.append(words[y * 14 + x * 3 + c]) }
            }
        }
        #expect(sixteen == expected)
        var eight = [UInt8](repeating: 0, count: 2 * 2 * 4)
        try eight.withUnsafeMutableBytes {
            try part.copyPixels(to: $0, .init(width: 2, height: 2, channels: 4, depth: .uint8))
        }
        var rounded: [UInt8] = []
        for pixel in 0..<4 {
            for c in 0..<4 {
                let value: UInt16 = c == 3 ? 65535 : expected[pixel * 3 + c]
                rounded.append(UInt8((Double(value) / 257).rounded(.toNearestOrEven)))
            }
        }
        #expect(eight == rounded)
        var floats = [Float](repeating: 0, count: 4)
        try floats.withUnsafeMutableBytes {
            try part.copyPixels(to: $0, .init(width: 2, height: 2, channels: 1, depth: .float32))
        }
        for pixel in 0..<4 {
            let red = Float(expected[pixel * 3]) / 65535
            #expect(abs(floats[pixel] - red) < 1e-7)
        }
    }

    /// What does not fit is refused with a message, before anything runs or is read.
    @Test func mismatchesAreRefused() throws {
        let graph = try Graph.parse(Self.graph, file: "g.yaml", baseFolder: ".", catalog: .builtin())
        func image(_ width: Int, _ channels: Int, _ depth: SampleDepth) throws -> Image {
            let bytes = [UInt8](repeating: 0, count: width * 3 * channels * 4)
            return try bytes.withUnsafeBytes {
                try Image(copying: $0, .init(width: width, height: 3, channels: channels, depth: depth))
            }
        }
        let cases: [(Image, String)] = [
            (
                try image(5, 3, .uint16),
                "g.yaml:3:30: error: input node 'photo': the image supplied is 5x3, and the graph declares 4x3"
            ),
            (
                try image(4, 4, .uint16),
                "g.yaml:3:54: error: input node 'photo': the image supplied has 4 channels, and the graph declares 3"
            ),
            (
                try image(4, 3, .uint8),
                "g.yaml:3:64: error: input node 'photo': the image supplied has 8-bit samples, and the graph declares 16"
            ),
        ]
        for (supplied, message) in cases {
            #expect(throws: RunError.self) { try graph.check(supplying: ["photo": .image(supplied)]) }
            do {
                try graph.run(supplying: ["photo": .image(supplied)], keeping: ["part"])
                Issue.record("ran with \(supplied.width)x\(supplied.height)")
            } catch {
                #expect(error.description == message)
            }
        }
        let short = [UInt8](repeating: 0, count: 10)
        #expect(throws: ImageError.self) {
            try short.withUnsafeBytes { try Image(copying: $0, .init(width: 4, height: 3, channels: 1, depth: .uint8)) }
        }
        let stride = [UInt8](repeating: 0, count: 100)
        #expect(throws: ImageError.self) {
            try stride.withUnsafeBytes {
                try Image(copying: $0, .init(width: 4, height: 3, channels: 3, depth: .uint8, rowBytes: 11))
            }
        }
        // Nothing supplied: the input fails at its line, saying how to supply it.
        do {
            try graph.run(keeping: ["part"])
            Issue.record("ran without its input")
        } catch {
            #expect(error.description.hasPrefix("g.yaml:3:3: error: input node 'photo': no image was supplied"))
        }
    }
}
