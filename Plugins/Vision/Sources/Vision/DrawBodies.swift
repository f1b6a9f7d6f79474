import TesseraPluginSDK

/// Draws body poses over a photo: each body's skeleton, its bones as lines and its joints as dots, the
/// subject's left and right in two colors as MediaPipe draws them.
struct DrawBodies: Node {
    static let info = NodeInfo(
        op: "drawBodies",
        summary: "Draws body poses over an image: the bones between their joints, and the joints (left and right "
            + "in two colors).",
        access: .global,
        outputs: [.init("output", .image, doc: "The image with the bodies drawn, in color with alpha.")],
        example: """
            photo: { op: load, path: photo.jpg }
            bodies: { op: detectBodyPose, input: photo }
            drawn: { op: drawBodies, input: photo, bodies: bodies }
            out: { op: save, input: drawn, path: bodies.png }
            """)

    @Input(doc: "The image to draw on.") var input: Image
    @Input(doc: "The bodies, from detectBodyPose, in pixels of this image.") var bodies: [Body]
    @Parameter(doc: "Bone color: red, green, blue and alpha, 0...1.", range: 0...1)
    var color = [1.0, 1, 1, 1]
    @Parameter(doc: "Color of the subject's left joints: red, green, blue and alpha, 0...1.", range: 0...1)
    var leftColor = [1.0, 0.54, 0, 1]
    @Parameter(
        doc: "Color of the subject's right joints (and the nose): red, green, blue and alpha, 0...1.", range: 0...1)
    var rightColor = [0.0, 0.85, 0.9, 1]
    @Parameter(
        doc: "Line width in pixels; joints are drawn twice as wide.", range: 0.5...100, suggested: 1...8, unit: "px")
    var lineWidth = 3.0
    @Parameter(
        doc: "The lowest visibility and presence of a joint drawn, 0...1 (MediaPipe draws from 0.5): joints below "
            + "it (hidden, or guessed outside the image) and their bones are left out.",
        range: 0...1)
    var minimumVisibility = 0.5

    func run() throws -> NodeOutputs {
        var canvas = Canvas(try input.pixels(), layout: input.layout)
        let left = Canvas.color(leftColor)
        let right = Canvas.color(rightColor)
        let colors = Body.Joint.allCases.map { $0.rawValue.lowercased().contains("left") ? left : right }
        let bones = Canvas.indices(Body.bones)
        for body in bodies {
            let points = body.joints.indices.map { index in
                min(body.visibilities[index], body.presences[index]) >= minimumVisibility
                    ? SIMD2(body.joints[index].x, body.joints[index].y) : nil
            }
            canvas.skeleton(
                points, bones: bones, width: Float(lineWidth), boneColor: Canvas.color(color), jointColors: colors)
        }
        return NodeOutputs(["output": .image(Image(buffer: canvas.pixels, layout: .rgba, depth: input.depth))])
    }
}
