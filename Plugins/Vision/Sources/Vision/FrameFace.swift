import TesseraPluginSDK

/// Frames a face as a portrait or an identity photo is framed: a rectangle of a given aspect ratio in
/// which the head (chin to crown) takes a given share of the height, centered on the face's median line,
/// with more room below the chin than above the crown. Its box feeds `crop`; the head's share and the
/// eyes' height it achieved are outputs a `require` node can check.
struct FrameFace: Node {
    static let info = NodeInfo(
        op: "frameFace",
        summary:
            "Frames the first face at an aspect ratio with the head at a share of the height (a passport or portrait "
            + "crop); falls back to other boxes when there is no face.",
        access: .global,
        outputs: [
            .init("frame", .boxes, doc: "One box: the frame, inside the image, its confidence the face's."),
            .init(
                "headHeight", .number,
                doc: "Chin to crown over the frame's height, as framed (less than asked when the image is too small)."),
            .init("eyeHeight", .number, doc: "The eyes' height above the frame's bottom edge over its height."),
        ],
        example: """
            photo: { op: load, path: photo.jpg }
            faces: { op: detectFaces, input: photo }
            frame: { op: frameFace, input: photo, faces: faces, aspectRatio: 4:3, headHeight: 0.5 }
            portrait: { op: crop, input: photo, rect: { from: frame.frame } }
            out: { op: save, input: portrait, path: portrait.jpg }
            """)

    @Input(doc: "The image being framed: the frame stays inside it.", readsPixels: false) var input: Image
    @Input(
        doc: "The faces; the first (most confident) is framed. With a mesh (faceLandmarks) the chin and brow are "
            + "the mesh's, else estimated from the box.")
    var faces: [Face]
    @Input(doc: "A person mask (segmentPeople): the crown is where it ends above the face; else estimated.")
    var mask: Image?
    @Input(doc: "Boxes framed instead when there is no face (saliency's); without them no face stops the run.")
    var fallback: [Box]?
    @Parameter(
        doc: "Width over height of the frame: 35:45 for a passport photo, 4:3 for a landscape portrait.",
        range: 0.1...10)
    var aspectRatio = Ratio.terms(width: 35, height: 45)
    @Parameter(doc: "Chin to crown as a share of the frame's height.", range: 0.05...1)
    var headHeight = 0.75
    @Parameter(doc: "The share of the frame's free height (outside the head) that lies above the crown.", range: 0...1)
    var topShare = 0.4

    func run() throws -> NodeOutputs {
        let extent = SIMD2(Double(input.width), Double(input.height))
        guard let face = faces.first else {
            guard let box = fallback?.first else {
                throw NodeProblem(parameter: "faces", "there is no face to frame")
            }
            let frame = fit(
                center: SIMD2(box.x + box.width / 2, box.y + box.height / 2),
                height: max(box.height, box.width / aspectRatio.value), extent: extent)
            return outputs(frame, confidence: box.confidence, head: 0, eyes: 0)
        }
        // The head's vertical extent, along the image's y.
        let (chin, brow) = Self.chinAndBrow(face)
        var crown = brow - (chin - brow) * 0.5  // the brow-to-chin span is about two thirds of the head
        if let mask {
            crown = try Self.crown(in: mask, above: face, brow: brow) ?? crown
        }
        let head = chin - crown
        let height = head / headHeight
        let top = crown - (height - head) * topShare
        let centerX =
            face.landmarks.count == Face.meshPoints
            ? (face.landmarks[10].x + face.landmarks[152].x) / 2 : face.box.x + face.box.width / 2
        let frame = fit(center: SIMD2(centerX, top + height / 2), height: height, extent: extent)
        let eyes = (face.keypoint(.rightEye).y + face.keypoint(.leftEye).y) / 2
        return outputs(
            frame, confidence: face.box.confidence, head: head / frame.height,
            eyes: (frame.y + frame.height - eyes) / frame.height)
    }

    func outputs(_ frame: Box, confidence: Double, head: Double, eyes: Double) -> NodeOutputs {
        var box = frame
        box.confidence = confidence
        return NodeOutputs(["frame": .boxes([box]), "headHeight": .number(head), "eyeHeight": .number(eyes)])
    }

    /// A frame of the aspect ratio and `height` around `center`, shrunk to fit the image when it is larger,
    /// then moved inside it.
    func fit(center: SIMD2<Double>, height: Double, extent: SIMD2<Double>) -> Box {
        let ratio = aspectRatio.value
        let scale = min(1, extent.y / height, extent.x / (height * ratio))
        let size = SIMD2(height * ratio, height) * scale
        var origin = center - size / 2
        origin = pointwiseMin(pointwiseMax(origin, .zero), extent - size)
        return Box(x: origin.x, y: origin.y, width: size.x, height: size.y)
    }

    /// The chin's and the brow's image y: the mesh's chin point and the top of its forehead when the face has
    /// a mesh; else the box's bottom and a point a fifth of the box above its top.
    static func chinAndBrow(_ face: Face) -> (Double, Double) {
        if face.landmarks.count == Face.meshPoints { return (face.landmarks[152].y, face.landmarks[10].y) }
        return (face.box.y + face.box.height, face.box.y - face.box.height * 0.2)
    }

    /// The top of the person mask above the face: the highest row, in the middle fifth of the face's width,
    /// where the mask is still at least 0.5 in a run reaching down to the brow. Only that column of the
    /// mask, down to the brow, is read.
    static func crown(in mask: Image, above face: Face, brow: Double) throws -> Double? {
        let middle = face.box.x + face.box.width / 2
        let low = max(Int(middle - face.box.width / 10), 0)
        let high = min(Int(middle + face.box.width / 10), mask.width - 1)
        guard low <= high else { return nil }
        var row = min(max(Int(brow), 0), mask.height - 1)
        let column = try mask.pixels(in: Rect(x: low, y: 0, width: high - low + 1, height: row + 1))
        let (width, channels) = (column.region.width, column.channels)
        func covered(_ y: Int) -> Bool {
            var sum: Float = 0
            for x in 0..<width { sum += column.samples[(y * width + x) * channels] }
            return sum / Float(width) >= 0.5
        }
        guard covered(row) else { return nil }
        while row > 0, covered(row - 1) { row -= 1 }
        return Double(row)
    }
}
