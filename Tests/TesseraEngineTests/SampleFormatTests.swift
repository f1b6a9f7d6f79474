import Foundation
import Testing

@testable import Tessera

/// Images keep their file's sample format where no node needs Float32 (Docs/HowItWorks.md, "Sample
/// formats"): every path that moves or computes packed samples is run here on files holding every
/// 8-bit value, against the same graph with every tile in Float32 (`RunOptions.floatTiles`), and the
/// integer blend against the mix computed here in exact arithmetic.
@Suite struct SampleFormatTests {
    static let width = 97
    static let height = 61

    /// Sample `c` of pixel (x, y) of the test pattern: every 8-bit value, in every channel, at odd strides.
    static func level(_ x: Int, _ y: Int, _ c: Int, seed: Int) -> Int { (x * 37 + y * 101 + c * 71 + seed * 13) % 256 }

    /// Writes the pattern as `name` with `layout` and `depth` (16-bit values spread over 0...65535, or
    /// exactly the 8-bit ones times 257 when `exact`).
    static func write(
        _ name: String, in folder: URL, layout: PixelLayout, depth: SampleDepth = .uint8, seed: Int, exact: Bool = false
    ) throws {
        var buffer = PixelBuffer(region: Rect(width: width, height: height), channels: layout.channels)
        for y in 0..<height {
            for x in 0..<width {
                for c in 0..<layout.channels {
                    let value = level(x, y, c, seed: seed)
                    buffer[x, y, c] =
                        depth == .uint16 && !exact ? Float(value * 257 + (x * y) % 257) / 65535 : Float(value) / 255
                }
                if layout == .grayAlpha { for c in 1..<3 { buffer[x, y, c] = buffer[x, y, 0] } }
                if !layout.hasAlpha && layout.channels == 4 { buffer[x, y, 3] = 1 }
            }
        }
        try ImageFile.save(
            Image(buffer: buffer, layout: layout, depth: depth), to: folder.appendingPathComponent(name).path)
    }

    /// Runs `nodes` (after loads of the test files) both ways; returns the bytes of each `out*.EXT`
    /// saved, native first.
    static func bothWays(_ nodes: [String], in folder: URL) throws -> [(name: String, native: Data, float: Data)] {
        try write("rgb.tif", in: folder, layout: .rgb, seed: 0)
        try write("bg.tif", in: folder, layout: .rgb, seed: 5)
        try write("mask.png", in: folder, layout: .gray, seed: 9)
        try write("rgba.png", in: folder, layout: .rgba, seed: 3)
        try write("ga.png", in: folder, layout: .grayAlpha, seed: 4)
        try write("deep.tif", in: folder, layout: .rgb, depth: .uint16, seed: 7)
        try write("same16.tif", in: folder, layout: .rgb, depth: .uint16, seed: 0, exact: true)
        let saved = nodes.compactMap { node -> String? in
            guard node.contains("op: save"), let range = node.range(of: #"path: [^ ,}]+"#, options: .regularExpression)
            else { return nil }
            return String(node[range].dropFirst("path: ".count))
        }
        var results: [String: [Data]] = [:]
        for floatTiles in [false, true] {
            let text =
                [
                    "version: 1", "nodes:", "  rgb: { op: load, path: rgb.tif }", "  bg: { op: load, path: bg.tif }",
                    "  mask: { op: load, path: mask.png }", "  rgba: { op: load, path: rgba.png }",
                    "  ga: { op: load, path: ga.png }", "  deep: { op: load, path: deep.tif }",
                    "  same16: { op: load, path: same16.tif }",
                ] + nodes.map { "  " + $0 }
            let graph = try Graph.parse(
                text.joined(separator: "\n"), file: "g.yaml", baseFolder: folder.path, catalog: testCatalog)
            var options = RunOptions(threads: 2, tileSize: 32)
            options.floatTiles = floatTiles
            try graph.run(options: options)
            for name in saved {
                let file = folder.appendingPathComponent(name)
                results[name, default: []].append(try Data(contentsOf: file))
                try FileManager.default.removeItem(at: file)
            }
        }
        return results.sorted { $0.key < $1.key }.map { ($0.key, $0.value[0], $0.value[1]) }
    }

    /// Copies, point nodes (strips, tables), the 8-bit blend, the exact blur (sigma 6 and RGBA; its
    /// margins past the edges repeat the edge bytes, also where they are wider than a 5x3 image), every
    /// layout and 16-bit: the bytes of the Float32 path.
    @Test func packedPathsWriteTheBytesOfFloat32Tiles() throws {
        try withTemporaryFolder { folder in
            let outputs = try Self.bothWays(
                [
                    "c: { op: crop, input: rgb, rect: [3, 5, 80, 50] }",
                    "kc: { op: toneCurve, input: c, points: [0, 0.1, 0.5, 0.4, 1, 0.9] }",
                    "k: { op: contrast, input: rgb, amount: 1.7, pivot: 0.3 }",
                    "k2: { op: contrast, input: rgba, amount: 0.6 }",
                    "k3: { op: contrast, input: ga, amount: 2 }",
                    "e: { op: exposure, input: deep, ev: 0.4 }",
                    "l: { op: levels, input: mask, inputBlack: 0.1, inputWhite: 0.8, gamma: 1.3 }",
                    "t: { op: toneCurve, input: rgb, points: [0, 0, 0.3, 0.2, 0.7, 0.85, 1, 1] }",
                    "m: { op: colorMatrix, input: rgb, r: [0.393, 0.769, 0.189, 0], b: [0.272, 0.534, 0.131, 0] }",
                    "bl: { op: blendWithMask, input: rgb, background: bg, mask: mask }",
                    "b6: { op: gaussianBlur, input: rgb, sigma: 6 }",
                    "ba: { op: gaussianBlur, input: rgba, sigma: 1.5 }",
                    "bc: { op: crop, input: b6, rect: [10, 10, 60, 40] }",
                    "o1: { op: save, input: c, path: c.tif }", "o2: { op: save, input: k, path: k.png }",
                    "o3: { op: save, input: k2, path: k2.png }", "o4: { op: save, input: k3, path: k3.png }",
                    "o5: { op: save, input: e, path: e.tif }", "o6: { op: save, input: l, path: l.png }",
                    "o7: { op: save, input: t, path: t.tif }", "o8: { op: save, input: m, path: m.tif, depth: float }",
                    "o9: { op: save, input: m, path: m8.png }", "o10: { op: save, input: bl, path: bl.tif }",
                    "o11: { op: save, input: bc, path: bc.png }", "o12: { op: save, input: ba, path: ba.png }",
                    "o13: { op: save, input: deep, path: deep-copy.tif }", "o14: { op: save, input: kc, path: kc.png }",
                    "tiny: { op: crop, input: rgb, rect: [7, 9, 5, 3] }",
                    "bt: { op: gaussianBlur, input: tiny, sigma: 6 }", "o15: { op: save, input: bt, path: bt.png }",
                ], in: folder)
            #expect(outputs.count == 15)
            for output in outputs {
                let same = output.native == output.float
                #expect(same, "\(output.name)")
            }
        }
    }

    /// Uncompressed TIFF strips are written straight from the scheduler's bands where a band holds a
    /// whole strip (a strip across two bands is copied out): the pixels of the deflate-compressed file,
    /// whose strips are always copied out. 3000 x 200 RGB makes strips of 29 rows; 64-row bands.
    @Test func uncompressedStripsFromTheBandsAreTheImage() throws {
        try withTemporaryFolder { folder in
            var buffer = PixelBuffer(region: Rect(width: 3000, height: 200), channels: 4)
            for y in 0..<200 {
                for x in 0..<3000 {
                    for c in 0..<3 { buffer[x, y, c] = Float(Self.level(x, y, c, seed: 1)) / 255 }
                    buffer[x, y, 3] = 1
                }
            }
            try ImageFile.save(
                Image(buffer: buffer, layout: .rgb), to: folder.appendingPathComponent("wide.tif").path)
            let text = """
                version: 1
                nodes:
                  photo: { op: load, path: wide.tif }
                  k: { op: contrast, input: photo, amount: 1.3 }
                  a: { op: save, input: k, path: plain.tif, compression: none }
                  b: { op: save, input: k, path: packed.tif, compression: deflate }
                """
            let graph = try Graph.parse(text, file: "g.yaml", baseFolder: folder.path, catalog: testCatalog)
            try graph.run(options: RunOptions(threads: 2, tileSize: 64))
            let plain = try pixels(folder.appendingPathComponent("plain.tif").path)
            let packed = try pixels(folder.appendingPathComponent("packed.tif").path)
            #expect(plain.count == 3000 * 200 * 4 && plain == packed)
        }
    }

    /// blendWithMask over opaque 8-bit images with an 8-bit mask, computed in integers: each sample is
    /// `(a m + b (255 - m)) / 255` rounded, worked out here in Double.
    @Test func eightBitBlendIsTheRoundedExactMix() throws {
        try withTemporaryFolder { folder in
            let outputs = try Self.bothWays(
                [
                    "bl: { op: blendWithMask, input: rgb, background: bg, mask: mask }",
                    "o: { op: save, input: bl, path: bl.tif }",
                ], in: folder)
            let path = folder.appendingPathComponent("check.tif")
            try #require(outputs.count == 1)
            try outputs[0].native.write(to: path)
            let mixed = try pixels(path.path)
            var worst = 0
            for y in 0..<Self.height {
                for x in 0..<Self.width {
                    let m = Double(Self.level(x, y, 0, seed: 9))
                    for c in 0..<3 {
                        let (a, b) = (Double(Self.level(x, y, c, seed: 0)), Double(Self.level(x, y, c, seed: 5)))
                        let expected = ((a * m + b * (255 - m)) / 255).rounded()
                        let got = Double(mixed[(y * Self.width + x) * 4 + c]) * 255
                        worst = max(worst, Int(abs(got - expected).rounded()))
                    }
                }
            }
            #expect(worst == 0)
        }
    }

    /// gaussianBlur of 8-bit RGB and gray, read and written as bytes (taps 3 sigma long): the bytes of
    /// the Float32 path, and within one level of the same image blurred as Float32 data (SciPy's 4
    /// sigma), mostly the same.
    @Test func eightBitBlurIsTheFloat32PathsAndWithinALevelOfSciPys() throws {
        try withTemporaryFolder { folder in
            let outputs = try Self.bothWays(
                [
                    "b: { op: gaussianBlur, input: rgb, sigma: 2 }", "g: { op: gaussianBlur, input: mask, sigma: 1 }",
                    "b4: { op: gaussianBlur, input: same16, sigma: 2 }",
                    "o1: { op: save, input: b, path: b.tif }", "o2: { op: save, input: g, path: g.png }",
                    "o3: { op: save, input: b4, path: b4.tif, depth: 8 }",
                ], in: folder)
            #expect(outputs.count == 3)
            var files: [String: [Float]] = [:]
            for output in outputs {
                let same = output.native == output.float
                #expect(same, "\(output.name)")
                let file = folder.appendingPathComponent(output.name)
                try output.native.write(to: file)
                files[output.name] = try pixels(file.path)
            }
            // The same pattern in 16 bits (each value times 257) blurred with 4 sigma, rounded to 8 bits.
            let (a, b) = (try #require(files["b.tif"]), try #require(files["b4.tif"]))
            let differences = zip(a, b).map { abs($0 - $1) * 255 }
            #expect(a.count == b.count && (differences.max() ?? 9) <= 1.001)
        }
    }

    /// A decoder read with overlapping margins keeps its cache cells in its own format: 3 bytes a
    /// pixel for 8-bit RGB, where Float32 RGBA cells take 16.
    @Test func cellsAreKeptInTheFilesFormat() throws {
        try withTemporaryFolder { folder in
            try Self.write("rgb.png", in: folder, layout: .rgb, seed: 1)
            let text = """
                version: 1
                nodes:
                  photo: { op: load, path: rgb.png }
                  soft: { op: gaussianBlur, input: photo, sigma: 3 }
                  out: { op: save, input: soft, path: soft.png }
                """
            var peaks: [Int] = []
            for floatTiles in [false, true] {
                let graph = try Graph.parse(text, file: "g.yaml", baseFolder: folder.path, catalog: testCatalog)
                var options = RunOptions(threads: 2, tileSize: 32)
                options.floatTiles = floatTiles
                let report = try graph.run(options: options)
                peaks.append(try #require(report.nodes.first { $0.node == "photo" }?.peakCacheBytes))
            }
            // Packed cells are stored in 4-byte words: a few bytes over 3 a pixel.
            #expect(peaks[0] > 0 && abs(peaks[0] * 16 - peaks[1] * 3) <= 64, "\(peaks)")
        }
    }
}
