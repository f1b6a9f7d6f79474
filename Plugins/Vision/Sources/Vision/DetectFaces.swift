import TesseraPluginSDK

/// Finds faces, as Vision's face rectangles request with roll, yaw and pitch, and its face capture quality
/// request, do: MediaPipe's face detector, then its face mesh on each face for the pose and the quality.
struct DetectFaces: Node {
    static let info = NodeInfo(
        op: "detectFaces",
        summary:
            "Finds faces: box, confidence, six keypoints, roll, yaw and pitch, and capture quality (MediaPipe's "
            + "face detector and mesh on OpenVINO).",
        access: .global,
        outputs: [
            .init(
                "faces", .faces,
                doc: "The faces, most confident first: crop and drawBoxes take them as boxes, save writes them as "
                    + ".json. Angles in degrees in Vision's frame (roll counterclockwise, yaw toward the image's "
                    + "right, pitch down, each positive).")
        ],
        example: """
            photo: { op: load, path: photo.jpg }
            faces: { op: detectFaces, input: photo }
            face: { op: crop, input: photo, rect: { from: faces }, margin: 40 }
            a: { op: save, input: faces, path: faces.json }
            b: { op: save, input: face, path: face.png }
            """)

    @Input(doc: "The photo, as stored (sRGB values); alpha is ignored.") var input: Image
    @Parameter(
        doc: "short for faces within about 2 m of the camera, full for smaller, farther faces (MediaPipe's two "
            + "detectors).")
    var range = FaceDetector.Range.short
    @Parameter(
        doc: "The lowest detector score kept, 0...1; unset: MediaPipe's own, 0.5 for short and 0.6 for full (0.7 for "
            + "the faces minimumFaceSize finds on tiles).",
        range: 0...1)
    var minimumConfidence: Double? = nil
    @Parameter(doc: Self.minimumFaceSizeDoc, range: 16...100_000, suggested: 20...200, unit: "px")
    var minimumFaceSize: Double? = nil
    @Parameter(doc: Self.modelsDoc) var models: FilePath? = nil

    static let minimumFaceSizeDoc =
        "The smallest face to find, in pixels across: the full-range detector also runs on overlapping tiles of "
        + "the photo, finer for smaller faces, and the boxes are merged (slower: 20 on a 2048x1024 photo is 683 "
        + "detector runs); unset: once on the whole photo, as MediaPipe does, which misses faces under about a "
        + "tenth (full) or a sixth (short) of the photo's longer side."
    static let modelsDoc =
        "The folder holding the models; unset: TESSERA_VISION_MODELS, else runtime/models beside the plugin."

    func run() throws -> NodeOutputs {
        let faces = try FaceAnalysis(models: models?.resolved, range: range, tiled: minimumFaceSize != nil).faces(
            in: input, threshold: minimumConfidence, minimumFaceSize: minimumFaceSize, keepMesh: false)
        return NodeOutputs(["faces": .faces(faces)])
    }
}

/// Detection, mesh, pose and quality, shared by detectFaces and faceLandmarks.
struct FaceAnalysis {
    let detector: FaceDetector
    /// The full-range detector run on tiles, when small faces are asked for.
    let tiler: FaceDetector?
    let mesh: FaceMesh
    /// The iris model, for faceLandmarks' pupils.
    let iris: IrisModel?

    init(models: String?, range: FaceDetector.Range, tiled: Bool = false, irises: Bool = false) throws {
        let folder = ModelFolder.resolve(models)
        detector = try FaceDetector(range: range, models: folder)
        tiler = tiled ? try FaceDetector(range: .full, models: folder) : nil
        mesh = try FaceMesh(models: folder)
        iris = irises ? try IrisModel(models: folder) : nil
    }

    /// Every detected face, with its pose and quality from its mesh; the mesh itself kept when asked. A
    /// face whose mesh the model does not find (presence under 0.5) keeps its box and keypoints, with roll
    /// from its eyes, yaw and pitch 0, and quality 0.
    func faces(in image: Image, threshold: Double?, minimumFaceSize: Double? = nil, keepMesh: Bool) throws -> [Face] {
        let (width, height) = (image.width, image.height)
        let size = SIMD2(Double(width), Double(height))
        var faces: [Face] = []
        var scratch = PixelBuffer(region: .empty, channels: image.channels)
        var detections = try detector.detect(image, threshold: threshold, scratch: &scratch)
        if let minimumFaceSize, let tiler {
            detections = try tiler.tiled(
                image, adding: detections, threshold: threshold, minimumFaceSize: minimumFaceSize, scratch: &scratch)
        }
        for detection in detections {
            let low = detection.minimum * size
            let extent = (detection.maximum - detection.minimum) * size
            var face = Face(
                box: Box(x: low.x, y: low.y, width: extent.x, height: extent.y, confidence: detection.score),
                keypoints: detection.keypoints.map { $0 * size })
            let region = FaceMesh.Region(face: detection, width: width, height: height)
            let (points, crop) = try mesh.landmarks(image, region: region, scratch: &scratch)
            if let points {
                // The pose from a second mesh, its crop leveled by the first: a turned photo then turns the
                // roll by the same angle (within a degree or two, not four).
                let leveled =
                    try mesh.landmarks(image, region: region.leveled(by: points), scratch: &scratch).points ?? points
                (face.roll, face.yaw, face.pitch) = FacePose.angles(leveled)
                face.captureQuality =
                    CaptureQuality.terms(
                        crop: crop, mesh: points, roll: face.roll, yaw: face.yaw, pitch: face.pitch, boxWidth: extent.x
                    ).quality
                if keepMesh { face.landmarks = points }
                if let iris { face.irises = try iris.irises(image, mesh: points, scratch: &scratch) }
            } else {
                face.roll = -region.rotation * 180 / Double.pi
            }
            faces.append(face)
        }
        return faces
    }
}
