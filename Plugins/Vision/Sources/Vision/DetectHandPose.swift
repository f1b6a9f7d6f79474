import Foundation
import TesseraPluginSDK

/// Finds hands and their pose, as Vision's hand pose request does: MediaPipe's palm detector, then its
/// hand landmark model on a crop around each palm, turned upright.
struct DetectHandPose: Node {
    static let info = NodeInfo(
        op: "detectHandPose",
        summary:
            "Finds hands: 21 named joints each with a confidence, and chirality (MediaPipe's palm detector and hand "
            + "landmark model on OpenVINO).",
        access: .global,
        outputs: [
            .init(
                "hands", .hands,
                doc: "The hands, the palm detector's most confident first: drawHands draws them, crop and drawBoxes "
                    + "take them as boxes, save writes them as .json. Chirality is the subject's own hand.")
        ],
        example: """
            photo: { op: load, path: photo.jpg }
            hands: { op: detectHandPose, input: photo }
            drawn: { op: drawHands, input: photo, hands: hands }
            a: { op: save, input: hands, path: hands.json }
            b: { op: save, input: drawn, path: hands.png }
            """)

    @Input(doc: "The photo, as stored (sRGB values); alpha is ignored.") var input: Image
    @Parameter(doc: "The most hands returned (Vision's maximumHandCount).", range: 1...100, suggested: 1...10)
    var maximumHandCount = 2
    @Parameter(doc: "The lowest palm detector score kept, 0...1 (MediaPipe's min_detection_confidence).", range: 0...1)
    var minimumConfidence = 0.5
    @Parameter(doc: DetectFaces.modelsDoc) var models: FilePath? = nil

    func run() throws -> NodeOutputs {
        let hands = try HandPose(models: ModelFolder.resolve(models?.resolved)).hands(
            in: input, maximumCount: maximumHandCount, minimumScore: minimumConfidence)
        return NodeOutputs(["hands": .hands(hands)])
    }
}

/// MediaPipe's hands solution on still images (`static_image_mode`): palms detected on the whole image,
/// each turned into a square crop along the hand, and the landmark model run once on each crop.
struct HandPose {
    let palms: AnchorDetector
    let landmarks: Model
    static let side = 224

    init(models: String) throws {
        // A 24 x 24 map with 2 anchors a cell (stride 8), then a 12 x 12 map with 6 (three layers of stride
        // 16): 2016 anchors, seven keypoints each (the wrist is the first, the middle finger's base the third).
        palms = AnchorDetector(
            model: try Model.named("palm_detection_full.tflite", in: models), side: 192, maps: [(24, 2), (12, 6)],
            keypointCount: 7, low: 0, high: 1, roundToBytes: true)
        landmarks = try Model.named("hand_landmark_full.tflite", in: models)
    }

    func hands(in image: Image, maximumCount: Int, minimumScore: Double) throws -> [Hand] {
        let (width, height) = (image.width, image.height)
        var scratch = PixelBuffer(region: .empty, channels: image.channels)
        let detections = try palms.detect(image, minimumScore: minimumScore, scratch: &scratch)
        // The first palms (most confident); of two whose crops overlap by an IoU over 0.5, the later one
        // stays, as MediaPipe's AssociationNormRectCalculator keeps it.
        var regions: [TurnedSquare] = []
        for palm in detections.prefix(maximumCount) {
            let region = TurnedSquare(palm: palm, width: width, height: height)
            let bounds = region.bounds(width: width, height: height)
            regions.removeAll { other in
                let them = other.bounds(width: width, height: height)
                return AnchorDetector.iou(low: bounds.low, high: bounds.high, low: them.low, high: them.high) > 0.5
            }
            regions.append(region)
        }
        var hands: [Hand] = []
        for region in regions {
            let crop = try region.cut(roundToBytes: true).tensor(from: image, low: 0, high: 1, reusing: &scratch)
            let outputs = try landmarks.infer(crop, shape: [1, Int64(Self.side), Int64(Self.side), 3])
            guard outputs.count == 4, outputs[0].count == 63, outputs[1].count == 1, outputs[2].count == 1 else {
                throw VisionError("the hand landmark model's outputs are not the shape expected")
            }
            // Presence and handedness come out of the model already through a sigmoid.
            let presence = Double(outputs[1][0])
            guard presence >= 0.5 else { continue }
            let raw = outputs[0]
            var joints: [SIMD3<Double>] = []
            var confidences: [Double] = []
            for index in 0..<21 {
                let flat = region.image(SIMD2(Double(raw[index * 3]), Double(raw[index * 3 + 1])))
                // MediaPipe scales depth by 1/0.4 (its normalize_z) onto the crop's width.
                joints.append(SIMD3(flat.x, flat.y, Double(raw[index * 3 + 2]) / Double(Self.side) / 0.4 * region.side))
                // The model gives no per-joint score: a joint has the hand's, or 0 outside the image, where
                // it is only guessed.
                let inside = flat.x >= 0 && flat.y >= 0 && flat.x < Double(width) && flat.y < Double(height)
                confidences.append(inside ? presence : 0)
            }
            // The model names the hand as seen in a mirror (a selfie camera): its "left" is the subject's
            // right hand in an ordinary photo.
            let chirality: Hand.Chirality = outputs[2][0] >= 0.5 ? .right : .left
            hands.append(
                Hand(chirality: chirality, joints: joints, jointConfidences: confidences, confidence: presence))
        }
        return hands
    }
}

extension TurnedSquare {
    /// A hand's crop from its palm, as MediaPipe's palm_detection_detection_to_roi makes it: turned so the
    /// wrist is below the middle finger's base, moved half the palm's height toward the fingers, and 2.6
    /// times the palm's longer side.
    init(palm: AnchorDetector.Detection, width: Int, height: Int) {
        let size = SIMD2(Double(width), Double(height))
        let wrist = palm.keypoints[0] * size
        let finger = palm.keypoints[2] * size
        let rotation = Self.normalized(Double.pi / 2 - atan2(-(finger.y - wrist.y), finger.x - wrist.x))
        let box = (palm.maximum - palm.minimum) * size
        self.init(
            center: (palm.minimum + palm.maximum) / 2 * size + 0.5 * box.y * SIMD2(sin(rotation), -cos(rotation)),
            side: max(box.x, box.y) * 2.6, rotation: rotation, tensorSide: HandPose.side)
    }

    /// The crop's box before it is turned, normalized: what MediaPipe compares to tell two hands apart.
    func bounds(width: Int, height: Int) -> (low: SIMD2<Double>, high: SIMD2<Double>) {
        let size = SIMD2(Double(width), Double(height))
        return ((center - side / 2) / size, (center + side / 2) / size)
    }
}
