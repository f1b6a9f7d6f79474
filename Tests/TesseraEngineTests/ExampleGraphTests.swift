import Foundation
import Testing

@testable import Tessera

/// Every graph in Graphs/ runs here, its outputs redirected to a temporary folder, and its result is
/// checked against an independent computation; and every one gives the same bytes for every thread
/// count and tile size.
@Suite struct ExampleGraphTests {
    static let folder = repositoryRoot.appendingPathComponent("Graphs")
    /// Every graph in Graphs/, by name.
    static let names = [
        "archive.yaml", "autocrop.yaml", "blur-crop.yaml", "contour-art.yaml", "heatmap.yaml", "lossless.json",
        "masked-blend.yaml", "salient-boxes.yaml", "spotlight.yaml", "thumbnails.yaml", "tilt-shift.yaml", "tint.yaml",
        "vignette.yaml",
    ]

    /// A graph added to Graphs/ must be listed above, so that it runs in the tests.
    @Test func everyExampleGraphIsListed() throws {
        let found = try FileManager.default.contentsOfDirectory(atPath: Self.folder.path)
        #expect(found.filter { $0.hasSuffix(".yaml") || $0.hasSuffix(".json") }.sorted() == Self.names)
    }

    /// Runs graph `name` with its save paths moved into `folder`; returns the written files by save node.
    static func run(_ name: String, in folder: URL, options: RunOptions = RunOptions()) throws -> [String: String] {
        try runReporting(Self.folder.appendingPathComponent(name).path, in: folder, options: options).outputs
    }

    /// Runs the graph file at `path` with its save paths moved into `folder` and `overrides` set; returns
    /// the written files by save node, and the run's report.
    static func runReporting(
        _ path: String, in folder: URL, options: RunOptions = RunOptions(), overrides extra: [String] = []
    ) throws -> (outputs: [String: String], report: RunReport) {
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
        overrides += try extra.map { try ParameterOverride(parsing: $0) }
        // As `tessera run` reads it: an output template (`{stem}.jpg`) filled from the photo's name.
        let graph = try Graph.loadFillingTemplates(path: path, catalog: .builtin(), overrides: overrides)
        for node in graph.nodes where outputs[node.name] != nil {
            guard case .value(let value as OutputPath) = node.parameters["path"]?.source else { continue }
            outputs[node.name] = value.resolved
        }
        let report = try graph.run(options: options)
        return (outputs, report)
    }

    static var photo: [Float] {
        get throws { try pixels(repositoryRoot.appendingPathComponent("Examples/images/astronaut.png").path) }
    }

    /// Each graph runs with the default threads and tiles; its outputs are checked against an independent
    /// computation, and each source was decoded once however many nodes read it in however many passes
    /// (a crop alone reads the rows down to its bottom). Then the same bytes are written with two threads
    /// and small odd tiles (37 pixels), and on one thread with whole tiles rendering every tile in Float32
    /// (where samples otherwise stay in their file's format: 8-bit RGB copied, point nodes reading it
    /// packed, caches of packed cells, blurs from bytes into bytes).
    @Test(arguments: names)
    func exampleGraph(_ name: String) throws {
        let path = Self.folder.appendingPathComponent(name).path
        let written = try withTemporaryFolder { folder in
            let (outputs, report) = try Self.runReporting(path, in: folder)
            try DecodeOnceTests.expectDecodedOnce(report)
            try Self.check(name, outputs)
            return try outputs.mapValues { try Data(contentsOf: URL(fileURLWithPath: $0)) }
        }
        #expect(!written.isEmpty)
        // The Float32 reference runs on one thread with whole tiles, so that run also checks those.
        var float32 = RunOptions(threads: 1, tileSize: 4096)
        float32.floatTiles = true
        let variants: [(String, RunOptions)] = [
            ("2 threads, tiles of 37", RunOptions(threads: 2, tileSize: 37)),
            ("Float32 tiles, 1 thread, tiles of 4096", float32),
        ]
        for (label, options) in variants {
            try withTemporaryFolder { folder in
                let outputs = try Self.run(name, in: folder, options: options)
                let bytes = try outputs.mapValues { try Data(contentsOf: URL(fileURLWithPath: $0)) }
                #expect(
                    bytes == written, "\(name), \(label): \(bytes.filter { written[$0.key] != $0.value }.keys.sorted())"
                )
            }
        }
    }

    /// Checks what graph `name` wrote (`outputs`, by save node) against the photo it reads.
    static func check(_ name: String, _ outputs: [String: String]) throws {
        #expect(!outputs.isEmpty)
        let source = try Self.photo
        switch name {
        case "heatmap.yaml": return try Self.checkHeatmap(try pixels(try #require(outputs["out"])), source)
        case "spotlight.yaml": return try Self.checkSpotlight(try pixels(try #require(outputs["out"])), source)
        case "autocrop.yaml":
            return try Self.checkAutocrop(tight: try #require(outputs["a"]), framed: try #require(outputs["b"]), source)
        case "contour-art.yaml": return try Self.checkContourArt(outputs)
        case "vignette.yaml": return try Self.checkVignette(try pixels(try #require(outputs["out"])))
        case "tilt-shift.yaml": return try Self.checkTiltShift(try pixels(try #require(outputs["out"])))
        case "thumbnails.yaml": return try Self.checkThumbnail(try #require(outputs["out"]))
        case "salient-boxes.yaml": return try Self.checkSalientBoxes(try pixels(try #require(outputs["out"])), source)
        default: break
        }
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
                    differences.max() ?? 1 < 0.5 / 255 + 1e-5, "\(output): max \((differences.max() ?? 1) * 255) levels"
                )
            }
        }
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

    // MARK: The saliency graphs, against OpenCV's map and an independent objectness computation
    // (Scripts/make-saliency-fixtures.py)

    static func fixture(_ name: String) throws -> [Float] {
        try pixels(repositoryRoot.appendingPathComponent("Tests/TesseraEngineTests/Fixtures/\(name)").path)
    }

    /// heatmap.yaml: the map tinted yellow at 70% over the photo, so blue is 30% of the photo's and
    /// red and green give back the map: `(out - 0.3 photo) / 0.7`. That map must be OpenCV's, enlarged
    /// (OpenCV enlarges bilinearly, the graph bicubically): measured r = 0.9994, mean difference
    /// 0.0028; required r >= 0.995 and mean <= 0.01.
    static func checkHeatmap(_ written: [Float], _ photo: [Float]) throws {
        let reference = try fixture("saliency-astronaut.png")
        #expect(written.count == photo.count && reference.count == photo.count / 4)
        var blue: Float = 0
        var recovered: [Float] = []
        for p in 0..<(photo.count / 4) {
            blue = max(blue, abs(written[p * 4 + 2] - 0.3 * photo[p * 4 + 2]))
            for c in 0..<2 { recovered.append((written[p * 4 + c] - 0.3 * photo[p * 4 + c]) / 0.7) }
        }
        let expected = reference.flatMap { [$0, $0] }
        let r = correlation(recovered, expected)
        let mean = zip(recovered, expected).map { abs($0 - $1) }.reduce(0, +) / Float(expected.count)
        print("heatmap.yaml: the tinted map against OpenCV's: r \(r), mean difference \(mean)")
        #expect(blue < 0.5 / 255 + 1e-5, "blue off by \(blue * 255) levels")
        #expect(r >= 0.995, "r \(r)")
        #expect(mean <= 0.01, "mean \(mean)")
    }

    /// spotlight.yaml: the photo times the mask over black. The mask from the objectness map computed
    /// in Python, enlarged by Pillow, blurred by SciPy and doubled: measured mean difference 0.22, max 0.60 levels (of
    /// 255); required at most 0.5 and 2.
    static func checkSpotlight(_ written: [Float], _ photo: [Float]) throws {
        let mask = try fixture("spotlight-mask.png")
        #expect(written.count == photo.count && mask.count == photo.count / 4)
        var largest: Float = 0
        var total: Float = 0
        for p in 0..<(photo.count / 4) {
            for c in 0..<3 {
                let d = abs(written[p * 4 + c] - photo[p * 4 + c] * mask[p])
                largest = max(largest, d)
                total += d
            }
        }
        let mean = total / Float(photo.count / 4 * 3)
        print(
            "spotlight.yaml: against the Python objectness map blurred by SciPy: mean \(mean * 255), max \(largest * 255) levels"
        )
        #expect(mean <= 0.5 / 255, "mean \(mean * 255) levels")
        #expect(largest <= 2 / 255, "max \(largest * 255) levels")
    }

    /// autocrop.yaml: the most salient objectness box, computed independently in Python, grown by 16
    /// pixels: the tight crop is exactly those pixels of the photo; the 4:3 crop is 4:3 (to a pixel),
    /// holds the tight crop and is pixels of the photo too.
    static func checkAutocrop(tight: String, framed: String, _ photo: [Float]) throws {
        let text = try String(
            contentsOf: repositoryRoot.appendingPathComponent("Tests/TesseraEngineTests/Fixtures/autocrop-box.txt"),
            encoding: .utf8)
        let box = text.split(separator: " ").compactMap { Double($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        try #require(box.count == 4)
        let x = max(Int(box[0].rounded(.down)) - 16, 0)
        let y = max(Int(box[1].rounded(.down)) - 16, 0)
        let right = min(Int((box[0] + box[2]).rounded(.up)) + 16, 512)
        let bottom = min(Int((box[1] + box[3]).rounded(.up)) + 16, 512)
        let (_, tightImage) = try ImageFile.load(path: tight)
        #expect(tightImage.width == right - x && tightImage.height == bottom - y)
        let tightPixels = try pixels(tight)
        #expect(tightPixels == crop(photo, x: x, y: y, width: right - x, height: bottom - y))

        let (_, framedImage) = try ImageFile.load(path: framed)
        let (width, height) = (framedImage.width, framedImage.height)
        #expect(abs(Double(width) / Double(height) - 4.0 / 3) * Double(height) <= 1, "\(width)x\(height) is not 4:3")
        let framedPixels = try pixels(framed)
        // Where in the photo it is: it holds the tight crop, so its origin is up and left of it. (A crop
        // too small to hold it, as `4:3` read by YAML 1.1 as 243 gave, has no such origin.)
        let (top, left) = (max(0, bottom - height), max(0, right - width))
        try #require(top <= y && left <= x, "the \(width)x\(height) crop cannot hold the tight crop")
        let origins = (top...y).flatMap { oy in (left...x).map { (ox: $0, oy: oy) } }
        let found = origins.first { crop(photo, x: $0.ox, y: $0.oy, width: width, height: height) == framedPixels }
        #expect(found != nil, "the 4:3 crop is not a rectangle of the photo holding the tight crop")
    }

    /// salient-boxes.yaml: the photo's saliency boxes stroked 3 px wide, objectness in yellow, then
    /// attention in cyan at its confidence. The boxes are the engine's (the most salient objectness box
    /// must be the one Python finds, as in autocrop.yaml); the drawing is computed here by point sampling
    /// each pixel 4x4, which is exact for these strokes (the boxes' edges lie on whole pixels, the
    /// strokes' on halves), laid over the photo in the same two layers. The PNG must be within half a
    /// level of it.
    /// The thumbnail is named after the photo (its template filled), fits 256x256 with the photo's aspect
    /// ratio, and looks like the photo: within 4 levels on average of each output pixel's footprint
    /// averaged here (measured: 1.6; Lanczos sharpens edges a box average softens, and JPEG adds its own).
    static func checkThumbnail(_ path: String) throws {
        #expect((path as NSString).lastPathComponent == "astronaut.jpg")
        let (_, thumbnail) = try ImageFile.load(path: path)
        let (_, photo) = try ImageFile.load(
            path: repositoryRoot.appendingPathComponent("Examples/images/astronaut.png").path)
        #expect(Swift.max(thumbnail.width, thumbnail.height) == 256)
        let ratio = Double(photo.width) / Double(photo.height)
        #expect(abs(Double(thumbnail.width) / Double(thumbnail.height) - ratio) < 0.01)
        let written = try pixels(path)
        let source = try photo.pixels(in: Rect(x: 0, y: 0, width: photo.width, height: photo.height)).samples
        let scaleX = Double(photo.width) / Double(thumbnail.width)
        let scaleY = Double(photo.height) / Double(thumbnail.height)
        var total = 0.0
        for y in 0..<thumbnail.height {
            for x in 0..<thumbnail.width {
                let (x0, x1) = (Int(Double(x) * scaleX), Int(Double(x + 1) * scaleX))
                let (y0, y1) = (Int(Double(y) * scaleY), Int(Double(y + 1) * scaleY))
                for c in 0..<3 {
                    var sum = 0.0
                    for sy in y0..<y1 { for sx in x0..<x1 { sum += Double(source[(sy * photo.width + sx) * 4 + c]) } }
                    total += abs(
                        sum / Double((y1 - y0) * (x1 - x0)) - Double(written[(y * thumbnail.width + x) * 4 + c]))
                }
            }
        }
        let mean = total / Double(thumbnail.width * thumbnail.height * 3) * 255
        #expect(mean < 4, "mean difference \(mean) levels")
    }

    static func checkSalientBoxes(_ written: [Float], _ photo: [Float]) throws {
        let objects = try saliencyBoxes("objectness")
        let attention = try saliencyBoxes("attention")
        let text = try String(
            contentsOf: repositoryRoot.appendingPathComponent("Tests/TesseraEngineTests/Fixtures/autocrop-box.txt"),
            encoding: .utf8)
        let python = text.split(separator: " ").compactMap {
            Double($0.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        let first = try #require(objects.first)
        #expect([first.x, first.y, first.width, first.height] == python, "the most salient box is not Python's")
        #expect(!attention.isEmpty && written.count == photo.count)
        let layers: [(boxes: [Box], color: SIMD3<Float>, byConfidence: Bool)] = [
            (objects, SIMD3(1, 0.85, 0), false), (attention, SIMD3(0, 0.9, 1), true),
        ]
        var expected = photo
        for layer in layers {
            for y in 0..<512 {
                for x in 0..<512 {
                    var alpha: Float = 0
                    for box in layer.boxes {
                        var inside = 0
                        for sy in 0..<4 {
                            for sx in 0..<4 {
                                let px = Double(x) + (Double(sx) + 0.5) / 4
                                let py = Double(y) + (Double(sy) + 0.5) / 4
                                let outer =
                                    px > box.x - 1.5 && px < box.x + box.width + 1.5 && py > box.y - 1.5
                                    && py < box.y + box.height + 1.5
                                let inner =
                                    px > box.x + 1.5 && px < box.x + box.width - 1.5 && py > box.y + 1.5
                                    && py < box.y + box.height - 1.5
                                if outer && !inner { inside += 1 }
                            }
                        }
                        let opacity = layer.byConfidence ? Float(box.confidence) : 1
                        alpha = max(alpha, Float(inside) / 16 * opacity)
                    }
                    let i = (y * 512 + x) * 4
                    for c in 0..<3 { expected[i + c] = layer.color[c] * alpha + expected[i + c] * (1 - alpha) }
                }
            }
        }
        let differences = zip(written, expected).map { abs($0 - $1) }
        let largest = differences.max() ?? 1
        #expect(largest <= 0.5 / 255 + 1e-5, "max \(largest * 255) levels")
        // The boxes show: a pixel on every objectness box's top edge is yellow.
        for box in objects {
            let i = ((Int(box.y) - 1) * 512 + Int(box.x + box.width / 2)) * 4
            #expect(abs(written[i] - 1) < 0.01 && abs(written[i + 2]) < 0.01, "no yellow line on \(box)")
        }
    }

    /// The boxes the saliency node finds on the example photo.
    static func saliencyBoxes(_ kind: String) throws -> [Box] {
        let declaration = try #require(Catalog.builtin().declaration(op: "saliency"))
        let value = try declaration.typedValue(
            .string(kind), parameter: "kind", context: ParameterContext(baseFolder: ""))
        let (_, photo) = try ImageFile.load(
            path: repositoryRoot.appendingPathComponent("Examples/images/astronaut.png").path)
        let node = try declaration.instantiate(parameters: ["kind": value], inputs: ["input": .image(photo)])
        guard case .boxes(let boxes)? = try node.run().values["boxes"] else {
            Issue.record("saliency gave no boxes")
            return []
        }
        return boxes
    }

    static func crop(_ photo: [Float], x: Int, y: Int, width: Int, height: Int) -> [Float] {
        guard x >= 0, y >= 0, x + width <= 512, y + height <= 512 else { return [] }
        return (y..<(y + height)).flatMap { row in photo[((row * 512 + x) * 4)..<((row * 512 + x + width) * 4)] }
    }

    static func correlation(_ a: [Float], _ b: [Float]) -> Double {
        let n = Double(a.count)
        let meanA = a.reduce(0) { $0 + Double($1) } / n
        let meanB = b.reduce(0) { $0 + Double($1) } / n
        var (ab, aa, bb) = (0.0, 0.0, 0.0)
        for (x, y) in zip(a, b) {
            ab += (Double(x) - meanA) * (Double(y) - meanB)
            aa += (Double(x) - meanA) * (Double(x) - meanA)
            bb += (Double(y) - meanB) * (Double(y) - meanB)
        }
        return ab / (aa * bb).squareRoot()
    }

    /// contour-art.yaml: the JSON holds the swept contours of the 512x512 photo with no two kept boxes at
    /// IoU 0.9 or more (checked pairwise here, the tutorial's way); the SVG has a path per contour; the PNG
    /// is white except within a line's reach (1 px wide: 1 px from a segment) of those contours, and
    /// the line color sits on the first point of every contour of two points or more.
    static func checkContourArt(_ outputs: [String: String]) throws {
        let jsonPath = try #require(outputs["json"])
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: jsonPath))) as? [String: Any])
        #expect(object["imageWidth"] as? Int == 512 && object["tracedWidth"] as? Int == 512)
        let items = try #require(object["contours"] as? [[String: Any]])
        let polylines = items.compactMap { ($0["points"] as? [[Int]]) }
        let boxes = items.compactMap { $0["boundingBox"] as? [Int] }
        #expect(polylines.count == items.count && boxes.count == items.count && items.count > 100)
        for i in boxes.indices {
            for j in boxes.indices where j > i {
                let (a, b) = (boxes[i], boxes[j])
                let w = min(a[0] + a[2], b[0] + b[2]) - max(a[0], b[0])
                let h = min(a[1] + a[3], b[1] + b[3]) - max(a[1], b[1])
                guard w > 0, h > 0 else { continue }
                let iou = Double(w * h) / Double(a[2] * a[3] + b[2] * b[3] - w * h)
                #expect(iou < 0.9, "contours \(i) and \(j) overlap with IoU \(iou)")
            }
        }
        let svg = try String(contentsOfFile: try #require(outputs["svg"]), encoding: .utf8)
        #expect(svg.contains("viewBox=\"0 0 512 512\""))
        #expect(svg.components(separatedBy: "<path").count - 1 == items.count)

        let png = try pixels(try #require(outputs["png"]))
        #expect(png.count == 512 * 512 * 4)
        var reach = [Bool](repeating: false, count: 512 * 512)
        for points in polylines {
            guard let last = points.last else { continue }
            var previous = SIMD2(Double(last[0]), Double(last[1])) + 0.5
            for point in points {
                let next = SIMD2(Double(point[0]), Double(point[1])) + 0.5
                let steps = Int(((next - previous) * (next - previous)).sum().squareRoot() * 4) + 1
                for k in 0...steps {
                    let p = previous + (next - previous) * (Double(k) / Double(steps))
                    for y in Int(p.y - 1.5)...Int(p.y + 1.5) where y >= 0 && y < 512 {
                        for x in Int(p.x - 1.5)...Int(p.x + 1.5) where x >= 0 && x < 512 {
                            let d = SIMD2(Double(x) + 0.5, Double(y) + 0.5) - p
                            if (d * d).sum() < 1.2 * 1.2 { reach[y * 512 + x] = true }
                        }
                    }
                }
                previous = next
            }
        }
        var drawn = 0
        for pixel in 0..<(512 * 512) where png[pixel * 4] < 1 {
            drawn += 1
            #expect(reach[pixel], "pixel \(pixel % 512), \(pixel / 512) drawn away from every contour")
            if !reach[pixel] { break }
        }
        #expect(drawn > 10_000)
        for points in polylines where points.count > 1 {  // a one-point contour draws nothing
            let (x, y) = (points[0][0], points[0][1])
            #expect(abs(png[(y * 512 + x) * 4] - 0.1) < 1 / 255, "no line at \(x), \(y)")
        }
    }
}
