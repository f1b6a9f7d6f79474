/// A person's body pose found in an image, as Vision's body pose observations carry it: MediaPipe's 33
/// named joints, each with its visibility and presence, and Vision's 19 joint names read from them
/// (``visionJoints``). Coordinates are pixels of the analysed image, origin top-left, y down; a joint's `z`
/// is its depth relative to the middle of the hips, in pixels on the scale of x, negative toward the camera.
/// Left and right are the subject's own, as both MediaPipe and Vision name them.
public struct Body: Sendable, Equatable {
    /// MediaPipe's 33 pose landmarks, in its order, named in lowerCamelCase.
    public enum Joint: String, CaseIterable, Sendable {
        case nose
        case leftEyeInner, leftEye, leftEyeOuter, rightEyeInner, rightEye, rightEyeOuter
        case leftEar, rightEar, mouthLeft, mouthRight
        case leftShoulder, rightShoulder, leftElbow, rightElbow, leftWrist, rightWrist
        case leftPinky, rightPinky, leftIndex, rightIndex, leftThumb, rightThumb
        case leftHip, rightHip, leftKnee, rightKnee, leftAnkle, rightAnkle
        case leftHeel, rightHeel, leftFootIndex, rightFootIndex
    }

    /// Vision's joint names (`VNHumanBodyPoseObservation.JointName`), each with the joints it is read from:
    /// one, or two for `neck` (between the shoulders) and `root` (between the hips), as Vision places them.
    public static let visionJoints: [(name: String, from: [Joint])] = [
        ("nose", [.nose]), ("leftEye", [.leftEye]), ("rightEye", [.rightEye]), ("leftEar", [.leftEar]),
        ("rightEar", [.rightEar]), ("leftShoulder", [.leftShoulder]), ("rightShoulder", [.rightShoulder]),
        ("neck", [.leftShoulder, .rightShoulder]), ("leftElbow", [.leftElbow]), ("rightElbow", [.rightElbow]),
        ("leftWrist", [.leftWrist]), ("rightWrist", [.rightWrist]), ("root", [.leftHip, .rightHip]),
        ("leftHip", [.leftHip]), ("rightHip", [.rightHip]), ("leftKnee", [.leftKnee]), ("rightKnee", [.rightKnee]),
        ("leftAnkle", [.leftAnkle]), ("rightAnkle", [.rightAnkle]),
    ]

    /// The lowest visibility of a joint counted as seen: the box is around the joints seen.
    public static let seen = 0.5

    /// The box around the joints seen (visibility at least ``seen``), or around all of them when none is;
    /// its confidence is the body's.
    public var box: Box
    /// One point per ``Joint``, in its order: x, y in pixels, z relative depth.
    public var joints: [SIMD3<Double>]
    /// One per joint, 0...1: how likely the joint is visible, not hidden by the body or something else.
    public var visibilities: [Double]
    /// One per joint, 0...1: how likely the joint is inside the image at all.
    public var presences: [Double]

    public init(joints: [SIMD3<Double>], visibilities: [Double], presences: [Double], confidence: Double) {
        self.joints = joints
        self.visibilities = visibilities
        self.presences = presences
        let seen = zip(joints, visibilities).filter { $0.1 >= Self.seen }.map(\.0)
        let points = seen.isEmpty ? joints : seen
        box = Box(around: points.map(\.x), points.map(\.y), confidence: confidence)
    }

    public func joint(_ which: Joint) -> SIMD3<Double> {
        joints[Joint.allCases.firstIndex(of: which) ?? 0]
    }

    public func visibility(_ which: Joint) -> Double {
        visibilities[Joint.allCases.firstIndex(of: which) ?? 0]
    }

    /// Vision's 19 joints in ``visionJoints``' order: each the mean of the joints it is read from, with the
    /// lowest of their visibilities as its confidence.
    public var visionPoints: [(name: String, point: SIMD2<Double>, confidence: Double)] {
        Self.visionJoints.map { name, from in
            let sum = from.reduce(SIMD2<Double>.zero) { $0 + SIMD2(joint($1).x, joint($1).y) }
            return (name, sum / Double(from.count), from.map { visibility($0) }.min() ?? 0)
        }
    }

    /// The skeleton's bones as MediaPipe's pose drawing connects them: the face, the arms and hands, the
    /// trunk, the legs and feet.
    public static let bones: [(Joint, Joint)] = {
        let chains: [[Joint]] = [
            [
                .rightEar, .rightEyeOuter, .rightEye, .rightEyeInner, .nose, .leftEyeInner, .leftEye, .leftEyeOuter,
                .leftEar,
            ],
            [.mouthRight, .mouthLeft],
            [.rightWrist, .rightElbow, .rightShoulder, .leftShoulder, .leftElbow, .leftWrist],
            [.rightWrist, .rightPinky, .rightIndex, .rightWrist, .rightThumb],
            [.leftWrist, .leftPinky, .leftIndex, .leftWrist, .leftThumb],
            [.rightShoulder, .rightHip, .leftHip, .leftShoulder],
            [.rightHip, .rightKnee, .rightAnkle, .rightHeel, .rightFootIndex, .rightAnkle],
            [.leftHip, .leftKnee, .leftAnkle, .leftHeel, .leftFootIndex, .leftAnkle],
        ]
        return chains.flatMap { chain in zip(chain, chain.dropFirst()).map { ($0, $1) } }
    }()
}
