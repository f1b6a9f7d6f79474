import TesseraPluginSDK

/// Draws hands over a photo: each hand's skeleton, its bones as lines and its joints as dots.
struct DrawHands: Node {
    static let info = NodeInfo(
        op: "drawHands",
        summary: "Draws hands over an image: the bones between their joints, and the joints.",
        access: .global,
        outputs: [.init("output", .image, doc: "The image with the hands drawn, in color with alpha.")],
        example: """
            photo: { op: load, path: photo.jpg }
            hands: { op: detectHandPose, input: photo }
            drawn: { op: drawHands, input: photo, hands: hands }
            out: { op: save, input: drawn, path: hands.png }
            """)

    @Input(doc: "The image to draw on.") var input: Image
    @Input(doc: "The hands, from detectHandPose, in pixels of this image.") var hands: [Hand]
    @Parameter(doc: "Bone color: red, green, blue and alpha, 0...1.", range: 0...1)
    var color = [0.1, 0.9, 0.3, 1]
    @Parameter(doc: "Joint color: red, green, blue and alpha, 0...1.", range: 0...1)
    var jointColor = [1.0, 0.85, 0, 1]
    @Parameter(
        doc: "Line width in pixels; joints are drawn twice as wide.", range: 0.5...100, suggested: 1...8, unit: "px")
    var lineWidth = 2.0
    @Parameter(
        doc: "The lowest joint confidence drawn, 0...1: joints below it (outside the image) and their bones are "
            + "left out.",
        range: 0...1)
    var minimumConfidence = 0.01

    func run() throws -> NodeOutputs {
        var canvas = Canvas(try input.pixels(), layout: input.layout)
        let dotColor = Canvas.color(jointColor)
        let bones = Canvas.indices(Hand.bones)
        for hand in hands {
            let points = zip(hand.joints, hand.jointConfidences).map { joint, confidence in
                confidence >= minimumConfidence ? SIMD2(joint.x, joint.y) : nil
            }
            canvas.skeleton(
                points, bones: bones, width: Float(lineWidth), boneColor: Canvas.color(color),
                jointColors: points.map { _ in dotColor })
        }
        return NodeOutputs(["output": .image(Image(buffer: canvas.pixels, layout: .rgba, depth: input.depth))])
    }
}

extension Canvas {
    /// A skeleton: each bone between two joints drawn as a line `width` wide, then each joint as a disc as
    /// wide as two lines, in its color; a joint that is nil is left out, with its bones.
    mutating func skeleton(
        _ points: [SIMD2<Double>?], bones: [(Int, Int)], width: Float, boneColor: SIMD4<Float>,
        jointColors: [SIMD4<Float>]
    ) {
        for (from, to) in bones {
            guard let a = points[from], let b = points[to] else { continue }
            polyline([a, b], closed: false, width: width, color: boneColor)
        }
        for (point, color) in zip(points, jointColors) {
            if let point { disc(point, radius: width, color: color) }
        }
    }

    /// Bones named by joints as indices into the joints' cases.
    static func indices<Joint: CaseIterable & Equatable>(_ bones: [(Joint, Joint)]) -> [(Int, Int)] {
        let joints = Array(Joint.allCases)
        return bones.map { (joints.firstIndex(of: $0) ?? 0, joints.firstIndex(of: $1) ?? 0) }
    }
}
