import Foundation
import Testing

@testable import Tessera

/// vignette.yaml and tilt-shift.yaml on the coffee photo (600x400, RGB), checked against the effects
/// computed here from the photo's samples.
extension ExampleGraphTests {
    static let coffeePath = repositoryRoot.appendingPathComponent("Examples/images/coffee.png").path
    static let coffeeWidth = 600
    static let coffeeHeight = 400

    /// vignette.yaml: the photo times an oval mask, `1 - 0.7 smoothstep((d - 0.3) / 0.5)` with `d` the
    /// distance from the centre in fractions of the width and height, over black: every sample within
    /// half a level (the PNG's rounding). And what a user sees: the centre untouched, the corners under
    /// half the photo (0.42 measured), and the falloff an oval: equal on an ellipse with the photo's aspect,
    /// where a rectangular vignette would darken the diagonals sooner.
    static func checkVignette(_ written: [Float]) throws {
        let photo = try pixels(coffeePath)
        let (width, height) = (coffeeWidth, coffeeHeight)
        #expect(written.count == photo.count && photo.count == width * height * 4)
        func mask(_ x: Double, _ y: Double) -> Float {
            let d =
                ((x / Double(width) - 0.5) * (x / Double(width) - 0.5)
                + (y / Double(height) - 0.5) * (y / Double(height) - 0.5)).squareRoot()
            let t = min(max((d - 0.3) / 0.5, 0), 1)
            return Float(1 - 0.7 * t * t * (3 - 2 * t))
        }
        var largest: Float = 0
        for y in 0..<height {
            for x in 0..<width {
                let m = mask(Double(x) + 0.5, Double(y) + 0.5)
                for c in 0..<3 {
                    let i = (y * width + x) * 4 + c
                    largest = max(largest, abs(written[i] - photo[i] * m))
                }
            }
        }
        #expect(largest < 0.5 / 255 + 1e-4, "max \(largest * 255) levels")
        // The mean brightness of a 24x24 patch around (x, y), written over photo.
        func dimming(_ x: Int, _ y: Int) -> Float {
            var (out, original): (Float, Float) = (0, 0)
            for py in max(0, y - 12)..<min(height, y + 12) {
                for px in max(0, x - 12)..<min(width, x + 12) {
                    for c in 0..<3 {
                        out += written[(py * width + px) * 4 + c]
                        original += photo[(py * width + px) * 4 + c]
                    }
                }
            }
            return out / original
        }
        #expect(abs(dimming(300, 200) - 1) < 0.01, "the centre is kept")
        for (x, y) in [(12, 12), (588, 12), (12, 388), (588, 388)] {
            #expect(dimming(x, y) < 0.5, "corner (\(x), \(y)): \(dimming(x, y))")
        }
        // On the ellipse of relative radius 0.45, at the axes and the diagonals: the same dimming.
        let onEllipse = stride(from: 0.0, to: 2 * Double.pi, by: Double.pi / 4).map { angle in
            dimming(Int(300 + 0.45 * 600 * cos(angle)), Int(200 + 0.45 * 400 * sin(angle)))
        }
        let spread = (onEllipse.max() ?? 0) - (onEllipse.min() ?? 1)
        #expect(spread < 0.03, "dimming along the ellipse \(onEllipse)")
        #expect((onEllipse.max() ?? 1) < 0.9, "dimming along the ellipse \(onEllipse)")
    }

    /// The saturation matrix of tilt-shift.yaml, clamped as the PNG stores it.
    static func saturated(_ photo: [Float], at i: Int) -> SIMD3<Float> {
        let (r, g, b) = (photo[i], photo[i + 1], photo[i + 2])
        let value = SIMD3<Float>(
            1.23622 * r - 0.21456 * g - 0.02166 * b, -0.06378 * r + 1.08544 * g - 0.02166 * b,
            -0.06378 * r - 0.21456 * g + 1.27834 * b)
        return value.clamped(lowerBound: SIMD3(repeating: 0), upperBound: SIMD3(repeating: 1))
    }

    /// tilt-shift.yaml: in the band where the mask is 0 (rows whose distance from 0.55 of the height is
    /// under a sixth of it, less a margin), the photo with only the saturation raised, within half a
    /// level; away from it, detail (the mean difference between horizontal neighbours) falls steadily:
    /// under a third of the photo's in the top and bottom 30 rows, and between the two halfway.
    static func checkTiltShift(_ written: [Float]) throws {
        let photo = try pixels(coffeePath)
        let (width, height) = (coffeeWidth, coffeeHeight)
        #expect(written.count == photo.count && photo.count == width * height * 4)
        var largest: Float = 0
        for y in 160..<280 {
            for x in 0..<width {
                let i = (y * width + x) * 4
                let expected = saturated(photo, at: i)
                for c in 0..<3 { largest = max(largest, abs(written[i + c] - expected[c])) }
            }
        }
        #expect(largest < 0.5 / 255 + 1e-4, "the sharp band: max \(largest * 255) levels")
        func detail(_ image: (Int) -> SIMD3<Float>, rows: Range<Int>) -> Float {
            var sum: Float = 0
            for y in rows {
                for x in 1..<width {
                    let d = image((y * width + x) * 4) - image((y * width + x - 1) * 4)
                    sum += abs(d.x) + abs(d.y) + abs(d.z)
                }
            }
            return sum / Float(rows.count * (width - 1))
        }
        let out = { (i: Int) in SIMD3(written[i], written[i + 1], written[i + 2]) }
        let sharp = { (i: Int) in saturated(photo, at: i) }
        for rows in [0..<30, 370..<400] {
            let ratio = detail(out, rows: rows) / detail(sharp, rows: rows)
            #expect(ratio < 0.33, "rows \(rows): \(ratio) of the detail is left")
        }
        let (top, middle, band) = (
            detail(out, rows: 0..<30) / detail(sharp, rows: 0..<30),
            detail(out, rows: 90..<120) / detail(sharp, rows: 90..<120),
            detail(out, rows: 200..<230) / detail(sharp, rows: 200..<230)
        )
        #expect(top < middle && middle < band && abs(band - 1) < 0.01, "\(top), \(middle), \(band)")
    }
}
