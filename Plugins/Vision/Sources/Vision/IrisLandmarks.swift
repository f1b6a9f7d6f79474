import Foundation
import TesseraPluginSDK

/// MediaPipe's iris model (iris_landmark.tflite): from a 64 x 64 crop around an eye, the eye's contour and
/// five iris points, the centre first. Its crops follow MediaPipe's iris graph
/// (iris_landmark_left_and_right_from_face_landmarks): the square around the eye's two corners (mesh
/// points 33 and 133 for the eye on the image's left, 362 and 263 for the other), 2.3 times their
/// distance along x or y, whichever is longer, turned so the corners are level, edges replicated; the
/// model knows only eyes on the image's left, so the other eye's crop is mirrored and its points
/// mirrored back.
struct IrisModel {
    let model: Model
    static let side = 64

    init(models: String) throws {
        model = try Model.named("iris_landmark.tflite", in: models)
    }

    /// The irises of the face whose mesh is `mesh`: the subject's left (on the image's right) then right,
    /// each its centre and radius (the mean distance from the centre to the other four iris points) in
    /// pixels.
    func irises(_ image: Image, mesh: [SIMD3<Double>], scratch: inout PixelBuffer) throws -> [SIMD3<Double>] {
        var found: [SIMD3<Double>] = []
        // The subject's left eye (image right, mirrored), then the right one.
        for (first, second, mirrored) in [(362, 263, true), (33, 133, false)] {
            let a = SIMD2(mesh[first].x, mesh[first].y)
            let b = SIMD2(mesh[second].x, mesh[second].y)
            let span = SIMD2(Swift.abs(b.x - a.x), Swift.abs(b.y - a.y))
            let region = TurnedSquare(
                center: (a + b) / 2, side: 2.3 * max(span.x, span.y),
                rotation: TurnedSquare.normalized(-atan2(-(b.y - a.y), b.x - a.x)), tensorSide: Self.side)
            var cut = region.cut()
            if mirrored {
                // Tensor column u samples the crop's column 63 - u.
                cut.origin += Double(Self.side - 1) * cut.across
                cut.across = -cut.across
            }
            let tensor = try cut.tensor(from: image, low: 0, high: 1, reusing: &scratch)
            let outputs = try model.infer(tensor, shape: [1, Int64(Self.side), Int64(Self.side), 3])
            guard let iris = outputs.first(where: { $0.count == 15 }), outputs.contains(where: { $0.count == 213 })
            else {
                throw VisionError("the iris model's outputs are not the shape expected")
            }
            let points = (0..<5).map { index in
                let x = Double(iris[index * 3])
                return region.image(SIMD2(mirrored ? Double(Self.side) - x : x, Double(iris[index * 3 + 1])))
            }
            let centre = points[0]
            var radius = 0.0
            for point in points.dropFirst() {
                let offset = point - centre
                radius += (offset * offset).sum().squareRoot() / 4
            }
            found.append(SIMD3(centre.x, centre.y, radius))
        }
        return found
    }
}
