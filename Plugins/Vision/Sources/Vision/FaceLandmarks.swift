import TesseraPluginSDK

/// Vision's face landmarks request: each face's 468-point mesh and its named regions.
struct FaceLandmarks: Node {
    static let info = NodeInfo(
        op: "faceLandmarks",
        summary:
            "Finds each face's 468-point mesh, its irises and Vision's named regions (eyes, brows, nose, lips, pupils "
            + "at the irises' centres, contour, median line), with everything detectFaces gives.",
        access: .global,
        outputs: [
            .init(
                "faces", .faces,
                doc: "The faces as detectFaces gives them, each with its mesh (landmarks) and its regions; faces "
                    + "the mesh model does not confirm are left out, as MediaPipe's face mesh does.")
        ],
        example: """
            photo: { op: load, path: photo.jpg }
            marks: { op: faceLandmarks, input: photo }
            drawn: { op: drawFaces, input: photo, faces: marks }
            a: { op: save, input: marks, path: landmarks.json }
            b: { op: save, input: drawn, path: landmarks.png }
            """)

    @Input(doc: "The photo, as stored (sRGB values); alpha is ignored.") var input: Image
    @Parameter(doc: "The face detector the meshes start from: short or full range (see detectFaces).")
    var range = FaceDetector.Range.short
    @Parameter(doc: "The lowest detector score kept, 0...1; unset: MediaPipe's own.", range: 0...1)
    var minimumConfidence: Double? = nil
    @Parameter(doc: DetectFaces.minimumFaceSizeDoc, range: 16...100_000, suggested: 20...200, unit: "px")
    var minimumFaceSize: Double? = nil
    @Parameter(doc: DetectFaces.modelsDoc) var models: FilePath? = nil

    func run() throws -> NodeOutputs {
        let faces = try FaceAnalysis(
            models: models?.resolved, range: range, tiled: minimumFaceSize != nil, irises: true
        ).faces(
            in: input, threshold: minimumConfidence, minimumFaceSize: minimumFaceSize, keepMesh: true)
        return NodeOutputs(["faces": .faces(faces.filter { !$0.landmarks.isEmpty })])
    }
}
