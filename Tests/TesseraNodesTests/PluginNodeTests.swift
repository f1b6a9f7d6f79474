import Foundation
import Testing
import TesseraCore
import TesseraCatalog
import TesseraGraph
import TesseraPluginHost
import TesseraRunner
import TesseraIO
import TesseraNodes
import TesseraTesting

/// The example plugins in Plugins/, built as their READMEs say (make; swift build), loaded through the
/// C ABI, and held to what every built-in node is held to: the shared verifier, an independent
/// reference, and their graphs giving the same bytes for every thread count and tile size.
@Suite(.serialized) struct PluginNodeTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Runs `command` in `folder`; nil when it succeeds, else its output.
    static func shell(_ command: [String], in folder: URL) throws -> String? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = command
        process.currentDirectoryURL = folder
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return process.terminationStatus == 0 ? nil : String(decoding: output, as: UTF8.self)
    }

    /// The plugins, built once per test run and one after another (the Swift ones take a while: each
    /// compiles its own copy of Tessera's modules, and two SwiftPM builds of packages depending on this
    /// one must not run at once), with the built-ins. Vision's `make` also fetches its pinned runtime.
    /// Vignette's own tests are built here too (about 10 s more), and run by `vignettesOwnTestsPass`.
    static let built: Result<Catalog, any Error> = Result {
        let sobel = repository.appendingPathComponent("Plugins/Sobel")
        if let failure = try shell(["make"], in: sobel) { throw BuildFailure(text: "make: " + failure) }
        let vignette = repository.appendingPathComponent("Plugins/Vignette")
        try startAfreshIfTesseraChanged(vignette)
        if let failure = try shell(["swift", "build", "--build-tests"], in: vignette) {
            throw BuildFailure(text: "swift build --build-tests: " + failure)
        }
        let vision = repository.appendingPathComponent("Plugins/Vision")
        try startAfreshIfTesseraChanged(vision)
        if let failure = try shell(["make", "--no-print-directory"], in: vision) {
            throw BuildFailure(text: "make -C Plugins/Vision: " + failure)
        }
        var catalog = try Catalog(BuiltinNodes.all)
        try catalog.loadPlugins([
            sobel.appendingPathComponent("libsobel.so").path,
            vignette.appendingPathComponent(".build/debug/libvignette.so").path,
            vision.appendingPathComponent("libvision.so").path,
        ])
        return catalog
    }

    /// A Swift plugin package compiles its own copy of Tessera's modules; SwiftPM's incremental build
    /// of them after a change to Tessera's sources has made a `.so` that crashed in Swift's runtime
    /// metadata, or failed to see a new file. Its `.build` is removed when any source of Tessera is
    /// newer than the last build's stamp, which is set again after it.
    static func startAfreshIfTesseraChanged(_ package: URL) throws {
        let files = FileManager.default
        let build = package.appendingPathComponent(".build")
        let stamp = build.appendingPathComponent("tessera-sources.stamp")
        defer {
            try? files.createDirectory(at: build, withIntermediateDirectories: true)
            files.createFile(atPath: stamp.path, contents: Data())
        }
        guard let stamped = try? files.attributesOfItem(atPath: stamp.path)[.modificationDate] as? Date else { return }
        let sources = repository.appendingPathComponent("Sources")
        let changed =
            files.enumerator(at: sources, includingPropertiesForKeys: [.contentModificationDateKey])?
            .contains { item in
                guard let url = item as? URL,
                    let date = try? url.resourceValues(forKeys: [.contentModificationDateKey]).contentModificationDate
                else { return false }
                return date > stamped
            } ?? false
        if changed { try files.removeItem(at: build) }
    }

    struct BuildFailure: Error, CustomStringConvertible { var text: String; var description: String { text } }

    static func catalog() throws -> Catalog { try built.get() }

    @Test func pluginNodesAreDeclaredLikeBuiltins() throws {
        let catalog = try Self.catalog()
        let sobel = try #require(catalog.declaration(op: "sobel"))
        #expect(sobel.access == .area)
        #expect(sobel.origin?.hasSuffix("Plugins/Sobel/libsobel.so") == true)
        #expect(sobel.parameter(named: "scale")?.range == 0...16)
        #expect(sobel.parameter(named: "scale")?.suggested == 0.25...4)
        let vignette = try #require(catalog.declaration(op: "vignette"))
        #expect(vignette.access == .point)
        #expect(vignette.parameters.map(\.name) == ["strength", "radius", "falloff"])
        #expect(vignette.parameter(named: "falloff")?.type == .choice(["linear", "smooth"]))
        #expect(vignette.parameter(named: "falloff")?.defaultValue == .string("smooth"))
        #expect(vignette.parameter(named: "radius")?.defaultValue == .number(0.5))
        // The examples the plugins declare validate, as every built-in's does.
        let brightest = try #require(catalog.declaration(op: "brightestWindow"))
        for declaration in [sobel, vignette, brightest] {
            let graph =
                "version: 1\nnodes:\n"
                + declaration.info.example.split(separator: "\n").map { "  " + $0 }
                .joined(separator: "\n")
            #expect(throws: Never.self) {
                try Graph.parse(graph, file: "example.yaml", baseFolder: "/nonexistent-tessera", catalog: catalog)
            }
        }
    }

    @Test func sobelPassesTheVerifierAndMatchesAReference() throws {
        let declaration = try #require(try Self.catalog().declaration(op: "sobel"))
        for image in [TestImages.rgba(), TestImages.gray()] {
            let outputs = try NodeVerifier().verify(
                declaration, parameters: ["scale": 0.75], inputs: ["input": .image(image)])
            let got = try #require(outputs["output"]).image().pixels()
            let expected = Self.sobel(try image.pixels(), scale: 0.75)
            #expect(got.region == expected.region && got.channels == expected.channels)
            let worst = zip(got.samples, expected.samples).map { abs($0 - $1) }.max() ?? 1
            #expect(worst < 1e-5, "largest difference \(worst)")
        }
    }

    @Test(arguments: ["linear", "smooth"])
    func vignettePassesTheVerifierAndMatchesAReference(falloff: String) throws {
        let declaration = try #require(try Self.catalog().declaration(op: "vignette"))
        let image = TestImages.rgba()
        let outputs = try NodeVerifier().verify(
            declaration, parameters: ["strength": 0.8, "radius": 0.25, "falloff": falloff],
            inputs: ["input": .image(image)])
        let got = try #require(outputs["output"]).image().pixels()
        let expected = Self.vignette(try image.pixels(), strength: 0.8, radius: 0.25, smooth: falloff == "smooth")
        let worst = zip(got.samples, expected.samples).map { abs($0 - $1) }.max() ?? 1
        #expect(got.region == expected.region && worst < 1e-5, "largest difference \(worst)")
    }

    /// A Swift plugin's global node (ABI version 2) with value outputs: through the shared verifier, and
    /// against a brute-force search written here (every window summed pixel by pixel).
    @Test func brightestWindowPassesTheVerifierAndMatchesABruteForceSearch() throws {
        let declaration = try #require(try Self.catalog().declaration(op: "brightestWindow"))
        #expect(declaration.access == .global && declaration.outputs.map(\.type) == [.boxes, .number, .image])
        let image = TestImages.rgba(width: 41, height: 29)
        let outputs = try NodeVerifier().verify(declaration, parameters: ["size": 9], inputs: ["input": .image(image)])
        let pixels = try image.pixels()
        func luma(_ x: Int, _ y: Int) -> Double {
            let p = (y * 41 + x) * 4
            return 0.2126 * Double(pixels.samples[p]) + 0.7152 * Double(pixels.samples[p + 1]) + 0.0722
                * Double(pixels.samples[p + 2])
        }
        var best = (sum: -Double.infinity, x: 0, y: 0)
        for y in 0...(29 - 9) {
            for x in 0...(41 - 9) {
                var sum = 0.0
                for v in y..<(y + 9) { for u in x..<(x + 9) { sum += luma(u, v) } }
                if sum > best.sum + 1e-9 { best = (sum, x, y) }
            }
        }
        guard case .boxes(let boxes)? = outputs["box"], case .number(let mean)? = outputs["mean"] else {
            Issue.record("outputs: \(outputs.keys.sorted())")
            return
        }
        #expect(boxes.map { [$0.x, $0.y, $0.width, $0.height] } == [[Double(best.x), Double(best.y), 9, 9]])
        #expect(abs((boxes.first?.confidence ?? 0) - best.sum / 81) < 1e-3)
        let all = (0..<29).flatMap { y in (0..<41).map { x in luma(x, y) } }
        #expect(abs(mean - all.reduce(0, +) / Double(all.count)) < 1e-9)
        let mask = try #require(outputs["mask"]).image().pixels()
        #expect(mask.samples.reduce(0, +) == 81 && mask.samples[best.y * 41 + best.x] == 1)
    }

    /// Each plugin's graph, its output moved to a temporary folder, at three thread counts and tile
    /// sizes: the same bytes each time, and within rounding of the reference.
    @Test(arguments: ["Sobel/edges.yaml", "Vignette/vignette.yaml"])
    func pluginGraphRunsTheSameForEveryScheduling(_ name: String) throws {
        let catalog = try Self.catalog()
        let path = Self.repository.appendingPathComponent("Plugins/" + name).path
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-plugin-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let target = folder.appendingPathComponent("out.png").path
        var written: [Data] = []
        for (threads, tile) in [(1, 256), (2, 16), (2, 100)] {
            let graph = try Graph.load(
                path: path, catalog: catalog, overrides: [try ParameterOverride(parsing: "out.path=\(target)")])
            #expect(graph.warnings.isEmpty)
            try graph.run(options: RunOptions(threads: threads, tileSize: tile))
            written.append(try Data(contentsOf: URL(fileURLWithPath: target)))
        }
        #expect(written.count == 3 && written.allSatisfy { $0 == written[0] })
        let photo = try ImageFile.load(
            path: Self.repository.appendingPathComponent("Examples/images/astronaut.png").path
        )
        .1.pixels()
        let expected =
            name.hasPrefix("Sobel")
            ? Self.sobel(photo, scale: 0.5) : Self.vignette(photo, strength: 0.8, radius: 0.3, smooth: true)
        let got = try ImageFile.load(path: target).1.pixels()
        let worst = zip(got.samples, expected.samples).map { abs($0 - $1) }.max() ?? 1
        #expect(got.region == expected.region && worst <= 0.5 / 255 + 1e-4, "largest difference \(worst * 255) levels")
    }

    // MARK: The plugins' own checks, as their authors run them

    /// `make -C Plugins/Sobel test`: `tessera verify` (TesseraTesting's verifier through the command line,
    /// for a plugin without Swift tests) on the C plugin, with the `tessera` built beside these tests.
    @Test func sobelsMakeTestPasses() throws {
        _ = try Self.catalog()  // the plugin is built
        let candidates = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(),
            Bundle.main.bundleURL.deletingLastPathComponent(), Bundle.main.bundleURL,
        ]
        let tessera = try #require(
            candidates.map { $0.appendingPathComponent("tessera").path }
                .first { FileManager.default.isExecutableFile(atPath: $0) },
            "the tessera executable is built beside the tests")
        let sobel = Self.repository.appendingPathComponent("Plugins/Sobel")
        let failure = try Self.shell(["make", "--no-print-directory", "test", "TESSERA=\(tessera)"], in: sobel)
        #expect(failure == nil, "make test: \(failure ?? "")")
    }

    /// `cd Plugins/Vignette && swift test`: the Swift plugin's own tests, which use TesseraTesting as any
    /// plugin package would (built with the plugin, above).
    @Test func vignettesOwnTestsPass() throws {
        _ = try Self.catalog()  // the plugin and its tests are built
        let vignette = Self.repository.appendingPathComponent("Plugins/Vignette")
        let failure = try Self.shell(["swift", "test", "--skip-build"], in: vignette)
        #expect(failure == nil, "swift test: \(failure ?? "")")
    }

    // MARK: References, written from the operators' definitions in Double

    /// OpenCV's 3x3 Sobel (x and y) with replicated borders, then scale * magnitude clamped to 0...1;
    /// alpha kept.
    static func sobel(_ input: PixelBuffer, scale: Double) -> PixelBuffer {
        var output = input
        let region = input.region
        let colors = input.channels == 4 ? 3 : 1
        func at(_ x: Int, _ y: Int, _ c: Int) -> Double {
            Double(input[min(max(x, region.minX), region.maxX - 1), min(max(y, region.minY), region.maxY - 1), c])
        }
        for y in region.minY..<region.maxY {
            for x in region.minX..<region.maxX {
                for c in 0..<colors {
                    let gx =
                        at(x + 1, y - 1, c) + 2 * at(x + 1, y, c) + at(x + 1, y + 1, c) - at(x - 1, y - 1, c) - 2
                        * at(x - 1, y, c) - at(x - 1, y + 1, c)
                    let gy =
                        at(x - 1, y + 1, c) + 2 * at(x, y + 1, c) + at(x + 1, y + 1, c) - at(x - 1, y - 1, c) - 2
                        * at(x, y - 1, c) - at(x + 1, y - 1, c)
                    output[x, y, c] = Float(min(max(scale * (gx * gx + gy * gy).squareRoot(), 0), 1))
                }
            }
        }
        return output
    }

    /// Color times 1 - strength * f(t), t from 0 at `radius` to 1 at the corners of the distance from the
    /// image center to each pixel center, relative to the center-to-corner distance; f is t or
    /// smoothstep.
    static func vignette(_ input: PixelBuffer, strength: Double, radius: Double, smooth: Bool) -> PixelBuffer {
        var output = input
        let width = Double(input.region.width)
        let height = Double(input.region.height)
        let corner = ((width / 2) * (width / 2) + (height / 2) * (height / 2)).squareRoot()
        let colors = input.channels == 4 ? 3 : 1
        for y in 0..<input.region.height {
            for x in 0..<input.region.width {
                let dx = Double(x) + 0.5 - width / 2
                let dy = Double(y) + 0.5 - height / 2
                var t = min(max(((dx * dx + dy * dy).squareRoot() / corner - radius) / (1 - radius), 0), 1)
                if smooth { t = t * t * (3 - 2 * t) }
                for c in 0..<colors { output[x, y, c] = Float(Double(input[x, y, c]) * (1 - strength * t)) }
            }
        }
        return output
    }
}
