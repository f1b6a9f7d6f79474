import Foundation

/// Resampling as OpenCV does it on 8-bit images, for the text models' inputs: each result rounded to a
/// level of 1/255, as rapidocr's uint8 images are.
enum TextGeometry {
    /// An RGB image (3 samples a pixel, row by row) resized to `toWidth` x `toHeight` as `cv2.resize` with
    /// INTER_LINEAR: pixel centers aligned, edges replicated.
    static func resize(_ samples: [Float], width: Int, height: Int, toWidth: Int, toHeight: Int) -> [Float] {
        if width == toWidth, height == toHeight { return samples }
        func taps(_ count: Int, _ source: Int) -> [(Int, Int, Float)] {
            let scale = Double(source) / Double(count)
            return (0..<count).map { index in
                let position = (Double(index) + 0.5) * scale - 0.5
                let low = Int(position.rounded(.down))
                let weight = Float(position - Double(low))
                let a = min(max(low, 0), source - 1)
                let b = min(max(low + 1, 0), source - 1)
                return low < 0 ? (a, b, 0) : (a, b, low + 1 >= source ? 0 : weight)
            }
        }
        let columns = taps(toWidth, width)
        let rows = taps(toHeight, height)
        var out = [Float](repeating: 0, count: toWidth * toHeight * 3)
        samples.withUnsafeBufferPointer { source in
            out.withUnsafeMutableBufferPointer { out in
                for (y, (top, bottom, wy)) in rows.enumerated() {
                    for (x, (left, right, wx)) in columns.enumerated() {
                        for c in 0..<3 {
                            let upper =
                                source[(top * width + left) * 3 + c] * (1 - wx)
                                + source[(top * width + right) * 3 + c] * wx
                            let lower =
                                source[(bottom * width + left) * 3 + c] * (1 - wx)
                                + source[(bottom * width + right) * 3 + c] * wx
                            out[(y * toWidth + x) * 3 + c] = ((upper * (1 - wy) + lower * wy) * 255).rounded() / 255
                        }
                    }
                }
            }
        }
        return out
    }
}

/// A text line's quadrilateral cut out upright, as rapidocr's `get_rotate_crop_image` does: the quad
/// (top-left, top-right, bottom-right, bottom-left) onto a `width` x `height` rectangle as long and as high
/// as its longer opposite sides, by `cv2.warpPerspective` with INTER_CUBIC and a replicated border.
struct PerspectiveCut {
    let width: Int
    let height: Int
    /// Row-major 3 x 3: crop pixel (u, v, 1) to image (x, y, w).
    let transform: [Double]

    init(quad: [SIMD2<Double>]) {
        func distance(_ a: SIMD2<Double>, _ b: SIMD2<Double>) -> Double { ((a - b) * (a - b)).sum().squareRoot() }
        width = max(Int(max(distance(quad[0], quad[1]), distance(quad[2], quad[3]))), 1)
        height = max(Int(max(distance(quad[0], quad[3]), distance(quad[1], quad[2]))), 1)
        let corners = [
            SIMD2(0, 0), SIMD2(Double(width), 0), SIMD2(Double(width), Double(height)), SIMD2(0, Double(height)),
        ]
        transform = Self.perspective(from: corners, to: quad)
    }

    /// The homography taking each `from` point to its `to` point (OpenCV's getPerspectiveTransform): eight
    /// equations in eight unknowns, solved by Gaussian elimination with partial pivoting.
    static func perspective(from: [SIMD2<Double>], to: [SIMD2<Double>]) -> [Double] {
        var a = [[Double]](repeating: [Double](repeating: 0, count: 9), count: 8)
        for k in 0..<4 {
            let (x, y, u, v) = (from[k].x, from[k].y, to[k].x, to[k].y)
            a[k] = [x, y, 1, 0, 0, 0, -x * u, -y * u, u]
            a[k + 4] = [0, 0, 0, x, y, 1, -x * v, -y * v, v]
        }
        for column in 0..<8 {
            let pivot = (column..<8).max { abs(a[$0][column]) < abs(a[$1][column]) } ?? column
            a.swapAt(column, pivot)
            guard abs(a[column][column]) > 1e-12 else { continue }
            for row in 0..<8 where row != column {
                let factor = a[row][column] / a[column][column]
                for k in column..<9 { a[row][k] -= factor * a[column][k] }
            }
        }
        return (0..<8).map { abs(a[$0][$0]) > 1e-12 ? a[$0][8] / a[$0][$0] : 0 } + [1]
    }

    /// The crop's RGB samples (0...1 on 8-bit levels) from an RGB image in memory. Source positions are
    /// rounded to 1/32 of a pixel and the cubic weights are Keys' with a = -0.75, as OpenCV's.
    func sample(_ source: [Float], imageWidth: Int, imageHeight: Int) -> [Float] {
        let t = transform
        func weights(_ f: Double) -> SIMD4<Float> {
            let a = -0.75
            func near(_ x: Double) -> Double { ((a + 2) * x - (a + 3)) * x * x + 1 }
            func far(_ x: Double) -> Double { ((a * x - 5 * a) * x + 8 * a) * x - 4 * a }
            return SIMD4(Float(far(f + 1)), Float(near(f)), Float(near(1 - f)), Float(far(2 - f)))
        }
        var out = [Float](repeating: 0, count: width * height * 3)
        source.withUnsafeBufferPointer { source in
            for v in 0..<height {
                for u in 0..<width {
                    let (fu, fv) = (Double(u), Double(v))
                    let w = t[6] * fu + t[7] * fv + t[8]
                    let scale = w != 0 ? 1 / w : 0
                    let x = ((t[0] * fu + t[1] * fv + t[2]) * scale * 32).rounded() / 32
                    let y = ((t[3] * fu + t[4] * fv + t[5]) * scale * 32).rounded() / 32
                    let (x0, y0) = (Int(x.rounded(.down)), Int(y.rounded(.down)))
                    let wx = weights(x - Double(x0))
                    let wy = weights(y - Double(y0))
                    var rgb = SIMD3<Float>()
                    for j in 0..<4 {
                        let row = min(max(y0 - 1 + j, 0), imageHeight - 1) * imageWidth
                        var line = SIMD3<Float>()
                        for i in 0..<4 {
                            let at = (row + min(max(x0 - 1 + i, 0), imageWidth - 1)) * 3
                            line += SIMD3(source[at], source[at + 1], source[at + 2]) * wx[i]
                        }
                        rgb += line * wy[j]
                    }
                    let level = (rgb * 255).rounded(.toNearestOrAwayFromZero)
                    let clamped = pointwiseMin(pointwiseMax(level, .zero), SIMD3(repeating: 255)) / 255
                    let at = (v * width + u) * 3
                    (out[at], out[at + 1], out[at + 2]) = (clamped.x, clamped.y, clamped.z)
                }
            }
        }
        return out
    }
}
