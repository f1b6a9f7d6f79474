/// A face found in an image, as Vision's face observations carry it: a box, the pose angles, a capture
/// quality, six keypoints, and optionally the 468-point face mesh from which Vision's named landmark
/// regions are read. Coordinates are pixels of the analysed image, origin top-left, y down.
///
/// Angles are degrees in Vision's right-handed frame (x to the image's right, y up, z toward the viewer):
/// - `roll`, about z: positive when the face is turned counterclockwise as the image is seen;
/// - `yaw`, about y: positive when the face turns toward the image's right (the subject's left);
/// - `pitch`, about x: positive when the face tilts down (chin toward the chest).
/// "Left" and "right" of keypoints and regions are the subject's own, as Vision and MediaPipe name them:
/// the right eye is on the image's left.
public struct Face: Sendable, Equatable {
    /// The six points a face detector gives, in this order.
    public enum Keypoint: String, CaseIterable, Sendable {
        case rightEye, leftEye, noseTip, mouth, rightEar, leftEar
    }

    /// The face's box; its confidence is the detector's.
    public var box: Box
    public var roll: Double
    public var yaw: Double
    public var pitch: Double
    /// How suitable the face is for a portrait or an identity photo, 0...1 (Vision's face capture quality;
    /// the detector that made the face documents its formula).
    public var captureQuality: Double
    /// One point per ``Keypoint``, in its order.
    public var keypoints: [SIMD2<Double>]
    /// The face mesh (MediaPipe's 468-point topology: x, y in pixels, z relative depth in pixels, negative
    /// toward the camera), or empty when it was not computed.
    public var landmarks: [SIMD3<Double>]
    /// The irises, the subject's left then right, each its centre (x, y in pixels) and its radius in pixels
    /// (MediaPipe's iris model); empty when they were not computed. The pupils are their centres.
    public var irises: [SIMD3<Double>]

    public init(
        box: Box, roll: Double = 0, yaw: Double = 0, pitch: Double = 0, captureQuality: Double = 0,
        keypoints: [SIMD2<Double>], landmarks: [SIMD3<Double>] = [], irises: [SIMD3<Double>] = []
    ) {
        self.box = box
        self.roll = roll
        self.yaw = yaw
        self.pitch = pitch
        self.captureQuality = captureQuality
        self.keypoints = keypoints
        self.landmarks = landmarks
        self.irises = irises
    }

    public func keypoint(_ which: Keypoint) -> SIMD2<Double> {
        keypoints[Keypoint.allCases.firstIndex(of: which) ?? 0]
    }

    /// How many points a mesh has.
    public static let meshPoints = 468

    /// Vision's named landmark regions as indices into the mesh: closed outlines (eyes, eyebrows, nose,
    /// lips) and open lines (the jaw's contour, the nose's crest, the face's median line). A pupil is one
    /// point: its iris's centre, or without irises the middle of its eye's outline. Ordered from the mesh's topology (MediaPipe's
    /// face_mesh_connections), each region walking its outline once.
    public static let regions: [(name: String, indices: [Int])] = [
        (
            "faceContour",
            [
                127, 234, 93, 132, 58, 172, 136, 150, 149, 176, 148, 152, 377, 400, 378, 379, 365, 397, 288, 361, 323,
                454, 356,
            ]
        ),
        ("leftEye", [263, 249, 390, 373, 374, 380, 381, 382, 362, 398, 384, 385, 386, 387, 388, 466]),
        ("rightEye", [33, 7, 163, 144, 145, 153, 154, 155, 133, 173, 157, 158, 159, 160, 161, 246]),
        ("leftEyebrow", [276, 283, 282, 295, 285, 336, 296, 334, 293, 300]),
        ("rightEyebrow", [46, 53, 52, 65, 55, 107, 66, 105, 63, 70]),
        ("nose", [4, 45, 220, 115, 48, 64, 98, 97, 2, 326, 327, 294, 278, 344, 440, 275]),
        ("noseCrest", [168, 6, 197, 195, 5, 4, 1]),
        (
            "medianLine",
            [
                10, 151, 9, 8, 168, 6, 197, 195, 5, 4, 1, 19, 94, 2, 164, 0, 11, 12, 13, 14, 15, 16, 17, 18, 200, 199,
                175, 152,
            ]
        ),
        ("outerLips", [61, 146, 91, 181, 84, 17, 314, 405, 321, 375, 291, 409, 270, 269, 267, 0, 37, 39, 40, 185]),
        ("innerLips", [78, 95, 88, 178, 87, 14, 317, 402, 318, 324, 308, 415, 310, 311, 312, 13, 82, 81, 80, 191]),
    ]

    /// The regions' points in pixels, with the pupils (`leftPupil`, `rightPupil`) last; empty without a mesh.
    public var regionPoints: [(name: String, points: [SIMD2<Double>])] {
        guard landmarks.count == Self.meshPoints else { return [] }
        var result = Self.regions.map { region in
            (name: region.name, points: region.indices.map { SIMD2(landmarks[$0].x, landmarks[$0].y) })
        }
        for (index, (pupil, eye)) in [("leftPupil", "leftEye"), ("rightPupil", "rightEye")].enumerated() {
            if irises.count == 2 {
                result.append((pupil, [SIMD2(irises[index].x, irises[index].y)]))
                continue
            }
            guard let outline = result.first(where: { $0.name == eye })?.points else { continue }
            result.append((pupil, [outline.reduce(SIMD2<Double>(), +) / Double(outline.count)]))
        }
        return result
    }
}
