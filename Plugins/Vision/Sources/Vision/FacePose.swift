import Foundation
import TesseraPluginSDK

/// A face's pose from its mesh, in Vision's frame (x right, y up, z toward the viewer; see `Face`).
///
/// The face's own axes are read from the mesh's 3-D points: across, the mean of the vectors from the
/// subject's right to left over five symmetric pairs (outer and inner eye corners, temples, cheeks, mouth
/// corners); up, from the middle of the mouth's corners to the middle of the eyes' outer corners (points
/// at about the same depth, so a level face has it upright), made square to across; and the facing
/// direction, their cross product. Yaw is the facing direction's turn toward +x, pitch its drop toward -y,
/// roll the across axis' turn in the image plane. Symmetric pairs make a mirrored face give the negated
/// yaw and roll, whatever the mesh's small asymmetries.
enum FacePose {
    /// (subject's left, subject's right) mesh indices.
    static let pairs = [(263, 33), (362, 133), (356, 127), (454, 234), (291, 61)]
    static let mouthCorners = (291, 61)
    static let outerEyeCorners = (263, 33)

    static func angles(_ mesh: [SIMD3<Double>]) -> (roll: Double, yaw: Double, pitch: Double) {
        // Vision's frame: y up, z toward the viewer (the mesh's z is negative toward the camera).
        func point(_ index: Int) -> SIMD3<Double> { SIMD3(mesh[index].x, -mesh[index].y, -mesh[index].z) }
        var across = SIMD3<Double>()
        for (left, right) in pairs { across += point(left) - point(right) }
        across = normalized(across)
        var up =
            (point(outerEyeCorners.0) + point(outerEyeCorners.1)) / 2 - (point(mouthCorners.0) + point(mouthCorners.1))
            / 2
        up = normalized(up - (up * across).sum() * across)
        let facing = cross(across, up)
        let degrees = 180 / Double.pi
        let yaw = atan2(facing.x, facing.z) * degrees
        let pitch = atan2(-facing.y, (facing.x * facing.x + facing.z * facing.z).squareRoot()) * degrees
        let roll = atan2(across.y, across.x) * degrees
        return (roll, yaw, pitch)
    }

    static func normalized(_ v: SIMD3<Double>) -> SIMD3<Double> {
        let length = (v * v).sum().squareRoot()
        return length > 0 ? v / length : v
    }

    static func cross(_ a: SIMD3<Double>, _ b: SIMD3<Double>) -> SIMD3<Double> {
        SIMD3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x)
    }
}

/// Face capture quality, 0...1: how suitable a face is for a portrait or an identity photo, as Vision's
/// face capture quality request rates it. The geometric mean of five terms, each 0...1, so that any one
/// bad term pulls the whole down:
/// - sharpness: the variance of the Laplacian of the face's luma in the mesh's 192 x 192 crop (the face at
///   a fixed scale), `v / (v + 0.0005)`: blur and upscaled small faces lower it;
/// - exposure: the face's mean luma against mid-gray, `1 - |mean - 0.5| / 0.5`, times the share of its
///   pixels that are not clipped (under 2 % or over 98 %);
/// - pose: `cos(yaw) * cos(pitch) * cos(roll)`, squared, 0 beyond 90 degrees: a face turned, tilted or leaning
///   away from the camera is less useful;
/// - eyes open: each eye's opening (lid to lid) over its width, from 0 at 0.08 (closed) to 1 at 0.2, the
///   less open eye counting;
/// - size: the face box's width from 0 at 24 pixels to 1 at 96.
/// The face is the middle half of the crop (the crop is 1.5 times the face box).
enum CaptureQuality {
    struct Terms {
        var sharpness: Double
        var exposure: Double
        var pose: Double
        var eyesOpen: Double
        var size: Double

        var quality: Double {
            let terms = [sharpness, exposure, pose, eyesOpen, size].map { max($0, 1e-3) }
            return min(max(exp(terms.map(log).reduce(0, +) / Double(terms.count)), 0), 1)
        }
    }

    static func terms(
        crop: [Float], mesh: [SIMD3<Double>], roll: Double, yaw: Double, pitch: Double, boxWidth: Double
    ) -> Terms {
        let side = FaceMesh.side
        let (low, high) = (side / 4, side * 3 / 4)
        func luma(_ x: Int, _ y: Int) -> Double {
            let at = (y * side + x) * 3
            return 0.299 * Double(crop[at]) + 0.587 * Double(crop[at + 1]) + 0.114 * Double(crop[at + 2])
        }
        var sum = 0.0
        var squares = 0.0
        var count = 0.0
        var lumaSum = 0.0
        var clipped = 0.0
        for y in low..<high {
            for x in low..<high {
                let center = luma(x, y)
                let laplacian = luma(x - 1, y) + luma(x + 1, y) + luma(x, y - 1) + luma(x, y + 1) - 4 * center
                sum += laplacian
                squares += laplacian * laplacian
                count += 1
                lumaSum += center
                if center < 0.02 || center > 0.98 { clipped += 1 }
            }
        }
        let mean = sum / count
        let variance = squares / count - mean * mean
        let sharpness = variance / (variance + 0.0005)
        let exposure = max(0, 1 - abs(lumaSum / count - 0.5) / 0.5) * (1 - clipped / count)
        let radians = Double.pi / 180
        let facing = max(0, cos(yaw * radians)) * max(0, cos(pitch * radians)) * max(0, cos(roll * radians))
        func opening(_ top: Int, _ bottom: Int, _ corner1: Int, _ corner2: Int) -> Double {
            func flat(_ i: Int) -> SIMD2<Double> { SIMD2(mesh[i].x, mesh[i].y) }
            let height = flat(top) - flat(bottom)
            let width = flat(corner1) - flat(corner2)
            let ratio = (height * height).sum().squareRoot() / max((width * width).sum().squareRoot(), 1e-9)
            return min(max((ratio - 0.08) / 0.12, 0), 1)
        }
        let eyes = min(opening(386, 374, 263, 362), opening(159, 145, 33, 133))
        let size = min(max((boxWidth - 24) / 72, 0), 1)
        return Terms(sharpness: sharpness, exposure: exposure, pose: facing * facing, eyesOpen: eyes, size: size)
    }
}
