import Foundation
import TesseraPluginSDK

/// Finds people and their body pose, as Vision's body pose request does: MediaPipe's pose detector, then
/// its pose landmark model on a crop around each person, turned upright.
struct DetectBodyPose: Node {
    static let info = NodeInfo(
        op: "detectBodyPose",
        summary:
            "Finds people's body poses: 33 named joints each with a visibility, and Vision's 19 joints read from them "
            + "(MediaPipe's pose detector and pose landmark model on OpenVINO).",
        access: .global,
        outputs: [
            .init(
                "bodies", .bodies,
                doc: "The bodies, the pose detector's most confident first: drawBodies draws them, crop and drawBoxes "
                    + "take them as boxes (around the joints seen), save writes them as .json. Left and right are the "
                    + "subject's own.")
        ],
        example: """
            photo: { op: load, path: photo.jpg }
            bodies: { op: detectBodyPose, input: photo }
            drawn: { op: drawBodies, input: photo, bodies: bodies }
            a: { op: save, input: bodies, path: bodies.json }
            b: { op: save, input: drawn, path: bodies.png }
            """)

    @Input(doc: "The photo, as stored (sRGB values); alpha is ignored.") var input: Image
    @Parameter(
        doc: "The most bodies returned: the landmark model runs once on each person the detector finds, up to this.",
        range: 1...100, suggested: 1...10)
    var maximumBodyCount = 4
    @Parameter(doc: "The lowest pose detector score kept, 0...1 (MediaPipe's min_detection_confidence).", range: 0...1)
    var minimumConfidence = 0.5
    @Parameter(doc: DetectFaces.modelsDoc) var models: FilePath? = nil

    func run() throws -> NodeOutputs {
        let bodies = try BodyPose(models: ModelFolder.resolve(models?.resolved)).bodies(
            in: input, maximumCount: maximumBodyCount, minimumScore: minimumConfidence)
        return NodeOutputs(["bodies": .bodies(bodies)])
    }
}

/// MediaPipe's pose solution on still images (`static_image_mode`, `model_complexity` 1): people detected
/// on the whole image, each turned into a square crop along the body, and the landmark model run once on
/// each crop. MediaPipe's solution stops at the most confident person; here every person found up to a
/// count gets its crop, as its PoseLandmarker task does with `num_poses`.
struct BodyPose {
    let people: AnchorDetector
    let landmarks: Model
    static let side = 256
    /// The landmark model's heatmap: 64 x 64 cells, one channel for each of its 39 points.
    static let heatmapSide = 64
    static let points = 39

    init(models: String) throws {
        // SSD anchors of 5 layers on a 224 x 224 input, strides 8, 16, 32, 32, 32, two anchors a layer (the
        // last three share a 7 x 7 map): 2254 anchors, four keypoints each (the hips' middle, a point whose
        // distance from it is the body's size and whose direction its rotation, then the same two for the
        // upper body).
        people = AnchorDetector(
            model: try Model.named("pose_detection.tflite", in: models), side: 224, maps: [(28, 2), (14, 2), (7, 6)],
            keypointCount: 4, low: -1, high: 1, roundToBytes: true)
        landmarks = try Model.named("pose_landmark_full.tflite", in: models)
    }

    func bodies(in image: Image, maximumCount: Int, minimumScore: Double) throws -> [Body] {
        let (width, height) = (image.width, image.height)
        var scratch = PixelBuffer(region: .empty, channels: image.channels)
        let detections = try people.detect(image, minimumScore: minimumScore, scratch: &scratch)
        var bodies: [Body] = []
        for person in detections.prefix(maximumCount) {
            let region = TurnedSquare(person: person, width: width, height: height)
            let crop = try region.cut(roundToBytes: true).tensor(from: image, low: 0, high: 1, reusing: &scratch)
            let outputs = try landmarks.infer(crop, shape: [1, Int64(Self.side), Int64(Self.side), 3])
            // The outputs by their sizes: landmarks (39 x 5), the pose flag, the segmentation, the heatmap
            // and the world landmarks (39 x 3).
            let heatmapCount = Self.heatmapSide * Self.heatmapSide * Self.points
            guard let raw = outputs.first(where: { $0.count == Self.points * 5 }),
                let flag = outputs.first(where: { $0.count == 1 }),
                let heatmap = outputs.first(where: { $0.count == heatmapCount })
            else {
                throw VisionError("the pose landmark model's outputs are not the shape expected")
            }
            // The flag comes out of the model already through a sigmoid; MediaPipe drops the pose under 0.5.
            let presence = Double(flag[0])
            guard presence >= 0.5 else { continue }
            var joints: [SIMD3<Double>] = []
            var visibilities: [Double] = []
            var presences: [Double] = []
            for index in 0..<Body.Joint.allCases.count {
                let base = index * 5
                let guess = SIMD2(Double(raw[base]), Double(raw[base + 1])) / Double(Self.side)
                let point = Self.refined(guess, index, heatmap) * Double(Self.side)
                let flat = region.image(point)
                joints.append(SIMD3(flat.x, flat.y, Double(raw[base + 2]) / Double(Self.side) * region.side))
                visibilities.append(Self.sigmoid(raw[base + 3]))
                presences.append(Self.sigmoid(raw[base + 4]))
            }
            bodies.append(
                Body(joints: joints, visibilities: visibilities, presences: presences, confidence: presence))
        }
        return bodies
    }

    static func sigmoid(_ x: Float) -> Double { 1 / (1 + exp(-Double(x))) }

    /// A point (0...1 across the crop) moved to the centre of mass of its heatmap's 7 x 7 cells around it, as
    /// MediaPipe's RefineLandmarksFromHeatmapCalculator does: when the most confident of those cells is at
    /// least 0.5, the cells' indices weighted by their sigmoid confidences. A point off the heatmap stays.
    static func refined(_ point: SIMD2<Double>, _ channel: Int, _ heatmap: [Float]) -> SIMD2<Double> {
        let side = heatmapSide
        // C++'s conversion to int, toward zero, as MediaPipe's, so a point just left of the crop refines too.
        let (column, row) = (Int(point.x * Double(side)), Int(point.y * Double(side)))
        guard column >= 0, column < side, row >= 0, row < side else { return point }
        var sum = 0.0
        var weighted = SIMD2<Double>.zero
        var most = 0.0
        for y in max(0, row - 3)..<min(side, row + 4) {
            for x in max(0, column - 3)..<min(side, column + 4) {
                let confidence = Float(sigmoid(heatmap[(y * side + x) * points + channel]))
                sum += Double(confidence)
                most = max(most, Double(confidence))
                weighted += SIMD2(Double(x), Double(y)) * Double(confidence)
            }
        }
        guard most >= 0.5, sum > 0 else { return point }
        return weighted / Double(side) / sum
    }
}

extension TurnedSquare {
    /// A person's crop from their detection, as MediaPipe's pose_detection_to_roi makes it: centred on the
    /// hips' middle, turned so the body's axis (from the hips to the size point) points up, and 1.25 times
    /// twice the distance between the two.
    init(person: AnchorDetector.Detection, width: Int, height: Int) {
        let size = SIMD2(Double(width), Double(height))
        let hips = person.keypoints[0] * size
        let top = person.keypoints[1] * size
        let axis = top - hips
        self.init(
            center: hips, side: 2 * (axis * axis).sum().squareRoot() * 1.25,
            rotation: Self.normalized(Double.pi / 2 - atan2(-axis.y, axis.x)), tensorSide: BodyPose.side)
    }
}
