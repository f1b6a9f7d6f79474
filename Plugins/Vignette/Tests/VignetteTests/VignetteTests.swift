import Foundation
import TesseraPluginSDK
import TesseraTesting
import Testing

@testable import Vignette

/// The plugin's nodes held to the rules every built-in node keeps, by the verifier in TesseraTesting:
/// as Swift types (how an author checks a node while writing it), and as the shared library the host
/// loads. `swift test` here runs them; the repository's `make test` runs them too.
@Suite struct VignetteTests {
    /// The runs the verifier makes up from each declaration: defaults on a color and a gray image, each
    /// falloff, numbers picked inside their suggested ranges.
    @Test func nodesPassTheVerifier() throws {
        try NodeVerifier().verifyCases(of: Vignette.self)
        try NodeVerifier().verifyCases(of: BrightestWindow.self)
    }

    /// Runs of the author's choosing, whose outputs then meet the node's own expectations: the center
    /// keeps its color, the corners darken by `strength`, alpha is kept.
    @Test(arguments: [Vignette.Falloff.linear, .smooth])
    func vignetteDarkensTheCornersOnly(falloff: Vignette.Falloff) throws {
        let image = TestImages.rgba(width: 41, height: 41)
        let outputs = try NodeVerifier().verify(
            Vignette.self, parameters: ["strength": 0.8, "radius": 0.25, "falloff": falloff],
            inputs: ["input": .image(image)])
        guard case .image(let darkened)? = outputs["output"] else {
            Issue.record("no image output: \(outputs.keys.sorted())")
            return
        }
        let (before, after) = (try image.pixels(), try darkened.pixels())
        #expect(after[20, 20, 0] == before[20, 20, 0])
        #expect(after[0, 0, 1] >= before[0, 0, 1] * 0.2 && after[0, 0, 1] < before[0, 0, 1] * 0.25)
        #expect((0..<41).allSatisfy { after[$0, 40, 3] == before[$0, 40, 3] })
    }

    /// The window found on an image that is bright in one place only.
    @Test func brightestWindowFindsTheBrightSpot() throws {
        var pixels = PixelBuffer(region: Rect(width: 40, height: 30), channels: 1, value: 0.1)
        for y in 12..<17 { for x in 25..<30 { pixels[x, y, 0] = 1 } }
        let outputs = try NodeVerifier().verify(
            BrightestWindow.self, parameters: ["size": 5],
            inputs: ["input": .image(Image(buffer: pixels, layout: .gray))])
        guard case .boxes(let boxes)? = outputs["box"] else {
            Issue.record("no box output: \(outputs.keys.sorted())")
            return
        }
        #expect(boxes.map { [$0.x, $0.y, $0.width, $0.height] } == [[25, 12, 5, 5]])
    }

    /// The shared library `swift build` made, loaded through the C ABI as `tessera` loads it.
    @Test func theBuiltPluginPassesTheVerifier() throws {
        let folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let candidates = [
            folder, folder.deletingLastPathComponent(), Bundle.main.bundleURL.deletingLastPathComponent(),
        ]
        .map { $0.appendingPathComponent("libvignette.so").path }
        let library = try #require(
            candidates.first { FileManager.default.fileExists(atPath: $0) },
            "libvignette.so is built beside the tests (swift build --build-tests builds it)")
        let runs = try NodeVerifier().verifyPlugin(at: library)
        #expect(Set(runs.map(\.op)) == ["vignette", "brightestWindow"])
        #expect(runs.allSatisfy { $0.skipped == nil })
    }
}
