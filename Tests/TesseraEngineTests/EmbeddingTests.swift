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
