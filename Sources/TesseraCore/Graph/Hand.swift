/// A hand found in an image, as Vision's hand pose observations carry it: 21 joints named as Vision names
/// them, each with a confidence, and the hand's chirality. Coordinates are pixels of the analysed image,
/// origin top-left, y down; a joint's `z` is its depth relative to the wrist, in pixels on the scale of x,
/// negative toward the camera.
public struct Hand: Sendable, Equatable {
    /// Vision's joint names (`VNHumanHandPoseObservation.JointName`), in the order ``joints`` holds them:
    /// the wrist, then each finger from its base to its tip.
    public enum Joint: String, CaseIterable, Sendable {
        case wrist
        case thumbCMC, thumbMP, thumbIP, thumbTip
        case indexMCP, indexPIP, indexDIP, indexTip
        case middleMCP, middlePIP, middleDIP, middleTip
        case ringMCP, ringPIP, ringDIP, ringTip
        case littleMCP, littlePIP, littleDIP, littleTip
    }

    /// Which hand it is: the subject's own, as Vision's `VNChirality`.
    public enum Chirality: String, CaseIterable, Sendable {
        case left, right, unknown
    }

    /// The box around the joints; its confidence is the hand's.
    public var box: Box
    public var chirality: Chirality
    /// One point per ``Joint``, in its order: x, y in pixels, z relative depth.
    public var joints: [SIMD3<Double>]
    /// One confidence per joint, 0...1.
    public var jointConfidences: [Double]

    public init(chirality: Chirality, joints: [SIMD3<Double>], jointConfidences: [Double], confidence: Double) {
        self.chirality = chirality
        self.joints = joints
        self.jointConfidences = jointConfidences
        box = Box(around: joints.map(\.x), joints.map(\.y), confidence: confidence)
    }

    public func joint(_ which: Joint) -> SIMD3<Double> {
        joints[Joint.allCases.firstIndex(of: which) ?? 0]
    }

    /// The skeleton's bones: from the wrist to each finger's base and along each finger, and across the
    /// knuckles, as hand pose drawings connect them.
    public static let bones: [(Joint, Joint)] = {
        let fingers: [[Joint]] = [
            [.wrist, .thumbCMC, .thumbMP, .thumbIP, .thumbTip],
            [.wrist, .indexMCP, .indexPIP, .indexDIP, .indexTip],
            [.middleMCP, .middlePIP, .middleDIP, .middleTip],
            [.ringMCP, .ringPIP, .ringDIP, .ringTip],
            [.wrist, .littleMCP, .littlePIP, .littleDIP, .littleTip],
            [.indexMCP, .middleMCP, .ringMCP, .littleMCP],
        ]
        return fingers.flatMap { chain in zip(chain, chain.dropFirst()).map { ($0, $1) } }
    }()
}
