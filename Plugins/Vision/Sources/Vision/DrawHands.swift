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
        let boneColor = Canvas.color(color)
        let dotColor = Canvas.color(jointColor)
        let width = Float(lineWidth)
        let joints = Hand.Joint.allCases
        for hand in hands {
            func point(_ joint: Hand.Joint) -> SIMD2<Double>? {
                let index = joints.firstIndex(of: joint) ?? 0
                guard hand.jointConfidences[index] >= minimumConfidence else { return nil }
                return SIMD2(hand.joints[index].x, hand.joints[index].y)
            }
            for (from, to) in Hand.bones {
                guard let a = point(from), let b = point(to) else { continue }
                canvas.polyline([a, b], closed: false, width: width, color: boneColor)
            }
            for joint in joints {
                if let at = point(joint) { canvas.disc(at, radius: width, color: dotColor) }
            }
        }
        return NodeOutputs(["output": .image(Image(buffer: canvas.pixels, layout: .rgba, depth: input.depth))])
    }
}
