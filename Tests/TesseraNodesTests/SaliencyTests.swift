import Foundation
import Testing
import TesseraCore
@testable import TesseraCatalog
@testable import TesseraGraph
@testable import TesseraPluginHost
@testable import TesseraRunner
@testable import TesseraNodes
import TesseraTesting

/// The saliency node: attention against OpenCV contrib (Scripts/make-saliency-fixtures.py), objectness
/// against the true objects of synthetic scenes (Scripts/make-saliency-scenes.py), and the boxes
/// against hand-made maps.
@Suite struct SaliencyTests {
    let verifier = NodeVerifier()

    func saliency(
        _ image: Image, _ parameters: [String: any ParameterValue] = [:],
        sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) throws -> (heatmap: Image, boxes: [Box]) {
        let outputs = try verifier.verify(
            Saliency.self, parameters: parameters, inputs: ["input": .image(image)])
        let heatmap = try #require(outputs["heatmap"], sourceLocation: sourceLocation).image()
        guard case .boxes(let boxes) = outputs["boxes"] else {
            Issue.record("no boxes output", sourceLocation: sourceLocation)
            return (heatmap, [])
        }
        return (heatmap, boxes)
    }

    static func fixture(_ name: String) throws -> Image { try Fixtures.image("saliency/\(name)") }

    // MARK: The shared verifier, and shapes

    @Test(arguments: Saliency.Kind.allCases)
    func passesTheVerifier(_ kind: Saliency.Kind) throws {
        for image in [TestImages.rgba(), TestImages.rgba(alpha: false), TestImages.gray()] {
            for size in [64, 17] {
                let (heatmap, boxes) = try saliency(image, ["kind": kind, "size": size])
                #expect(heatmap.width == size && heatmap.height == size && heatmap.layout == .gray)
                #expect(heatmap.depth == .float32)
                let samples = try heatmap.pixels().samples
                // Stretched by multiplying with 1 / (max - min): the maximum lands on 1 up to one rounding.
                #expect(samples.min() == 0 && abs((samples.max() ?? 0) - 1) <= 1e-6, "\(kind) \(size): 0...1")
                #expect(!boxes.isEmpty)
                for box in boxes {
                    #expect(box.x >= 0 && box.y >= 0 && box.width > 0 && box.height > 0)
                    #expect(box.x + box.width <= Double(image.width) + 1e-9)
                    #expect(box.y + box.height <= Double(image.height) + 1e-9)
                    #expect((0...1).contains(box.confidence))
                }
                #expect(zip(boxes, boxes.dropFirst()).allSatisfy { $0.confidence >= $1.confidence })
            }
        }
    }

    /// Bad input never crashes: a one-pixel image, a flat one, one full of NaN give finite maps.
    @Test(arguments: Saliency.Kind.allCases)
    func degenerateImagesGiveFiniteMaps(_ kind: Saliency.Kind) throws {
        let flat = Image(
            buffer: PixelBuffer(region: Rect(width: 40, height: 30), channels: 4, value: 0.5), layout: .rgb)
        let dot = Image(buffer: PixelBuffer(region: Rect(width: 1, height: 1), channels: 1, value: 1), layout: .gray)
        let nan = Image(buffer: PixelBuffer(region: Rect(width: 9, height: 7), channels: 1, value: .nan), layout: .gray)
        for image in [flat, dot, nan] {
            for normalized in [true, false] {
                let (heatmap, _) = try saliency(image, ["kind": kind, "normalized": normalized, "size": 8])
                #expect(try heatmap.pixels().samples.allSatisfy(\.isFinite), "\(kind) \(image.width)x\(image.height)")
            }
        }
    }

    // MARK: Attention against OpenCV contrib

    /// OpenCV's map of each photo, brought back to 64x64 by averaging, against the node's 64x64 map:
    /// the issue asks for a Pearson correlation of at least 0.95; measured 0.9969 to 0.9986 (OpenCV
    /// rounds its gray and its shrink to 8 bits, computes the phase with a fast arctangent, and its map
    /// went through an enlargement and a reduction), so 0.99 is required here.
    @Test(arguments: ["astronaut", "camera", "coffee", "chelsea", "rocket", "coins"])
    func attentionAgreesWithOpenCV(_ name: String) throws {
        let (heatmap, _) = try saliency(try Self.fixture("photo-\(name).png"), ["kind": Saliency.Kind.attention])
        let reference = try Fixtures.reference("saliency/attention-\(name).f32")
        #expect(reference.width == 64 && reference.height == 64)
        let r = pearson(try heatmap.pixels().samples, reference.samples)
        print("attention \(name): Pearson correlation with OpenCV \(String(format: "%.4f", r))")
        #expect(r >= 0.99, "\(name): correlation \(r)")
    }

    /// `normalized: false` keeps OpenCV's own scale: the map divided by its maximum.
    @Test func attentionUnnormalizedIsOpenCVsScale() throws {
        let (heatmap, _) = try saliency(
            try Self.fixture("photo-coffee.png"), ["kind": Saliency.Kind.attention, "normalized": false])
        let samples = try heatmap.pixels().samples
        #expect(samples.max() == 1 && (samples.min() ?? 0) > 0)
    }

    // MARK: Objectness against an independent computation

    /// The map against the same method written in Python from the paper, with Pillow's resize and
    /// SciPy's Gaussian (Scripts/make-saliency-fixtures.py), on the six photos. The node computes in
    /// Float32 where Python uses Float64; measured: at most 5.2e-7 apart. Tolerance 1e-5.
    @Test(arguments: ["astronaut", "camera", "coffee", "chelsea", "rocket", "coins"])
    func objectnessAgreesWithThePythonReference(_ name: String) throws {
        let (heatmap, _) = try saliency(try Self.fixture("photo-\(name).png"), ["kind": Saliency.Kind.objectness])
        let reference = try Fixtures.reference("saliency/objectness-\(name).f32")
        let diff = difference(try heatmap.pixels(), reference)
        print("objectness \(name): max \(diff.max), mean \(diff.mean) from the Python reference")
        #expect(diff.max <= 1e-5, "\(name): max \(diff.max)")
    }

    // MARK: Objectness against the true objects

    /// The 16 synthetic scenes: the map's mean absolute error against the object mask (the map read
    /// at each pixel's cell), and the IoU of each true object's box with the best box found, averaged
    /// over objects and scenes. The issue requires an IoU of at least 0.6; measured 0.81, MAE 0.13.
    @Test func objectnessFindsTheObjects() throws {
        var errors: [Double] = []
        var overlaps: [Double] = []
        var topOverlaps: [Double] = []
        for n in 0..<16 {
            let name = String(format: "scene-%02d", n)
            let scene = try Self.fixture("\(name).png")
            let objects = try Self.fixture("\(name)-objects.png").pixels()
            let (heatmap, boxes) = try saliency(scene, ["kind": Saliency.Kind.objectness])
            let map = try heatmap.pixels()
            let (width, height) = (scene.width, scene.height)
            var error = 0.0
            var truth: [Int: (minX: Int, minY: Int, maxX: Int, maxY: Int)] = [:]
            for y in 0..<height {
                for x in 0..<width {
                    let label = Int((objects[x, y, 0] * 255).rounded()) / 60
                    let cell = map[x * map.region.width / width, y * map.region.height / height, 0]
                    error += abs(Double(cell) - (label > 0 ? 1 : 0))
                    guard label > 0 else { continue }
                    let old = truth[label] ?? (x, y, x + 1, y + 1)
                    truth[label] = (min(old.minX, x), min(old.minY, y), max(old.maxX, x + 1), max(old.maxY, y + 1))
                }
            }
            errors.append(error / Double(width * height))
            let trueBoxes = truth.values.map {
                Box(
                    x: Double($0.minX), y: Double($0.minY), width: Double($0.maxX - $0.minX),
                    height: Double($0.maxY - $0.minY))
            }
            #expect(!trueBoxes.isEmpty && !boxes.isEmpty, "\(name)")
            for object in trueBoxes {
                overlaps.append(boxes.map { iou($0, object) }.max() ?? 0)
            }
            if let top = boxes.first { topOverlaps.append(trueBoxes.map { iou(top, $0) }.max() ?? 0) }
        }
        let mae = errors.reduce(0, +) / Double(errors.count)
        let meanIoU = overlaps.reduce(0, +) / Double(overlaps.count)
        let topIoU = topOverlaps.reduce(0, +) / Double(topOverlaps.count)
        print(
            String(
                format: "objectness on 16 scenes, %d objects: MAE %.3f, mean IoU %.3f, most confident box's IoU %.3f",
                overlaps.count, mae, meanIoU, topIoU))
        #expect(meanIoU >= 0.6, "mean IoU \(meanIoU)")
        // Not asked by the issue; a guard against a map that finds the boxes but smears everything else.
        #expect(mae <= 0.2, "MAE \(mae)")
    }

    // MARK: Boxes from a map

    static func map(_ rows: [[Float]]) -> PixelBuffer {
        PixelBuffer(region: Rect(width: rows[0].count, height: rows.count), channels: 1, samples: rows.flatMap { $0 })
    }

    @Test func boxesAreComponentsRankedByTheirShareOfTheMap() {
        let map = Self.map([
            [0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
            [0.0, 1.0, 0.9, 0.0, 0.0, 0.0],
            [0.0, 0.8, 0.0, 0.0, 0.0, 0.6],
            [0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
        ])
        // Cells are 10x5 pixels of a 60x20 image.
        let boxes = Saliency.boxes(in: map, threshold: 0.5, limit: 5, imageWidth: 60, imageHeight: 20)
        #expect(boxes.count == 2)
        #expect(close(boxes[0], Box(x: 10, y: 5, width: 20, height: 10, confidence: 2.7 / 3.3)))
        #expect(close(boxes[1], Box(x: 50, y: 10, width: 10, height: 5, confidence: 0.6 / 3.3)))
        // The same cells at a threshold that takes only the brightest, and a limit of one.
        let top = Saliency.boxes(in: map, threshold: 0.95, limit: 1, imageWidth: 60, imageHeight: 20)
        #expect(top == [Box(x: 10, y: 5, width: 10, height: 5, confidence: 1)])
    }

    @Test func diagonalCellsConnectAndOverlappingBoxesMerge() {
        // An L of cells (one component by its corner) and a separate cell inside its box: the separate
        // cell's box lies inside the L's box, so the two merge, their weights added.
        let map = Self.map([
            [1.0, 0.0, 0.0, 0.0],
            [0.0, 1.0, 0.0, 0.0],
            [0.0, 0.0, 0.0, 0.0],
            [0.0, 0.0, 1.0, 1.0],
            [0.0, 0.0, 0.0, 0.0],
            [1.0, 0.0, 0.0, 1.0],
        ])
        let boxes = Saliency.boxes(in: map, threshold: 0.5, limit: 10, imageWidth: 4, imageHeight: 6)
        // Components: {(0,0),(1,1)} box [0,0,2,2]; {(2,3),(3,3)} box [2,3,4,4]; {(0,5)}; {(3,5)}. None
        // overlap: four boxes. Then a cell at (1,0) joins the first and a cell at (3,4) links the last two
        // rows: [2,3,4,6] and (0,5) stays apart.
        #expect(boxes.count == 4)
        var joined = map
        joined.samples[1] = 1  // (1, 0)
        joined.samples[4 * 4 + 3] = 1  // (3, 4)
        let merged = Saliency.boxes(in: joined, threshold: 0.5, limit: 10, imageWidth: 4, imageHeight: 6)
        #expect(merged.map(\.x) == [2, 0, 0] && merged.map(\.y) == [3, 0, 5])
        #expect(merged[0].width == 2 && merged[0].height == 3 && abs(merged[0].confidence - 4.0 / 8) < 1e-12)
        // Boxes that overlap merge though their cells do not touch: the top-left component's box
        // [0, 2) x [0, 2) and the hook's [1, 4) x [1, 4) share the cell (1, 1), which neither holds.
        let overlapping = Self.map([
            [1.0, 1.0, 0.0, 0.0],
            [1.0, 0.0, 0.0, 1.0],
            [0.0, 0.0, 0.0, 1.0],
            [0.0, 1.0, 1.0, 1.0],
        ])
        let one = Saliency.boxes(in: overlapping, threshold: 0.5, limit: 10, imageWidth: 4, imageHeight: 4)
        #expect(one == [Box(x: 0, y: 0, width: 4, height: 4, confidence: 1)])
    }

    @Test func noCellAboveTheThresholdGivesNoBoxes() {
        let map = Self.map([[0.2, 0.3], [Float.nan, 0.1]])
        #expect(Saliency.boxes(in: map, threshold: 0.5, limit: 5, imageWidth: 10, imageHeight: 10).isEmpty)
    }

    // MARK: The Fourier transform

    /// The radix-2 path and the direct DFT against the definition, on random data, forward and back.
    @Test(arguments: [8, 12, 16])
    func fourierTransformMatchesTheDefinition(_ n: Int) {
        var random = SplitMix(seed: UInt64(n))
        let re = (0..<(n * n)).map { _ in Double(random.unit()) - 0.5 }
        let im = (0..<(n * n)).map { _ in Double(random.unit()) - 0.5 }
        var real = re
        var imaginary = im
        FourierTransform(size: n).transform2D(real: &real, imaginary: &imaginary, inverse: false)
        var largest = 0.0
        for (u, v) in [(0, 0), (1, 0), (0, 3), (n - 1, 2), (5, n / 2)] {
            var sum = (0.0, 0.0)
            for y in 0..<n {
                for x in 0..<n {
                    let angle = -2 * Double.pi * Double(u * x + v * y) / Double(n)
                    let (a, b) = (re[y * n + x], im[y * n + x])
                    sum.0 += a * cos(angle) - b * sin(angle)
                    sum.1 += a * sin(angle) + b * cos(angle)
                }
            }
            largest = max(largest, abs(sum.0 - real[v * n + u]), abs(sum.1 - imaginary[v * n + u]))
        }
        #expect(largest < 1e-10, "forward: \(largest)")
        FourierTransform(size: n).transform2D(real: &real, imaginary: &imaginary, inverse: true)
        let back = zip(real, re).map { abs($0 / Double(n * n) - $1) }.max() ?? 1
        #expect(back < 1e-12, "round trip: \(back)")
    }
}

/// Pearson's correlation coefficient of two equally long sequences.
func pearson(_ a: [Float], _ b: [Float]) -> Double {
    let n = Double(a.count)
    let meanA = a.reduce(0) { $0 + Double($1) } / n
    let meanB = b.reduce(0) { $0 + Double($1) } / n
    var (ab, aa, bb) = (0.0, 0.0, 0.0)
    for (x, y) in zip(a, b) {
        let (dx, dy) = (Double(x) - meanA, Double(y) - meanB)
        ab += dx * dy
        aa += dx * dx
        bb += dy * dy
    }
    return ab / (aa * bb).squareRoot()
}

/// Whether two boxes are the same up to rounding.
func close(_ a: Box, _ b: Box) -> Bool {
    let pairs = [(a.x, b.x), (a.y, b.y), (a.width, b.width), (a.height, b.height), (a.confidence, b.confidence)]
    return pairs.allSatisfy { abs($0 - $1) < 1e-6 }
}

/// Intersection over union of two boxes.
func iou(_ a: Box, _ b: Box) -> Double {
    let w = max(0, min(a.x + a.width, b.x + b.width) - max(a.x, b.x))
    let h = max(0, min(a.y + a.height, b.y + b.height) - max(a.y, b.y))
    let both = w * h
    return both / (a.width * a.height + b.width * b.height - both)
}
