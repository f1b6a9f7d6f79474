import Foundation
import Synchronization
import TesseraPluginSDK

/// Finds and reads lines of text, as Vision's text recognition request does: PaddleOCR's PP-OCRv4
/// detector, its 180-degree orientation classifier and its recognizer, run as rapidocr runs them.
struct DetectText: Node {
    enum RecognitionLevel: String, ParameterChoice, Sendable {
        /// Lines found on the image at most 960 pixels on its long side, read as they stand: quicker,
        /// and text under about 1/50 of that side is missed.
        case fast
        /// Lines found at full resolution (up to 2000 pixels on the long side, at least 736 on the short),
        /// lines upside down turned before they are read: rapidocr's defaults.
        case accurate
    }

    static let info = NodeInfo(
        op: "detectText",
        summary:
            "Finds and reads lines of text: quadrilateral, box, string and confidence (PaddleOCR's PP-OCRv4 models "
            + "on OpenVINO).",
        access: .global,
        outputs: [
            .init(
                "text", .text,
                doc: "The lines in reading order (top to bottom, then left to right): crop and drawBoxes take them as "
                    + "boxes, save writes them as .json.")
        ],
        example: """
            photo: { op: load, path: sign.jpg }
            text: { op: detectText, input: photo }
            out: { op: save, input: text, path: text.json }
            """)

    @Input(doc: "The photo, as stored (sRGB values); alpha is ignored.") var input: Image
    @Parameter(
        doc: "fast: find lines on a smaller image, read them as they stand; accurate: full resolution, "
            + "lines upside down turned first.")
    var recognitionLevel = RecognitionLevel.accurate
    @Parameter(doc: "Read the lines; false only finds them (Vision's text rectangles), much quicker, strings empty.")
    var recognize = true
    @Parameter(
        doc: "The smallest text height kept, as a fraction of the image's height (Vision's minimumTextHeight); 0 "
            + "keeps every line.",
        range: 0...1, suggested: 0...0.1)
    var minimumTextHeight = 0.0
    @Parameter(
        doc: "The languages to read, as BCP 47 tags separated by commas: en-US (the Latin alphabet, digits and "
            + "ASCII punctuation) and zh-Hans (simplified Chinese, which includes them): the model reads nothing "
            + "else. With only English, characters outside ASCII are never chosen.")
    var recognitionLanguages = "en-US, zh-Hans"
    @Parameter(
        doc: "The lowest confidence kept, 0...1: the recognizer's mean character probability (the detector's "
            + "score when not reading).",
        range: 0...1)
    var minimumConfidence = 0.5
    @Parameter(doc: DetectFaces.modelsDoc) var models: FilePath? = nil

    static let languages = ["en-US", "en", "zh-Hans", "zh"]

    var languageList: [String] {
        recognitionLanguages.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter {
            !$0.isEmpty
        }
    }

    func validate(in context: ValidationContext) -> [NodeProblem] {
        let unknown = languageList.filter { !Self.languages.contains($0) }
        if languageList.isEmpty || !unknown.isEmpty {
            return [
                NodeProblem(
                    parameter: "recognitionLanguages",
                    (unknown.isEmpty
                        ? "no language given" : "\(unknown.joined(separator: ", ")) is not read by the model")
                        + "; it reads en-US and zh-Hans")
            ]
        }
        return []
    }

    func run() throws -> NodeOutputs {
        let reader = try TextReader(
            models: ModelFolder.resolve(models?.resolved), recognize: recognize, level: recognitionLevel)
        let asciiOnly = languageList.allSatisfy { $0.hasPrefix("en") }
        var lines = try reader.lines(
            in: input, level: recognitionLevel, asciiOnly: asciiOnly, minimumConfidence: minimumConfidence)
        if minimumTextHeight > 0 {
            let least = minimumTextHeight * Double(input.height)
            lines.removeAll { line in
                let q = line.quad
                let side = min(norm(q[3] - q[0]), norm(q[2] - q[1]))
                return side < least
            }
        }
        return NodeOutputs(["text": .text(lines)])
    }
}

/// rapidocr 1.4.4's pipeline (its default configuration) on OpenVINO: the image at most 2000 pixels on its
/// long side, the detector's probability map on it resized to multiples of 32, DB post-processing into
/// quadrilaterals (``TextBoxes``), each line cut out upright (``PerspectiveCut``), turned by the
/// classifier when upside down, and read by the recognizer in batches of six, CTC-decoded.
struct TextReader {
    let detector: Model
    let classifier: Model?
    let recognizer: Model?
    /// The recognizer's classes: 0 is CTC's blank, then the dictionary's 6,623 characters, then a space.
    let characters: [String]

    /// Only the models the run uses: the classifier for reading at the accurate level.
    init(models: String, recognize: Bool, level: DetectText.RecognitionLevel) throws {
        detector = try Model.named("ch_PP-OCRv4_det_infer.onnx", in: models)
        guard recognize else {
            (classifier, recognizer, characters) = (nil, nil, [])
            return
        }
        classifier = level == .accurate ? try Model.named("ch_ppocr_mobile_v2.0_cls_infer.onnx", in: models) : nil
        recognizer = try Model.named("ch_PP-OCRv4_rec_infer.onnx", in: models)
        characters = try Self.dictionary(in: models)
    }

    /// The dictionary `make` took out of the recognizer's metadata, read once per process.
    static func dictionary(in models: String) throws -> [String] {
        let path = (models as NSString).appendingPathComponent("ppocr_keys_v4.txt")
        return try cache.withLock { cache in
            if let known = cache[path] { return known }
            guard let data = FileManager.default.contents(atPath: path) else {
                throw VisionError(
                    "the text recognizer's dictionary \(path) is missing (run make in Plugins/Vision, or set the "
                        + "models parameter or TESSERA_VISION_MODELS to the folder holding ppocr_keys_v4.txt)")
            }
            let entries = String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
                .map(String.init).dropLast()
            guard entries.count == 6623 else {
                throw VisionError("the text recognizer's dictionary \(path) has \(entries.count) entries, not 6623")
            }
            let classes = ["blank"] + entries + [" "]
            cache[path] = classes
            return classes
        }
    }

    private static let cache = Mutex<[String: [String]]>([:])

    /// An RGB image in memory, samples 0...1 on 8-bit levels, row by row.
    struct Picture {
        var width: Int
        var height: Int
        var samples: [Float]
    }

    func lines(in image: Image, level: DetectText.RecognitionLevel, asciiOnly: Bool, minimumConfidence: Double)
        throws -> [TextLine]
    {
        // The image the lines are found and cut from: at most 2000 pixels on its long side (each side then a
        // multiple of 32), as rapidocr's max_side_len; fast finds them on one at most 960.
        let (width, height) = (image.width, image.height)
        var scratch = PixelBuffer(region: .empty, channels: image.channels)
        let (baseWidth, baseHeight) = Self.capped(width, height, longest: 2000)
        let base = try Self.picture(image, width: baseWidth, height: baseHeight, scratch: &scratch)
        let (detectWidth, detectHeight) =
            level == .fast
            ? Self.capped(baseWidth, baseHeight, longest: 960, roundSmall: true)
            : Self.detectionSize(baseWidth, baseHeight)
        let detectInput = TextGeometry.resize(
            base.samples, width: base.width, height: base.height, toWidth: detectWidth, toHeight: detectHeight)
        let map = try detector.infer(
            Self.planes(detectInput, width: detectWidth, height: detectHeight),
            shape: [1, 3, Int64(detectHeight), Int64(detectWidth)])
        guard map.count == 1, map[0].count == detectWidth * detectHeight else {
            throw VisionError("the text detection model's output is not the shape expected")
        }
        let found = TextBoxes.find(
            probabilities: map[0], width: detectWidth, height: detectHeight, imageWidth: baseWidth,
            imageHeight: baseHeight)
        // Back to the image's pixels.
        let scale = SIMD2(Double(width) / Double(baseWidth), Double(height) / Double(baseHeight))
        func placed(_ quad: [SIMD2<Double>]) -> [SIMD2<Double>] {
            quad.map { pointwiseMin(pointwiseMax($0 * scale, .zero), SIMD2(Double(width), Double(height))) }
        }
        guard let recognizer else {
            return found.filter { $0.score >= minimumConfidence }.map {
                TextLine(quad: placed($0.quad), string: "", confidence: $0.score)
            }
        }
        var crops = found.map { Self.crop(base, quad: $0.quad) }
        var turned = Array(repeating: false, count: crops.count)
        if let classifier {
            turned = try Self.upsideDown(crops, classifier: classifier)
            for index in crops.indices where turned[index] { crops[index] = crops[index].rotated180 }
        }
        let read = try Self.read(crops, recognizer: recognizer, characters: characters, asciiOnly: asciiOnly)
        var lines: [TextLine] = []
        for (index, box) in found.enumerated() where read[index].confidence >= minimumConfidence {
            // The quad's corners as the text reads: a line turned upside down starts at the other end.
            var quad = placed(box.quad)
            if turned[index] { quad = Array(quad[2...] + quad[..<2]) }
            lines.append(TextLine(quad: quad, string: read[index].string, confidence: read[index].confidence))
        }
        return lines
    }

    /// `width` x `height` scaled so the long side is at most `longest`, each side then rounded to a multiple
    /// of 32 (half to even, as Python's round); unchanged when already small enough, unless `roundSmall`.
    static func capped(_ width: Int, _ height: Int, longest: Int, roundSmall: Bool = false) -> (Int, Int) {
        let long = max(width, height)
        guard long > longest || roundSmall else { return (width, height) }
        let ratio = long > longest ? Double(longest) / Double(long) : 1
        return (multiple32(Double(width) * ratio), multiple32(Double(height) * ratio))
    }

    /// rapidocr's detector input size (limit_type min, 736): the short side brought up to 736 when smaller,
    /// each side truncated, then rounded to a multiple of 32.
    static func detectionSize(_ width: Int, _ height: Int) -> (Int, Int) {
        let short = min(width, height)
        let ratio = short < 736 ? 736 / Double(short) : 1
        return (multiple32(Double(Int(Double(width) * ratio))), multiple32(Double(Int(Double(height) * ratio))))
    }

    static func multiple32(_ value: Double) -> Int { max(Int((value / 32).rounded(.toNearestOrEven)) * 32, 32) }

    /// The image resized to `width` x `height` as OpenCV's INTER_LINEAR does (pixel centers aligned, edges
    /// replicated, 8-bit results), read from it in bands.
    static func picture(_ image: Image, width: Int, height: Int, scratch: inout PixelBuffer) throws -> Picture {
        let sx = Double(image.width) / Double(width)
        let sy = Double(image.height) / Double(height)
        let cut = TensorCut(
            width: width, height: height, origin: SIMD2(sx / 2 - 0.5, sy / 2 - 0.5), across: SIMD2(sx, 0),
            down: SIMD2(0, sy), replicateBorder: true, roundToBytes: true)
        return Picture(
            width: width, height: height, samples: try cut.tensor(from: image, low: 0, high: 1, reusing: &scratch))
    }

    /// RGB rows as the PaddleOCR models take them: BGR planes (NCHW), each sample mapped to -1...1.
    static func planes(_ rgb: [Float], width: Int, height: Int, paddedWidth: Int? = nil) -> [Float] {
        let stride = paddedWidth ?? width
        let plane = stride * height
        var out = [Float](repeating: 0, count: plane * 3)
        for y in 0..<height {
            for x in 0..<width {
                let at = (y * width + x) * 3
                for c in 0..<3 { out[(2 - c) * plane + y * stride + x] = rgb[at + c] * 2 - 1 }
            }
        }
        return out
    }

    /// A line cut out upright from `picture`, turned a quarter counterclockwise when it stands (at least 1.5
    /// times as high as wide: vertical text).
    static func crop(_ picture: Picture, quad: [SIMD2<Double>]) -> Crop {
        let cut = PerspectiveCut(quad: quad)
        let samples = cut.sample(picture.samples, imageWidth: picture.width, imageHeight: picture.height)
        let crop = Crop(width: cut.width, height: cut.height, samples: samples)
        return Double(crop.height) / Double(crop.width) >= 1.5 ? crop.rotated90CounterClockwise : crop
    }

    /// Which crops the classifier finds upside down (the label "180" with a probability over 0.9): in
    /// batches of six by aspect ratio, each resized to 48 pixels high and at most 192 wide, padded.
    static func upsideDown(_ crops: [Crop], classifier: Model) throws -> [Bool] {
        var result = Array(repeating: false, count: crops.count)
        for batch in batches(crops) {
            var input: [Float] = []
            for index in batch {
                input += crops[index].normalized(height: 48, width: 192, maximumWidth: 192)
            }
            let outputs = try classifier.infer(input, shape: [Int64(batch.count), 3, 48, 192])
            guard outputs.count == 1, outputs[0].count == batch.count * 2 else {
                throw VisionError("the text orientation model's output is not the shape expected")
            }
            for (k, index) in batch.enumerated() {
                let (upright, flipped) = (outputs[0][2 * k], outputs[0][2 * k + 1])
                result[index] = flipped > upright && flipped > 0.9
            }
        }
        return result
    }

    /// The crops' indices in batches of six, by aspect ratio (width over height) from the narrowest, as
    /// rapidocr batches them: each batch is padded to its widest member.
    static func batches(_ crops: [Crop]) -> [[Int]] {
        let order = crops.indices.sorted {
            Double(crops[$0].width) / Double(crops[$0].height) < Double(crops[$1].width) / Double(crops[$1].height)
        }
        return stride(from: 0, to: order.count, by: 6).map { Array(order[$0..<min($0 + 6, order.count)]) }
    }

    /// Each crop's text and confidence: the recognizer's classes per step, CTC-decoded (repeats merged,
    /// blanks dropped), the confidence the mean probability of the characters kept. With `asciiOnly` the
    /// best class is chosen among the ASCII characters, the space and the blank only.
    static func read(_ crops: [Crop], recognizer: Model, characters: [String], asciiOnly: Bool) throws -> [(
        string: String, confidence: Double
    )] {
        var result = Array(repeating: (string: "", confidence: 0.0), count: crops.count)
        let allowed = characters.indices.filter { index in
            !asciiOnly || index == 0 || characters[index].unicodeScalars.allSatisfy(\.isASCII)
        }
        for batch in batches(crops) {
            let widest = batch.map { Double(crops[$0].width) / Double(crops[$0].height) }.max() ?? 1
            let width = Int(48 * max(320.0 / 48, widest))
            var input: [Float] = []
            for index in batch { input += crops[index].normalized(height: 48, width: width, maximumWidth: width) }
            let outputs = try recognizer.infer(input, shape: [Int64(batch.count), 3, 48, Int64(width)])
            let classes = characters.count
            guard outputs.count == 1, outputs[0].count % (batch.count * classes) == 0 else {
                throw VisionError("the text recognition model's output is not the shape expected")
            }
            let steps = outputs[0].count / (batch.count * classes)
            outputs[0].withUnsafeBufferPointer { probabilities in
                for (k, index) in batch.enumerated() {
                    var string = ""
                    var total = 0.0
                    var kept = 0
                    var previous = -1
                    for step in 0..<steps {
                        let row = (k * steps + step) * classes
                        var best = 0
                        var bestProbability = -Float.infinity
                        for c in allowed where probabilities[row + c] > bestProbability {
                            (best, bestProbability) = (c, probabilities[row + c])
                        }
                        defer { previous = best }
                        guard best != 0, best != previous else { continue }
                        string += characters[best]
                        total += Double(bestProbability)
                        kept += 1
                    }
                    result[index] = (string, kept > 0 ? total / Double(kept) : 0)
                }
            }
        }
        return result
    }
}

/// A line cut out of the image: RGB samples 0...1, row by row.
struct Crop {
    var width: Int
    var height: Int
    var samples: [Float]

    var rotated180: Crop {
        var out = self
        let count = width * height
        for index in 0..<count {
            for c in 0..<3 { out.samples[index * 3 + c] = samples[(count - 1 - index) * 3 + c] }
        }
        return out
    }

    /// Turned a quarter counterclockwise (NumPy's rot90): the top row becomes the left column, read upward.
    var rotated90CounterClockwise: Crop {
        var out = Crop(width: height, height: width, samples: samples)
        for y in 0..<height {
            for x in 0..<width {
                let to = ((width - 1 - x) * height + y) * 3
                for c in 0..<3 { out.samples[to + c] = samples[(y * width + x) * 3 + c] }
            }
        }
        return out
    }

    /// Resized to `height` rows and as wide as its aspect ratio asks (at most `maximumWidth`), in BGR planes
    /// mapped to -1...1, padded with 0 (mid-gray) on the right to `width`.
    func normalized(height: Int, width: Int, maximumWidth: Int) -> [Float] {
        let resizedWidth = min(
            maximumWidth, Int((Double(height) * Double(self.width) / Double(self.height)).rounded(.up)))
        let resized = TextGeometry.resize(
            samples, width: self.width, height: self.height, toWidth: resizedWidth, toHeight: height)
        return TextReader.planes(resized, width: resizedWidth, height: height, paddedWidth: width)
    }
}
