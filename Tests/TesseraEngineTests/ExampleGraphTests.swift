import Foundation
import Testing

@testable import Tessera

/// Every graph in Graphs/ runs here, its outputs redirected to a temporary folder, and its result is
/// checked against an independent computation; and every one gives the same bytes for every thread
/// count and tile size.
@Suite struct ExampleGraphTests {
    static let folder = repositoryRoot.appendingPathComponent("Graphs")
    /// Every graph in Graphs/, by name.
    static let names = ["archive.yaml", "blur-crop.yaml", "lossless.json", "masked-blend.yaml", "tint.yaml"]

    /// A graph added to Graphs/ must be listed above, so that it runs in the tests.
    @Test func everyExampleGraphIsListed() throws {
        let found = try FileManager.default.contentsOfDirectory(atPath: Self.folder.path)
        #expect(found.filter { $0.hasSuffix(".yaml") || $0.hasSuffix(".json") }.sorted() == Self.names)
    }

    /// Runs graph `name` with its save paths moved into `folder`; returns the written files by save node.
    static func run(_ name: String, in folder: URL, options: RunOptions = RunOptions()) throws -> [String: String] {
        let path = Self.folder.appendingPathComponent(name).path
        let plain = try Graph.load(path: path, catalog: .builtin())
        #expect(plain.warnings.isEmpty)
        var overrides: [ParameterOverride] = []
        var outputs: [String: String] = [:]
        for node in plain.nodes where node.declaration.op == "save" {
            guard case .value(let value as OutputPath) = node.parameters["path"]?.source else { continue }
            let target = folder.appendingPathComponent((value.written as NSString).lastPathComponent).path
            overrides.append(try ParameterOverride(parsing: "\(node.name).path=\(target)"))
            outputs[node.name] = target
        }
        try Graph.load(path: path, catalog: .builtin(), overrides: overrides).run(options: options)
        return outputs
    }

    static var photo: [Float] {
        get throws { try pixels(repositoryRoot.appendingPathComponent("Examples/images/astronaut.png").path) }
    }

    @Test(arguments: names)
    func exampleGraphRuns(_ name: String) throws {
        try withTemporaryFolder { folder in
            let outputs = try Self.run(name, in: folder)
            #expect(!outputs.isEmpty)
            let source = try Self.photo
            for output in outputs.values {
                let written = try pixels(output)
                if name == "blur-crop.yaml" {
                    // SciPy's exact Gaussian, cropped (Scripts/make-graph-fixtures.py): the blur is within
                    // 2 levels at most and half a level on average; the PNG adds half a level of rounding.
                    let reference = try pixels(
                        repositoryRoot.appendingPathComponent("Tests/TesseraEngineTests/Fixtures/blur-crop.png").path)
                    #expect(written.count == reference.count && written.count == 160 * 213 * 4)
                    let differences = zip(written, reference).map { abs($0 - $1) }
                    let mean = differences.reduce(0, +) / Float(differences.count)
                    #expect(differences.max() ?? 1 <= 2.5 / 255, "max \((differences.max() ?? 1) * 255) levels")
                    #expect(mean <= 1.0 / 255, "mean \(mean * 255) levels")
                    continue
                }
                #expect(written.count == source.count)
                let expected: [Float]
                switch name {
                case "tint.yaml": expected = Self.tinted(source)
                case "masked-blend.yaml": expected = Self.maskedBlend(source)
                default: expected = source
                }
                let differences = zip(written, expected).map { abs($0 - $1) }
                let mean = differences.reduce(0, +) / Float(differences.count)
                if output.hasSuffix(".jpg") {
                    // Lossy: at quality 85 the mean error stays under 3 levels (measured: 2.0).
                    #expect(mean < 3 / 255, "\(output): mean difference \(mean * 255) levels")
                } else if expected == source {
                    // Lossless: the same values (a 16-bit copy of 8-bit data differs only by Float rounding).
                    #expect(differences.max() ?? 1 < 1e-6, "\(output): lossless output differs")
                } else {
                    // Filtered, then stored at 8 bits: within half a level, plus Float rounding.
                    #expect(
                        differences.max() ?? 1 < 0.5 / 255 + 1e-5,
                        "\(output): max \((differences.max() ?? 1) * 255) levels")
                }
            }
        }
    }

    /// The bytes written are the same for one thread and whole tiles as for two threads and small,
    /// odd tiles.
    @Test(arguments: names)
    func exampleGraphIsDeterministic(_ name: String) throws {
        var results: [[String: Data]] = []
        for (threads, tile) in [(1, 256), (2, 16), (2, 100)] {
            try withTemporaryFolder { folder in
                let outputs = try Self.run(name, in: folder, options: RunOptions(threads: threads, tileSize: tile))
                results.append(try outputs.mapValues { try Data(contentsOf: URL(fileURLWithPath: $0)) })
            }
        }
        #expect(results.count == 3 && results.allSatisfy { $0 == results[0] })
    }

    // MARK: The example graphs' effects, computed here from the photo's samples (RGB with alpha 1, four
    // per pixel as Tessera holds them).

    static func luma(_ r: Float, _ g: Float, _ b: Float) -> Float { 0.2126 * r + 0.7152 * g + 0.0722 * b }

    /// tint.yaml: gray with blue zeroed at 70% over the photo.
    static func tinted(_ rgb: [Float]) -> [Float] {
        var out = rgb
        for i in stride(from: 0, to: rgb.count, by: 4) {
            let gray = luma(rgb[i], rgb[i + 1], rgb[i + 2])
            out[i] = gray * 0.7 + rgb[i] * 0.3
            out[i + 1] = gray * 0.7 + rgb[i + 1] * 0.3
            out[i + 2] = rgb[i + 2] * 0.3
        }
        return out
    }

    /// masked-blend.yaml: the photo times its contrast-stretched gray, over black.
    static func maskedBlend(_ rgb: [Float]) -> [Float] {
        var out = rgb
        for i in stride(from: 0, to: rgb.count, by: 4) {
            let mask = min(max((luma(rgb[i], rgb[i + 1], rgb[i + 2]) - 0.6) * 4 + 0.6, 0), 1)
            for c in 0..<3 { out[i + c] = rgb[i + c] * mask }
        }
        return out
    }
}
