import Foundation
import TesseraPluginSDK

/// MediaPipe's SSD detectors (BlazeFace, BlazePalm), decoded as its detection graphs do: the image
/// letterboxed onto the model's square input, anchors on feature maps, a box and keypoints regressed
/// per anchor, a sigmoid score, and weighted non-maximum suppression.
struct AnchorDetector {
    /// A detection in normalized image coordinates (0...1 across the image).
    struct Detection {
        var score: Double
        var minimum: SIMD2<Double>
        var maximum: SIMD2<Double>
        var keypoints: [SIMD2<Double>]
    }

    let model: Model
    /// The model's square input side.
    let side: Int
    /// The feature maps: each a grid of `size` x `size` cells with `perCell` anchors, in output order.
    let maps: [(size: Int, perCell: Int)]
    let keypointCount: Int
    /// The input's sample range (0...1 for the palm detector, -1...1 for the face detectors).
    let low: Float
    let high: Float
    /// Round the input's samples to 8 bits (the palm detector's graph warps the 8-bit image).
    var roundToBytes = false

    /// Anchor centers, ordered as the model's outputs: by feature map, row, column, then anchor. Every
    /// anchor has size 1 (MediaPipe's fixed_anchor_size), so only its center enters the decoding.
    var anchors: [SIMD2<Double>] {
        var centers: [SIMD2<Double>] = []
        for map in maps {
            for y in 0..<map.size {
                for x in 0..<map.size {
                    let center = SIMD2((Double(x) + 0.5) / Double(map.size), (Double(y) + 0.5) / Double(map.size))
                    centers += Array(repeating: center, count: map.perCell)
                }
            }
        }
        return centers
    }

    /// Every detection scoring at least `minimumScore`, merged, most confident first.
    func detect(_ image: Image, minimumScore: Double, scratch: inout PixelBuffer) throws -> [Detection] {
        let (width, height) = (image.width, image.height)
        let found = try unmerged(
            image, cut: .letterbox(width, height, side: side), minimumScore: minimumScore,
            scratch: &scratch)
        // Undo the letterbox: the square's margins, as fractions of it, come off each side.
        let square = Double(max(width, height))
        let margin = SIMD2((1 - Double(width) / square) / 2, (1 - Double(height) / square) / 2)
        let span = 1 - 2 * margin
        return Self.weightedSuppression(found).map { detection in
            var result = detection
            result.minimum = (detection.minimum - margin) / span
            result.maximum = (detection.maximum - margin) / span
            result.keypoints = detection.keypoints.map { ($0 - margin) / span }
            return result
        }
    }

    /// Every detection scoring at least `minimumScore` in the part of the image that `cut` (of the model's
    /// side) samples, not yet merged, in the tensor's coordinates (0...1 across it).
    func unmerged(_ image: Image, cut: TensorCut, minimumScore: Double, scratch: inout PixelBuffer) throws
        -> [Detection]
    {
        var cut = cut
        cut.roundToBytes = roundToBytes
        let outputs = try model.infer(
            cut.tensor(from: image, low: low, high: high, reusing: &scratch), shape: [1, Int64(side), Int64(side), 3])
        let anchors = anchors
        let stride = 4 + 2 * keypointCount
        guard outputs.count == 2, outputs[0].count == anchors.count * stride, outputs[1].count == anchors.count else {
            throw VisionError("the model \(model.name)'s outputs are not the shape expected")
        }
        let (regressors, scores) = (outputs[0], outputs[1])
        let scale = Double(side)
        var found: [Detection] = []
        for (index, anchor) in anchors.enumerated() {
            let logit = min(max(Double(scores[index]), -100), 100)
            let score = 1 / (1 + exp(-logit))
            guard score >= minimumScore else { continue }
            let base = index * stride
            func pair(_ offset: Int) -> SIMD2<Double> {
                SIMD2(Double(regressors[base + offset]), Double(regressors[base + offset + 1])) / scale
            }
            let center = pair(0) + anchor
            let size = pair(2)
            guard size.x >= 0, size.y >= 0 else { continue }
            let keypoints = (0..<keypointCount).map { pair(4 + 2 * $0) + anchor }
            found.append(
                Detection(score: score, minimum: center - size / 2, maximum: center + size / 2, keypoints: keypoints))
        }
        return found
    }

    /// MediaPipe's weighted non-maximum suppression: the best remaining detection and every other one
    /// overlapping it by an IoU above 0.3 become one, their corners and keypoints averaged by score, with
    /// the best score.
    static func weightedSuppression(_ detections: [Detection]) -> [Detection] {
        var remaining = detections.sorted { $0.score > $1.score }
        var result: [Detection] = []
        while let best = remaining.first {
            let overlapping = remaining.filter { iou(best, $0) > 0.3 }
            remaining.removeAll { iou(best, $0) > 0.3 }
            let total = overlapping.reduce(0) { $0 + $1.score }
            var merged = Detection(
                score: best.score, minimum: .zero, maximum: .zero,
                keypoints: Array(repeating: .zero, count: best.keypoints.count))
            for detection in overlapping {
                let weight = detection.score / total
                merged.minimum += detection.minimum * weight
                merged.maximum += detection.maximum * weight
                for k in merged.keypoints.indices { merged.keypoints[k] += detection.keypoints[k] * weight }
            }
            // The best one itself overlaps: guard against a box whose IoU with itself is 0 (empty).
            result.append(overlapping.isEmpty ? best : merged)
            if overlapping.isEmpty { remaining.removeFirst() }
        }
        return result
    }

    static func iou(_ a: Detection, _ b: Detection) -> Double {
        iou(low: a.minimum, high: a.maximum, low: b.minimum, high: b.maximum)
    }

    /// The intersection over union of two axis-aligned boxes given by their corners.
    static func iou(low a0: SIMD2<Double>, high a1: SIMD2<Double>, low b0: SIMD2<Double>, high b1: SIMD2<Double>)
        -> Double
    {
        let low = pointwiseMax(a0, b0)
        let high = pointwiseMin(a1, b1)
        let overlap = max(0, high.x - low.x) * max(0, high.y - low.y)
        let union = (a1.x - a0.x) * (a1.y - a0.y) + (b1.x - b0.x) * (b1.y - b0.y) - overlap
        return union > 0 ? overlap / union : 0
    }
}

/// MediaPipe's BlazeFace detectors: six keypoints a face (eyes, nose tip, mouth, ears).
struct FaceDetector {
    enum Range: String, ParameterChoice, Sendable {
        /// Faces within about 2 m of the camera (128 x 128 input).
        case short
        /// Faces up to about 5 m away, smaller in the frame (192 x 192 input).
        case full
    }

    typealias Detection = AnchorDetector.Detection

    let range: Range
    let detector: AnchorDetector

    init(range: Range, models: String) throws {
        self.range = range
        // Short: a 16 x 16 map with 2 anchors a cell (stride 8), then an 8 x 8 map with 6 (three layers of
        // stride 16, two anchors each). Full: one 48 x 48 map, one anchor a cell (stride 4).
        detector = AnchorDetector(
            model: try Model.named(
                range == .short ? "face_detection_short_range.tflite" : "face_detection_full_range_sparse.tflite",
                in: models),
            side: range == .short ? 128 : 192, maps: range == .short ? [(16, 2), (8, 6)] : [(48, 1)],
            keypointCount: 6, low: -1, high: 1)
    }

    /// MediaPipe's own score thresholds for each model (its graphs', which the Python API keeps).
    var defaultThreshold: Double { range == .short ? 0.5 : 0.6 }

    func detect(_ image: Image, threshold: Double?, scratch: inout PixelBuffer) throws -> [Detection] {
        try detector.detect(image, minimumScore: threshold ?? defaultThreshold, scratch: &scratch)
    }
}

/// MediaPipe's face mesh (face_landmark.tflite): 468 points from a square crop around a detected face,
/// turned so the eyes are level, 1.5 times the face box's long side.
struct FaceMesh {
    let model: Model
    static let side = 192

    init(models: String) throws {
        model = try Model.named("face_landmark.tflite", in: models)
    }

    /// The crop around a detection: its center and side in pixels and its rotation in radians.
    typealias Region = TurnedSquare

    /// The mesh in image pixels (z on the scale of x), the crop it was found in (RGB in 0...1, for the
    /// quality measures), and the model's face presence; nil points when presence is under 0.5.
    func landmarks(_ image: Image, region: Region, scratch: inout PixelBuffer) throws -> (
        points: [SIMD3<Double>]?, crop: [Float]
    ) {
        let crop = try region.cut().tensor(from: image, low: 0, high: 1, reusing: &scratch)
        let outputs = try model.infer(crop, shape: [1, Int64(Self.side), Int64(Self.side), 3])
        guard outputs.count == 2, outputs[0].count == Face.meshPoints * 3, outputs[1].count == 1 else {
            throw VisionError("the face mesh model's outputs are not the shape expected")
        }
        let presence = 1 / (1 + exp(-Double(outputs[1][0])))
        guard presence >= 0.5 else { return (nil, crop) }
        let raw = outputs[0]
        let points = (0..<Face.meshPoints).map { index in
            let flat = region.image(SIMD2(Double(raw[index * 3]), Double(raw[index * 3 + 1])))
            return SIMD3(flat.x, flat.y, Double(raw[index * 3 + 2]) / Double(Self.side) * region.side)
        }
        return (points, crop)
    }
}

extension TurnedSquare {
    /// A face's crop for the mesh: 1.5 times the detector's box's long side, turned so the eyes are level.
    init(face detection: FaceDetector.Detection, width: Int, height: Int) {
        let size = SIMD2(Double(width), Double(height))
        let box = (detection.maximum - detection.minimum) * size
        let right = detection.keypoints[0] * size
        let left = detection.keypoints[1] * size
        self.init(
            center: (detection.minimum + detection.maximum) / 2 * size, side: max(box.x, box.y) * 1.5,
            rotation: Self.normalized(-atan2(-(left.y - right.y), left.x - right.x)), tensorSide: FaceMesh.side)
    }

    /// The same crop turned so that the mesh's outer eye corners are level: the detector's eye keypoints
    /// are coarse, and a crop aligned to the face gives the mesh model the upright face it was trained on.
    /// Its center and side are the mesh's: the middle of its extent along the leveled axes, and 1.5 times
    /// its longer extent, as MediaPipe's tracking makes the next frame's crop from the landmarks.
    func leveled(by mesh: [SIMD3<Double>]) -> TurnedSquare {
        var region = self
        let (right, left) = (mesh[33], mesh[263])
        region.rotation = -atan2(-(left.y - right.y), left.x - right.x)
        let (c, s) = (cos(region.rotation), sin(region.rotation))
        var low = SIMD2(Double.infinity, .infinity)
        var high = -low
        for point in mesh {
            let local = SIMD2(c * point.x + s * point.y, -s * point.x + c * point.y)
            low = pointwiseMin(low, local)
            high = pointwiseMax(high, local)
        }
        let middle = (low + high) / 2
        region.center = SIMD2(c * middle.x - s * middle.y, s * middle.x + c * middle.y)
        region.side = max(high.x - low.x, high.y - low.y) * 1.5
        return region
    }
}
