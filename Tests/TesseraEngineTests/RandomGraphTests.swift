import Foundation
import Testing

@testable import Tessera
@testable import TesseraScheduler

/// The render core's two promises, on graphs nobody wrote by hand: every `load` decodes each of its pixels
/// once, and the output is the same bytes whatever the tile size and thread count. Each case is a graph
/// drawn at random (a seed each, printed on failure): a photo as PNG, JPEG, a TIFF in one strip, in
/// 8-row strips, or in 16-pixel tiles; a chain or DAG of geometry, area and composite nodes over it, with
/// several consumers of one image; one or two files written. It runs once at a random tile size and thread
/// count with tracing on, and once as a single whole tile on one thread.
@Suite struct RandomGraphTests {
    /// A small deterministic generator (SplitMix64), so that a seed names a case.
    struct Generator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static let layouts = ["png", "jpg", "one-strip.tif", "strips.tif", "tiled.tif"]

    /// The photo in every layout, in `folder`: Tessera writes the PNG, JPEG and a TIFF; libtiff's tiffcp
    /// lays the TIFF out in one strip, in 8-row strips and in 16x16 tiles.
    static func writePhotos(in folder: URL) throws {
        let scene = DecodeOnceTests.scene(width: 203, height: 149)
        try ImageFile.save(scene, to: folder.appendingPathComponent("photo.png").path)
        try ImageFile.save(scene, to: folder.appendingPathComponent("photo.jpg").path)
        let plain = folder.appendingPathComponent("plain.tif").path
        try ImageFile.save(scene, to: plain)
        for (name, arguments) in [
            ("one-strip.tif", ["-r", "100000"]), ("strips.tif", ["-r", "8"]),
            ("tiled.tif", ["-t", "-w", "16", "-l", "16"]),
        ] {
            let tiffcp = Process()
            tiffcp.executableURL = URL(fileURLWithPath: "/usr/bin/tiffcp")
            tiffcp.arguments = arguments + [plain, folder.appendingPathComponent("photo." + name).path]
            try tiffcp.run()
            tiffcp.waitUntilExit()
            #expect(tiffcp.terminationStatus == 0, "tiffcp \(arguments) failed")
        }
    }

    /// A graph drawn with `random`: the nodes' YAML lines (after `photo`, the load) and the files written.
    static func draw(_ random: inout Generator, layout: String) -> (nodes: [String], outputs: [String]) {
        var images: [(name: String, width: Int, height: Int)] = [("photo", 203, 149)]
        var nodes = ["photo: { op: load, path: photo.\(layout) }"]
        func one<T>(_ choices: [T]) -> T { choices[Int.random(in: 0..<choices.count, using: &random)] }
        func pick() -> (name: String, width: Int, height: Int) {
            // Mostly the latest image, so chains get long; sometimes an earlier one, so images get several
            // consumers.
            Int.random(in: 0..<3, using: &random) == 0 ? one(images) : images[images.count - 1]
        }
        let steps = Int.random(in: 2...6, using: &random)
        for step in 0..<steps {
            let input = pick()
            let (w, h) = (input.width, input.height)
            let name = "n\(step)"
            var width = w
            var height = h
            switch Int.random(in: 0..<8, using: &random) {
            case 0:
                width = Int.random(in: 1...w, using: &random)
                height = Int.random(in: 1...h, using: &random)
                let x = Int.random(in: 0...(w - width), using: &random)
                let y = Int.random(in: 0...(h - height), using: &random)
                nodes.append("\(name): { op: crop, input: \(input.name), rect: [\(x), \(y), \(width), \(height)] }")
            case 1:
                width = Int.random(in: 8...(2 * w + 8), using: &random)
                height = Int.random(in: 8...(2 * h + 8), using: &random)
                let filter = one(["lanczos3", "bicubic", "bilinear", "nearest"])
                nodes.append(
                    "\(name): { op: resize, input: \(input.name), width: \(width), height: \(height), "
                        + "interpolation: \(filter) }")
            case 2:
                let angle = one([90.0, 180, 270, -90, 17, -30])
                if angle.truncatingRemainder(dividingBy: 90) == 0 {
                    if Int(angle / 90) % 2 != 0 { (width, height) = (h, w) }
                } else {
                    let radians = angle * .pi / 180
                    let (c, s) = (abs(cos(radians)), abs(sin(radians)))
                    width = Int((c * Double(w) + s * Double(h) - 1e-6).rounded(.up))
                    height = Int((s * Double(w) + c * Double(h) - 1e-6).rounded(.up))
                }
                nodes.append("\(name): { op: rotate, input: \(input.name), angle: \(angle) }")
            case 3:
                let direction = one(["horizontal", "vertical", "both"])
                nodes.append("\(name): { op: flip, input: \(input.name), direction: \(direction) }")
            case 4:
                width = w + Int.random(in: 0...40, using: &random)
                height = h + Int.random(in: 0...40, using: &random)
                let position = one(["center", "topLeft", "bottom", "right"])
                let fill = one(["color", "extend", "mirror"])
                nodes.append(
                    "\(name): { op: pad, input: \(input.name), width: \(width), height: \(height), "
                        + "position: \(position), fill: \(fill) }")
            case 5:
                let sigma = one([0.6, 1.5, 3, 8])
                nodes.append("\(name): { op: gaussianBlur, input: \(input.name), sigma: \(sigma) }")
            case 6:
                let mask = one(images)
                let background = Bool.random(using: &random) ? ", background: \(one(images).name)" : ""
                nodes.append("\(name): { op: blendWithMask, input: \(input.name), mask: \(mask.name)\(background) }")
            default:
                let background = one(images)
                (width, height) = (background.width, background.height)
                let x = Int.random(in: -20...20, using: &random)
                let y = Int.random(in: -20...20, using: &random)
                nodes.append(
                    "\(name): { op: composite, input: \(input.name), background: \(background.name), x: \(x), y: \(y) }"
                )
            }
            images.append((name, width, height))
        }
        var outputs = ["a.tif"]
        nodes.append("a: { op: save, input: \(images[images.count - 1].name), path: a.tif }")
        if Bool.random(using: &random) {
            outputs.append("b.png")
            nodes.append("b: { op: save, input: \(pick().name), path: b.png }")
        }
        return (nodes, outputs)
    }

    /// Runs `nodes` in `folder` with `options`; returns the files written and the report.
    static func run(_ nodes: [String], outputs: [String], in folder: URL, options: RunOptions) throws -> (
        [Data], RunReport
    ) {
        let text = (["version: 1", "nodes:"] + nodes.map { "  " + $0 }).joined(separator: "\n")
        let graph = try Graph.parse(text, file: "random.yaml", baseFolder: folder.path, catalog: .builtin())
        let report = try graph.run(options: options)
        let files = try outputs.map { try Data(contentsOf: folder.appendingPathComponent($0)) }
        return (files, report)
    }

    /// The pixels of the decode `load` rendered, each once: no two of the regions it rendered overlap.
    static func expectEachPixelOnce(_ report: RunReport, described: String) throws {
        let plan = try #require(report.plan)
        for image in plan.images where image.op == "load" && image.decision != .unread {
            let size = try #require(image.decodedSize)
            var times = [UInt8](repeating: 0, count: size.width * size.height)
            var twice = 0
            for span in report.spans where span.node == image.node {
                for y in span.region.minY..<span.region.maxY {
                    for x in span.region.minX..<span.region.maxX {
                        times[y * size.width + x] &+= 1
                        if times[y * size.width + x] > 1 { twice += 1 }
                    }
                }
            }
            #expect(twice == 0, "\(described)\n\(image.node) rendered \(twice) pixels more than once")
        }
    }

    @Test(arguments: 0..<48)
    func anyGraphDecodesOnceAndGivesTheSameBytesForAnyTiling(_ index: Int) throws {
        let seed = UInt64(index) &* 0x2545_F491_4F6C_DD1D &+ 17
        var random = Generator(state: seed)
        let layout = Self.layouts[index % Self.layouts.count]
        let (nodes, outputs) = Self.draw(&random, layout: layout)
        let tileSizes = [16, 32, 48, 64, 100, 256, 1024, 4096]
        let tileSize = tileSizes[Int.random(in: 0..<tileSizes.count, using: &random)]
        let threads = Int.random(in: 1...3, using: &random)
        try withTemporaryFolder { folder in
            try Self.writePhotos(in: folder)
            let (tiled, report) = try Self.run(
                nodes, outputs: outputs, in: folder,
                options: RunOptions(threads: threads, tileSize: tileSize, tracing: true))
            let (whole, _) = try Self.run(
                nodes, outputs: outputs, in: folder, options: RunOptions(threads: 1, tileSize: 4096))
            let described = "seed \(seed), tiles \(tileSize), \(threads) threads:\n" + nodes.joined(separator: "\n")
            #expect(tiled == whole, "\(described)\nthe output differs from one whole tile's")
            try Self.expectEachPixelOnce(report, described: described)
        }
    }
}
