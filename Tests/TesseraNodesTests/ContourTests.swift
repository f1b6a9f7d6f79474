import Foundation
import Testing
import TesseraCore
import TesseraIO
@testable import TesseraCatalog
@testable import TesseraGraph
@testable import TesseraPluginHost
@testable import TesseraRunner
@testable import TesseraNodes
import TesseraTesting

/// A mask and what OpenCV 4.6 found on it (Scripts/make-contour-fixtures.py).
struct ContourFixture {
    var name: String
    var mask: [UInt8]
    var width: Int
    var height: Int
    var contours: [[SIMD2<Double>]]
    /// OpenCV's `[next, previous, firstChild, parent]` per contour.
    var hierarchy: [[Int]]
    /// approxPolyDP(contour, epsilon, closed: true) of each contour, by epsilon.
    var approx: [Double: [[SIMD2<Double>]]]
    /// arcLength(contour, closed: true) and contourArea(contour) of each contour.
    var lengths: [Double]
    var areas: [Double]
    /// The contours whose arcLength and contourArea reach the minimums, and their nearest kept ancestors.
    var filters: [Filter]

    struct Filter {
        var minimumLength: Double
        var minimumArea: Double
        /// Indices into ``contours``.
        var kept: [Int]
        /// Indices into ``kept``, or -1.
        var parent: [Int]
    }

    static let names = [
        "nested", "border", "full", "lines", "diagonal", "noise", "blobs", "photo-0.3", "photo-0.5", "photo-0.7",
        "empty", "comb",
        "photo-contrast",
    ]

    init(_ name: String) throws {
        self.name = name
        let image = try Fixtures.image("contours/\(name).png")
        let pixels = try image.pixels()
        width = image.width
        height = image.height
        mask = stride(from: 0, to: pixels.samples.count, by: pixels.channels).map { pixels.samples[$0] > 0 ? 1 : 0 }
        let data = try Data(contentsOf: Fixtures.folder.appendingPathComponent("contours/\(name).json"))
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        func polylines(_ value: Any?) throws -> [[SIMD2<Double>]] {
            let lists = try #require(value as? [[[Int]]])
            return lists.map { $0.map { SIMD2(Double($0[0]), Double($0[1])) } }
        }
        contours = try polylines(json["contours"])
        hierarchy = try #require(json["hierarchy"] as? [[Int]])
        let approxJSON = try #require(json["approx"] as? [String: Any])
        approx = [:]
        for (key, value) in approxJSON { approx[try #require(Double(key))] = try polylines(value) }
        lengths = try #require(json["arcLength"] as? [Double])
        areas = try #require(json["contourArea"] as? [Double])
        filters = try #require(json["filtered"] as? [[String: Any]]).map { item in
            Filter(
                minimumLength: try #require(item["minimumLength"] as? Double),
                minimumArea: try #require(item["minimumArea"] as? Double), kept: try #require(item["kept"] as? [Int]),
                parent: try #require(item["parent"] as? [Int]))
        }
    }
}

/// Border following and simplification against OpenCV, exactly; the detectContours, drawContours and
/// save nodes against the fixtures and the formulas they document.
@Suite struct ContourTests {
    let verifier = NodeVerifier()

    /// Same contours, same points in the same cyclic order (and the same start), same order of contours,
    /// same parent and children, and holes exactly where OpenCV's tree puts them (odd depths).
    @Test(arguments: ContourFixture.names)
    func borderFollowingMatchesOpenCV(_ name: String) throws {
        let fixture = try ContourFixture(name)
        let found = BorderFollowing.trace(mask: fixture.mask, width: fixture.width, height: fixture.height)
        try #require(
            found.count == fixture.contours.count, "\(name): \(found.count) contours, OpenCV \(fixture.contours.count)")
        for (index, contour) in found.enumerated() {
            #expect(contour.points == fixture.contours[index], "\(name): contour \(index) differs")
            let h = fixture.hierarchy[index]
            #expect(contour.parent == h[3], "\(name): contour \(index) parent \(contour.parent), OpenCV \(h[3])")
            var children: [Int] = []
            var child = h[2]
            while child >= 0 {
                children.append(child)
                child = fixture.hierarchy[child][0]
            }
            #expect(contour.children == children, "\(name): contour \(index) children")
            var depth = 0
            var parent = h[3]
            while parent >= 0 {
                depth += 1
                parent = fixture.hierarchy[parent][3]
            }
            #expect(contour.isHole == (depth % 2 == 1), "\(name): contour \(index) hole flag")
        }
    }

    /// approxPolyDP of OpenCV's own contours, point for point, at three epsilons.
    @Test(arguments: ContourFixture.names)
    func simplificationMatchesOpenCV(_ name: String) throws {
        let fixture = try ContourFixture(name)
        #expect(fixture.approx.count == 3)
        for (epsilon, expected) in fixture.approx {
            for (index, contour) in fixture.contours.enumerated() {
                let simplified = PolygonApproximation.closed(contour, epsilon: epsilon)
                #expect(simplified == expected[index], "\(name): contour \(index) at epsilon \(epsilon)")
            }
        }
    }

    /// The node on the 96x72 photo crop (no downscale: it is under 512): its mask is the fixture's (gray
    /// with Rec. 709 weights, contrast 1.5 around 0.4, below 0.5; no pixel within 1e-5 of the cut), and
    /// its contours are OpenCV's on that mask.
    @Test func detectContoursMatchesOpenCVOnThePhoto() throws {
        let fixture = try ContourFixture("photo-contrast")
        let outputs = try verifier.verify(
            DetectContours.self, parameters: ["contrastAdjustment": 1.5, "contrastPivot": NumberOrAuto.number(0.4)],
            inputs: ["input": .image(try Fixtures.image("photo.png"))])
        let mask = try #require(outputs["mask"]).image()
        #expect(mask.width == fixture.width && mask.height == fixture.height && mask.channels == 1)
        #expect(try mask.pixels().samples.map { UInt8($0) } == fixture.mask)
        guard case .contours(let contours)? = outputs["contours"] else {
            Issue.record("no contours")
            return
        }
        #expect(contours.width == 96 && contours.height == 72 && contours.imageWidth == 96)
        #expect(contours.contours.map(\.points) == fixture.contours)
        #expect(contours.contours.map(\.parent) == fixture.hierarchy.map { $0[3] })
    }

    /// Larger images are downscaled so the longer side fits (never upscaled), and the contours are the
    /// mask's: a 512x512 photo at 200 gives a 200x200 grid.
    @Test func detectContoursDownscales() throws {
        let photo = try ImageFile.load(path: repositoryRoot + "/Examples/images/astronaut.png").1
        let outputs = try verifier.verify(
            DetectContours.self, parameters: ["maximumImageDimension": 200], inputs: ["input": .image(photo)])
        let mask = try #require(outputs["mask"]).image()
        #expect(mask.width == 200 && mask.height == 200)
        guard case .contours(let contours)? = outputs["contours"] else { return }
        #expect(contours.width == 200 && contours.imageWidth == 512 && !contours.contours.isEmpty)
        let traced = BorderFollowing.trace(
            mask: try mask.pixels().samples.map { UInt8($0) }, width: 200, height: 200)
        #expect(contours.contours == traced)
        let wide = Image(buffer: PixelBuffer(region: Rect(width: 300, height: 40), channels: 1), layout: .gray)
        let small = try verifier.verify(
            DetectContours.self, parameters: ["maximumImageDimension": 64], inputs: ["input": .image(wide)])
        let smallMask = try #require(small["mask"]).image()
        #expect(smallMask.width == 64 && smallMask.height == 9)
        let kept = try verifier.verify(
            DetectContours.self, parameters: ["maximumImageDimension": 4096], inputs: ["input": .image(wide)])
        #expect(try #require(kept["mask"]).image().width == 300)
    }

    /// `epsilon` is a fraction of the traced grid's longer side: 0.05 on a 96-pixel grid is approxPolyDP
    /// at 4.8 pixels.
    @Test func epsilonIsAFractionOfTheLongerSide() throws {
        let fixture = try ContourFixture("photo-contrast")
        let outputs = try verifier.verify(
            DetectContours.self,
            parameters: ["contrastAdjustment": 1.5, "contrastPivot": NumberOrAuto.number(0.4), "epsilon": 0.05],
            inputs: ["input": .image(try Fixtures.image("photo.png"))])
        guard case .contours(let contours)? = outputs["contours"] else { return }
        #expect(
            contours.contours.map(\.points) == fixture.contours.map { PolygonApproximation.closed($0, epsilon: 4.8) })
    }

    /// A sweep merges every setting's contours in order (pivots outer), and its ranges include `to`.
    @Test func sweepMergesEverySetting() throws {
        #expect(DetectContours.values([0.2, 0.7, 0.1]).count == 6)
        #expect(DetectContours.values([0.5, 3.0, 0.2]).count == 13)
        #expect(abs((DetectContours.values([0.5, 3.0, 0.2]).last ?? 0) - 2.9) < 1e-9)
        #expect(DetectContours.values([0.2, 0.7, 0.1]).last == 0.7)
        let photo = try Fixtures.image("photo.png")
        var expected: [[SIMD2<Double>]] = []
        for pivot in [0.3, 0.5] {
            for adjustment in [1.0, 2.0] {
                let single = try verifier.verify(
                    DetectContours.self,
                    parameters: ["contrastPivot": NumberOrAuto.number(pivot), "contrastAdjustment": adjustment],
                    inputs: ["input": .image(photo)])
                guard case .contours(let contours)? = single["contours"] else { return }
                expected += contours.contours.map(\.points)
            }
        }
        let swept = try verifier.verify(
            DetectContours.self,
            parameters: ["contrastPivotSweep": [0.3, 0.5, 0.2], "contrastAdjustmentSweep": [1.0, 2.0, 1.0]],
            inputs: ["input": .image(photo)])
        guard case .contours(let merged)? = swept["contours"] else { return }
        #expect(merged.contours.map(\.points) == expected)
        // Parents point inside their own setting's block: every parent lists its child.
        for (index, contour) in merged.contours.enumerated() where contour.parent >= 0 {
            #expect(merged.contours[contour.parent].children.contains(index))
        }
    }

    /// Light on dark traces the other side of the same cut: on the photo crop (no pixel at the cut)
    /// the mask is the fixture's complement.
    @Test func lightOnDarkIsTheComplement() throws {
        let fixture = try ContourFixture("photo-contrast")
        let outputs = try verifier.verify(
            DetectContours.self,
            parameters: [
                "contrastAdjustment": 1.5, "contrastPivot": NumberOrAuto.number(0.4), "detectsDarkOnLight": false,
            ],
            inputs: ["input": .image(try Fixtures.image("photo.png"))])
        let mask = try #require(outputs["mask"]).image().pixels().samples.map { UInt8($0) }
        #expect(mask == fixture.mask.map { 1 - $0 })
    }

    /// save refuses to write contours as an image or an image as contours, and image options with a
    /// contour path; each problem names the parameter.
    @Test func saveChecksWhatGoesWhere() throws {
        let declaration = try NodeDeclaration(Save.self)
        let contours = Contours(contours: [], width: 4, height: 4)
        let context = ParameterContext(baseFolder: "/nonexistent-tessera")
        func path(_ text: String) throws -> OutputPath { try OutputPath(literal: .string(text), context: context) }
        let asPNG = try declaration.instantiate(
            parameters: ["path": try path("c.png")], inputs: ["input": .contours(contours)])
        #expect(throws: NodeProblem.self) { try asPNG.run() }
        let asSVG = try declaration.instantiate(
            parameters: ["path": try path("i.svg")], inputs: ["input": .image(TestImages.gray())])
        #expect(throws: NodeProblem.self) { try asSVG.run() }
        let withQuality = try declaration.instantiate(
            parameters: ["path": try path("c.svg"), "quality": 50], inputs: ["input": .contours(contours)])
        let problems = withQuality.validate(
            in: ValidationContext(inputTypes: ["input": .contours], setParameters: ["path", "quality"]))
        #expect(problems.map(\.parameter) == ["quality"])
    }

    @Test func badSweepsAreProblems() throws {
        for sweep in [[0.2, 0.7], [0.7, 0.2, 0.1], [0.2, 0.7, 0.0]] {
            let declaration = try NodeDeclaration(DetectContours.self)
            let node = try declaration.instantiate(
                parameters: ["contrastPivotSweep": sweep], inputs: ["input": .image(TestImages.gray())])
            #expect(throws: NodeProblem.self) { try node.validate() }
        }
    }

    /// The `auto` pivot is Otsu's threshold: on two clusters of values it falls between them.
    @Test func autoPivotSplitsTheHistogram() {
        let values = [Float](repeating: 0.2, count: 100) + [Float](repeating: 0.8, count: 50)
        let threshold = DetectContours.otsuThreshold(values)
        #expect(threshold > 0.2 && threshold <= 0.8)
        #expect(DetectContours.otsuThreshold([]) == 0.5)
    }

    /// Tiny, flat and NaN images give an answer, not a crash.
    @Test func oddImagesDoNotCrash() throws {
        let one = Image(buffer: PixelBuffer(region: Rect(width: 1, height: 1), channels: 1), layout: .gray)
        let outputs = try verifier.verify(DetectContours.self, inputs: ["input": .image(one)])
        guard case .contours(let contours)? = outputs["contours"] else { return }
        #expect(contours.contours.count == 1 && contours.contours[0].points == [SIMD2(0, 0)])
        let nan = Image(buffer: PixelBuffer(region: Rect(width: 5, height: 3), channels: 1, value: .nan), layout: .gray)
        try verifier.verify(
            DetectContours.self, parameters: ["contrastPivot": NumberOrAuto.auto, "epsilon": 0.5],
            inputs: ["input": .image(nan)])
    }
}

// MARK: Near-duplicates

extension ContourTests {
    /// The tutorial's loop, written out: keep a box unless its IoU with a kept one is >= threshold.
    static func bruteForce(_ boxes: [Rect], threshold: Double) -> [Int] {
        var kept: [Int] = []
        for (index, box) in boxes.enumerated() {
            let duplicate = kept.contains { other in
                let a = box
                let b = boxes[other]
                let overlap = a.intersection(b)
                guard !overlap.isEmpty else { return 0 >= threshold }
                let inter = Double(overlap.width * overlap.height)
                return inter / (Double(a.width * a.height) + Double(b.width * b.height) - inter) >= threshold
            }
            if !duplicate { kept.append(index) }
        }
        return kept
    }

    /// `count` boxes of sides 1 to 128 with corners in `-20..<(spread - 20)`.
    static func randomBoxes(_ count: Int, seed: UInt64, spread: UInt64 = 300) -> [Rect] {
        var random = SplitMix(seed: seed)
        var boxes: [Rect] = []
        for _ in 0..<count {
            let size = 1 << Int(random.next() % 8)
            boxes.append(
                Rect(
                    x: Int(random.next() % spread) - 20, y: Int(random.next() % spread) - 20,
                    width: 1 + Int(random.next() % UInt64(size)), height: 1 + Int(random.next() % UInt64(size))))
        }
        return boxes
    }

    @Test(arguments: [0.0, 0.1, 0.3, 0.5, 0.75, 0.9, 1.0])
    func deduplicationMatchesTheTutorialsLoop(_ threshold: Double) {
        let boxes = Self.randomBoxes(3000, seed: UInt64(threshold * 100) + 1)
        // Exact repeats and near repeats, as a sweep makes them.
        let all = boxes + boxes.prefix(500).map { $0.width > 2 ? $0.insetBy(dx: 1, dy: 0) : $0 } + boxes.prefix(500)
        #expect(BoxDeduplication.keep(all, threshold: threshold) == Self.bruteForce(all, threshold: threshold))
    }

    /// 100,000 boxes over 2000x2000 pixels (a 4K sweep's density), a tenth of them repeats: a few IoU
    /// computations per box, not one per pair (the tutorial's loop needs up to 5e9 here); and in a
    /// release build (`swift test -c release -Xswiftc -enable-testing`: about 0.4 s), under a second. A
    /// debug build under a full parallel test run is too noisy to time.
    @Test func deduplicationIsFast() {
        let boxes = Self.randomBoxes(90_000, seed: 7, spread: 2000)
        let all = boxes + boxes.prefix(10_000)
        var dedup = BoxDeduplication(threshold: 0.9)
        let clock = ContinuousClock()
        let start = clock.now
        let kept = all.filter { dedup.insert($0) }
        let elapsed = clock.now - start
        #expect(kept.count <= 90_000)
        #expect(dedup.comparisons < 20 * all.count, "\(dedup.comparisons) IoU computations")
        #if !DEBUG
            #expect(elapsed < .seconds(1), "\(elapsed)")
        #endif
        _ = elapsed
    }

    /// A dropped contour's children hang from its nearest kept ancestor.
    @Test func deduplicationKeepsTheTree() {
        let square = [SIMD2<Double>(0, 0), SIMD2(9, 0), SIMD2(9, 9), SIMD2(0, 9)]
        let inner = [SIMD2<Double>(3, 3), SIMD2(5, 3), SIMD2(5, 5)]
        let contours: [Contours.Contour] = [
            .init(points: square, children: [1]),
            .init(points: square.map { $0 + 0.0 }, parent: 0, children: [2], isHole: true),
            .init(points: inner, parent: 1),
        ]
        let result = DetectContours.deduplicated(contours, threshold: 0.9)
        #expect(result.count == 2)
        #expect(result[0].children == [1] && result[1].parent == 0 && result[1].points == inner)
    }
}

// MARK: Length and area

extension ContourTests {
    /// Each parent lists exactly the contours that name it, in order; parents come before their children.
    static func expectWholeTree(_ contours: [Contours.Contour], _ label: String) {
        for (index, contour) in contours.enumerated() {
            #expect(contour.parent < index, "\(label): contour \(index)'s parent \(contour.parent) comes after it")
            let named = contours.indices.filter { contours[$0].parent == index }
            #expect(contour.children == named, "\(label): contour \(index) lists \(contour.children), not \(named)")
        }
    }

    /// Length and area are OpenCV's arcLength (closed) and contourArea of the same points: areas exactly
    /// (half-integers from integer points), lengths within a millionth (OpenCV adds Float32 square roots).
    @Test(arguments: ContourFixture.names)
    func lengthAndAreaMatchOpenCV(_ name: String) throws {
        let fixture = try ContourFixture(name)
        for (index, points) in fixture.contours.enumerated() {
            let contour = Contours.Contour(points: points)
            let length = fixture.lengths[index]
            #expect(abs(contour.length - length) <= 1e-6 * Swift.max(1, length), "\(name): contour \(index) length")
            #expect(contour.area == fixture.areas[index], "\(name): contour \(index) area")
        }
    }

    /// The filter keeps the contours OpenCV's arcLength and contourArea put at or above both minimums, and
    /// the tree the script builds from OpenCV's hierarchy: a dropped parent's place taken by the nearest
    /// kept ancestor (the comb mask drops a parent and keeps its child, and leaves a hole with no parent).
    @Test(arguments: ContourFixture.names)
    func filterMatchesOpenCV(_ name: String) throws {
        let fixture = try ContourFixture(name)
        let traced = BorderFollowing.trace(mask: fixture.mask, width: fixture.width, height: fixture.height)
        #expect(fixture.filters.count == 5)
        for filter in fixture.filters {
            let label = "\(name) at length \(filter.minimumLength), area \(filter.minimumArea)"
            let kept = DetectContours.filtered(
                traced, minimumLength: filter.minimumLength, minimumArea: filter.minimumArea)
            #expect(kept.map(\.points) == filter.kept.map { fixture.contours[$0] }, "\(label): kept")
            #expect(kept.map(\.parent) == filter.parent, "\(label): parents")
            #expect(kept.map(\.isHole) == filter.kept.map { traced[$0].isHole }, "\(label): hole flags")
            Self.expectWholeTree(kept, label)
        }
    }

    /// The node filters on the traced border, before simplification: on the photo crop at epsilon 6 px,
    /// its contours are OpenCV's kept contours simplified by OpenCV, with the filtered tree.
    @Test func detectContoursFiltersBeforeSimplifying() throws {
        let fixture = try ContourFixture("photo-contrast")
        let simplified = try #require(fixture.approx[6.0])
        for filter in fixture.filters {
            let outputs = try verifier.verify(
                DetectContours.self,
                parameters: [
                    "contrastAdjustment": 1.5, "contrastPivot": NumberOrAuto.number(0.4), "epsilon": 6.0 / 96,
                    "minimumLength": filter.minimumLength, "minimumArea": filter.minimumArea,
                ],
                inputs: ["input": .image(try Fixtures.image("photo.png"))])
            guard case .contours(let contours)? = outputs["contours"] else {
                Issue.record("no contours")
                return
            }
            let label = "length \(filter.minimumLength), area \(filter.minimumArea)"
            #expect(contours.contours.map(\.points) == filter.kept.map { simplified[$0] }, "\(label)")
            #expect(contours.contours.map(\.parent) == filter.parent, "\(label)")
        }
    }

    /// Both minimums are 0 by default, and 0 keeps every contour, single pixels included.
    @Test func filtersAreOffByDefault() throws {
        let declaration = try NodeDeclaration(DetectContours.self)
        for name in ["minimumLength", "minimumArea"] {
            #expect(declaration.parameters.first { $0.name == name }?.defaultValue?.number == 0, "\(name)")
        }
        let fixture = try ContourFixture("photo-contrast")
        let outputs = try verifier.verify(
            DetectContours.self,
            parameters: [
                "contrastAdjustment": 1.5, "contrastPivot": NumberOrAuto.number(0.4), "minimumLength": 0.0,
                "minimumArea": 0.0,
            ],
            inputs: ["input": .image(try Fixtures.image("photo.png"))])
        guard case .contours(let contours)? = outputs["contours"] else { return }
        #expect(contours.contours.map(\.points) == fixture.contours)
        #expect(contours.contours.contains { $0.points.count == 1 })
    }

    /// The filter runs before the near-duplicate removal, so a dropped contour suppresses nothing. Two
    /// settings of a sweep trace the same 10x10 box: first a one-pixel diagonal (area 0), then the filled
    /// square (area 81). Unfiltered, the diagonal comes first and the square is its duplicate; with
    /// `minimumArea: 1` the diagonal goes and the square stays.
    @Test func filterRunsBeforeDeduplication() throws {
        var buffer = PixelBuffer(region: Rect(width: 20, height: 20), channels: 1, value: 1)
        for y in 5..<15 { for x in 5..<15 { buffer[x, y, 0] = x == y ? 0.1 : 0.6 } }
        let image = Image(buffer: buffer, layout: .gray)
        // Adjustment 2 puts the cut at (pivot + 0.5) / 2: 0.4 (the diagonal alone), then 0.7 (the square).
        let sweep: [String: any ParameterValue] = [
            "contrastPivotSweep": [0.3, 0.9, 0.6], "contrastAdjustment": 2.0, "iouThreshold": 0.9,
        ]
        func contours(_ extra: [String: any ParameterValue]) throws -> [Contours.Contour] {
            let outputs = try verifier.verify(
                DetectContours.self, parameters: sweep.merging(extra) { $1 }, inputs: ["input": .image(image)])
            guard case .contours(let contours)? = outputs["contours"] else { return [] }
            return contours.contours
        }
        let plain = try contours([:])
        #expect(plain.count == 1 && plain.first?.area == 0)
        let filtered = try contours(["minimumArea": 1.0])
        #expect(filtered.count == 1 && filtered.first?.area == 81)
    }

    /// An image that is foreground everywhere (white, traced light on dark) gives one contour around the
    /// frame, through the edge pixels, as OpenCV's (the `full` fixture): 2 (w - 1) + 2 (h - 1) long and
    /// (w - 1)(h - 1) in area. The filters keep it at exactly those minimums and drop it just above.
    @Test func theFrameIsAContourLikeAnyOther() throws {
        let white = Image(
            buffer: PixelBuffer(region: Rect(width: 17, height: 12), channels: 1, value: 1), layout: .gray)
        func frame(_ parameters: [String: any ParameterValue]) throws -> [Contours.Contour] {
            var all = parameters
            all["detectsDarkOnLight"] = false
            let outputs = try verifier.verify(DetectContours.self, parameters: all, inputs: ["input": .image(white)])
            guard case .contours(let contours)? = outputs["contours"] else { return [] }
            return contours.contours
        }
        let kept = try frame(["minimumLength": 54.0, "minimumArea": 176.0])
        #expect(kept.map(\.points) == [try ContourFixture("full").contours[0]])
        #expect(kept.first?.parent == -1 && kept.first?.isHole == false)
        #expect(try frame(["minimumLength": 54.5]).isEmpty)
        #expect(try frame(["minimumArea": 176.5]).isEmpty)
    }
}

// MARK: Drawing and files

extension ContourTests {
    /// A horizontal segment through pixel centers, 1 px wide: its row is fully colored from end to end,
    /// and nothing else (the rows above and below, and the pixels past the ends, are 1 px from the
    /// segment: coverage 0.5 + 0.5 - 1). At 2 px wide those get coverage 1.5 - 1 = 0.5 (the formula in
    /// DrawContours' doc).
    @Test func drawContoursFollowsItsCoverageFormula() throws {
        let line = Contours(
            contours: [.init(points: [SIMD2(2, 5), SIMD2(12, 5)])], width: 20, height: 10)
        let outputs = try verifier.verify(
            DrawContours.self, parameters: ["color": [1.0, 0, 0, 1]], inputs: ["contours": .contours(line)])
        let image = try #require(outputs["output"]).image()
        #expect(image.width == 20 && image.height == 10 && image.layout == .rgb)
        let pixels = try image.pixels()
        func red(_ x: Int, _ y: Int) -> Float { pixels.samples[pixels.index(x: x, y: y)] }
        func green(_ x: Int, _ y: Int) -> Float { pixels.samples[pixels.index(x: x, y: y) + 1] }
        for x in 2...12 {
            #expect(red(x, 5) == 1 && green(x, 5) == 0)
            #expect(green(x, 4) == 1 && green(x, 6) == 1)
        }
        #expect(green(1, 5) == 1 && green(13, 5) == 1)
        let wide = try verifier.verify(
            DrawContours.self, parameters: ["color": [1.0, 0, 0, 1], "lineWidth": 2.0],
            inputs: ["contours": .contours(line)])
        let widePixels = try #require(wide["output"]).image().pixels()
        func wideGreen(_ x: Int, _ y: Int) -> Float { widePixels.samples[widePixels.index(x: x, y: y) + 1] }
        #expect(wideGreen(7, 5) == 0 && wideGreen(7, 4) == 0.5 && wideGreen(7, 6) == 0.5 && wideGreen(1, 5) == 0.5)
        #expect(wideGreen(7, 3) == 1 && wideGreen(0, 5) == 1)
        // Over an image: the photo under a transparent color stays the photo.
        let photo = try Fixtures.image("photo.png")
        let over = try verifier.verify(
            DrawContours.self, parameters: ["color": [1.0, 0, 0, 0]],
            inputs: ["contours": .contours(line), "input": .image(photo)])
        let same = try #require(over["output"]).image().pixels()
        let original = try photo.pixels()
        #expect(zip(same.samples, original.samples).allSatisfy { abs($0 - $1) < 1e-6 })
    }

    @Test func contourFilesWriteWhatTheReadmeSays() throws {
        let fixture = try ContourFixture("nested")
        let contours = Contours(
            contours: BorderFollowing.trace(mask: fixture.mask, width: fixture.width, height: fixture.height),
            width: fixture.width, height: fixture.height, imageWidth: 160, imageHeight: 128)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-contours-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let jsonPath = folder.appendingPathComponent("c.json").path
        try ValueFile.save(.contours(contours), to: jsonPath)
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: jsonPath))) as? [String: Any])
        #expect(object["imageWidth"] as? Int == 160 && object["imageHeight"] as? Int == 128)
        #expect(object["tracedWidth"] as? Int == 80 && object["tracedHeight"] as? Int == 64)
        let items = try #require(object["contours"] as? [[String: Any]])
        #expect(items.count == fixture.contours.count)
        for (index, item) in items.enumerated() {
            #expect(
                (item["points"] as? [[Int]])?.map { SIMD2(Double($0[0]), Double($0[1])) } == fixture.contours[index])
            #expect(item["parent"] as? Int == fixture.hierarchy[index][3])
            #expect(item["isHole"] as? Bool == contours.contours[index].isHole)
            let xs = fixture.contours[index].map(\.x)
            let ys = fixture.contours[index].map(\.y)
            let (x0, x1) = (xs.min() ?? 0, xs.max() ?? 0)
            let (y0, y1) = (ys.min() ?? 0, ys.max() ?? 0)
            let box = [x0, y0, x1 - x0 + 1, y1 - y0 + 1].map { Int($0) }
            #expect(item["boundingBox"] as? [Int] == box)
            #expect(item["children"] as? [Int] == contours.contours[index].children)
        }
        let svgPath = folder.appendingPathComponent("c.svg").path
        try ValueFile.save(.contours(contours), to: svgPath)
        let svg = try String(contentsOfFile: svgPath, encoding: .utf8)
        #expect(svg.contains("viewBox=\"0 0 160 128\""))
        #expect(svg.components(separatedBy: "<path").count - 1 == fixture.contours.count)
        // The first point of the first contour, scaled by 2 to the image at its pixel's center.
        let first = fixture.contours[0][0]
        #expect(svg.contains("M\(Int(first.x) * 2 + 1) \(Int(first.y) * 2 + 1) L"))
        // Only the two files: the temporary ones were renamed.
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == ["c.json", "c.svg"])
        #expect(throws: ImageError.self) {
            try ValueFile.save(.contours(contours), to: folder.appendingPathComponent("c.png").path)
        }
    }
}

let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().path
