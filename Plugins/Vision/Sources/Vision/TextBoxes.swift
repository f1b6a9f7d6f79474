import Foundation

/// PaddleOCR's DB post-processing as rapidocr 1.4.4 runs it, from the detector's probability map to text
/// lines' quadrilaterals in the image's pixels, in reading order.
///
/// The map is thresholded at 0.3 and dilated by a 2 x 2 square (each region grows a pixel right and
/// down); each 8-connected region is a candidate (OpenCV's contours of it: only their convex hull
/// matters here, and a region's hull is that of its rows' end pixels). A candidate's minimum-area
/// rectangle, if its short side is at least 3, is scored by the mean probability inside it (kept from
/// 0.5), grown by `area * 1.6 / perimeter` on every side with round corners (pyclipper's offset, on
/// integer points), and its minimum-area rectangle again kept if its short side is at least 5. The holes
/// OpenCV's RETR_LIST also returns are left out: inside a text region they are under 0.3, so their
/// rectangles score under 0.5 unless a thin ring surrounds them.
enum TextBoxes {
    static func find(
        probabilities: [Float], width: Int, height: Int, imageWidth: Int, imageHeight: Int,
        threshold: Float = 0.3, boxThreshold: Double = 0.5, unclipRatio: Double = 1.6, maxCandidates: Int = 1000
    ) -> [(quad: [SIMD2<Double>], score: Double)] {
        var mask = [Bool](repeating: false, count: width * height)
        for y in 0..<height {
            for x in 0..<width {
                // Dilation: set where the pixel or its neighbour left, above or above-left is over.
                var on = probabilities[y * width + x] > threshold
                if !on, x > 0 { on = probabilities[y * width + x - 1] > threshold }
                if !on, y > 0 { on = probabilities[(y - 1) * width + x] > threshold }
                if !on, x > 0, y > 0 { on = probabilities[(y - 1) * width + x - 1] > threshold }
                mask[y * width + x] = on
            }
        }
        var found: [(quad: [SIMD2<Double>], score: Double)] = []
        for region in regions(mask, width: width, height: height).prefix(maxCandidates) {
            guard let (box, side) = minimumRectangle(region), side >= 3 else { continue }
            let score = meanInside(box, probabilities, width: width, height: height)
            guard score >= boxThreshold else { continue }
            guard let (grown, grownSide) = minimumRectangle(unclip(box, ratio: unclipRatio)), grownSide >= 5 else {
                continue
            }
            // To the image's pixels (NumPy's round, half to even), clamped.
            var quad = grown.map { point in
                SIMD2(
                    min(
                        max((point.x / Double(width) * Double(imageWidth)).rounded(.toNearestOrEven), 0),
                        Double(imageWidth)),
                    min(
                        max((point.y / Double(height) * Double(imageHeight)).rounded(.toNearestOrEven), 0),
                        Double(imageHeight)))
            }
            quad = ordered(quad).map {
                SIMD2(
                    Double(Int(min(max($0.x, 0), Double(imageWidth - 1)))),
                    Double(Int(min(max($0.y, 0), Double(imageHeight - 1)))))
            }
            func length(_ v: SIMD2<Double>) -> Int { Int(((v * v).sum()).squareRoot()) }
            guard length(quad[0] - quad[1]) > 3, length(quad[0] - quad[3]) > 3 else { continue }
            found.append((quad, score))
        }
        return readingOrder(found)
    }

    /// Each 8-connected region of `mask` as the pixels ending its rows (all its convex hull needs).
    static func regions(_ mask: [Bool], width: Int, height: Int) -> [[SIMD2<Double>]] {
        var label = [Int32](repeating: -1, count: mask.count)
        var result: [[SIMD2<Double>]] = []
        var stack: [Int] = []
        for start in mask.indices where mask[start] && label[start] < 0 {
            let id = Int32(result.count)
            label[start] = id
            stack.append(start)
            var ends: [Int: (Int, Int)] = [:]
            while let at = stack.popLast() {
                let (y, x) = at.quotientAndRemainder(dividingBy: width)
                let end = ends[y] ?? (x, x)
                ends[y] = (min(end.0, x), max(end.1, x))
                for dy in -1...1 {
                    for dx in -1...1 where dx != 0 || dy != 0 {
                        let (nx, ny) = (x + dx, y + dy)
                        guard nx >= 0, ny >= 0, nx < width, ny < height else { continue }
                        let next = ny * width + nx
                        if mask[next], label[next] < 0 {
                            label[next] = id
                            stack.append(next)
                        }
                    }
                }
            }
            result.append(
                ends.sorted { $0.key < $1.key }.flatMap { y, end in
                    [SIMD2(Double(end.0), Double(y)), SIMD2(Double(end.1), Double(y))]
                })
        }
        return result
    }

    /// The convex hull of `points`, counterclockwise in image coordinates (Andrew's monotone chain).
    static func hull(_ points: [SIMD2<Double>]) -> [SIMD2<Double>] {
        let sorted = points.sorted { $0.x != $1.x ? $0.x < $1.x : $0.y < $1.y }
        guard sorted.count > 2 else { return sorted }
        func cross(_ o: SIMD2<Double>, _ a: SIMD2<Double>, _ b: SIMD2<Double>) -> Double {
            (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x)
        }
        var lower: [SIMD2<Double>] = []
        for p in sorted {
            while lower.count >= 2, cross(lower[lower.count - 2], lower[lower.count - 1], p) <= 0 { lower.removeLast() }
            lower.append(p)
        }
        var upper: [SIMD2<Double>] = []
        for p in sorted.reversed() {
            while upper.count >= 2, cross(upper[upper.count - 2], upper[upper.count - 1], p) <= 0 { upper.removeLast() }
            upper.append(p)
        }
        return Array(lower.dropLast() + upper.dropLast())
    }

    /// OpenCV's minAreaRect and boxPoints, ordered as rapidocr's get_mini_boxes (top-left, top-right,
    /// bottom-right, bottom-left) with the short side; nil for no points.
    static func minimumRectangle(_ points: [SIMD2<Double>]) -> ([SIMD2<Double>], Double)? {
        let hull = hull(points)
        guard let first = hull.first else { return nil }
        guard hull.count > 1 else { return (Array(repeating: first, count: 4), 0) }
        var best: (area: Double, corners: [SIMD2<Double>], side: Double)?
        for index in hull.indices {
            let edge = hull[(index + 1) % hull.count] - hull[index]
            let length = (edge * edge).sum().squareRoot()
            guard length > 0 else { continue }
            let along = edge / length
            let across = SIMD2(-along.y, along.x)
            var (lowA, highA, lowB, highB) = (Double.infinity, -Double.infinity, Double.infinity, -Double.infinity)
            for p in hull {
                let a = (p * along).sum()
                let b = (p * across).sum()
                (lowA, highA, lowB, highB) = (min(lowA, a), max(highA, a), min(lowB, b), max(highB, b))
            }
            let area = (highA - lowA) * (highB - lowB)
            if area < best?.area ?? .infinity {
                let corners = [(lowA, lowB), (highA, lowB), (highA, highB), (lowA, highB)].map { a, b in
                    along * a + across * b
                }
                best = (area, corners, min(highA - lowA, highB - lowB))
            }
        }
        guard let best else { return (Array(repeating: first, count: 4), 0) }
        return (ordered(best.corners), best.side)
    }

    /// Four corners as top-left, top-right, bottom-right, bottom-left: the two leftmost (by x) are the left
    /// side, each side's upper one (smaller y) its top.
    static func ordered(_ corners: [SIMD2<Double>]) -> [SIMD2<Double>] {
        let byX = corners.sorted { $0.x < $1.x }
        let left = byX[0].y <= byX[1].y ? (byX[0], byX[1]) : (byX[1], byX[0])
        let right = byX[2].y <= byX[3].y ? (byX[2], byX[3]) : (byX[3], byX[2])
        return [left.0, right.0, right.1, left.1]
    }

    /// rapidocr's "fast" box score: the mean probability over the pixels of the box's bounding rectangle
    /// that the quad (its corners truncated to integers, as cv2.fillPoly takes them) covers.
    static func meanInside(_ box: [SIMD2<Double>], _ map: [Float], width: Int, height: Int) -> Double {
        let low = box.reduce(SIMD2(repeating: Double.infinity)) { pointwiseMin($0, $1) }
        let high = box.reduce(SIMD2(repeating: -Double.infinity)) { pointwiseMax($0, $1) }
        let x0 = min(max(Int(low.x.rounded(.down)), 0), width - 1)
        let x1 = min(max(Int(high.x.rounded(.up)), 0), width - 1)
        let y0 = min(max(Int(low.y.rounded(.down)), 0), height - 1)
        let y1 = min(max(Int(high.y.rounded(.up)), 0), height - 1)
        let polygon = box.map { SIMD2(Double(Int($0.x - Double(x0))), Double(Int($0.y - Double(y0)))) }
        var total = 0.0
        var count = 0
        for y in y0...y1 {
            for x in x0...x1 where inside(SIMD2(Double(x - x0), Double(y - y0)), polygon) {
                total += Double(map[y * width + x])
                count += 1
            }
        }
        return count > 0 ? total / Double(count) : 0
    }

    /// Whether `point` is inside the convex `polygon` or on its edge (as a filled polygon's pixels).
    static func inside(_ point: SIMD2<Double>, _ polygon: [SIMD2<Double>]) -> Bool {
        var sign = 0.0
        for index in polygon.indices {
            let a = polygon[index]
            let b = polygon[(index + 1) % polygon.count]
            let cross = (b.x - a.x) * (point.y - a.y) - (b.y - a.y) * (point.x - a.x)
            if abs(cross) < 1e-9 { continue }
            if sign == 0 { sign = cross } else if (sign > 0) != (cross > 0) { return false }
        }
        return true
    }

    /// The box grown by `area * ratio / perimeter` as pyclipper's round offset grows it: corners truncated
    /// to integers, each edge moved out, each corner an arc of points rounded to integers (arc tolerance
    /// 0.25).
    static func unclip(_ box: [SIMD2<Double>], ratio: Double) -> [SIMD2<Double>] {
        var area = 0.0
        var perimeter = 0.0
        for index in box.indices {
            let a = box[index]
            let b = box[(index + 1) % box.count]
            area += a.x * b.y - b.x * a.y
            perimeter += ((b - a) * (b - a)).sum().squareRoot()
        }
        guard perimeter > 0 else { return box }
        let delta = abs(area) / 2 * ratio / perimeter
        let points = box.map { SIMD2(Double(Int($0.x)), Double(Int($0.y))) }
        // Clipper's arc steps: a full turn in pi / acos(1 - 0.25 / delta) steps, at most delta * pi.
        var steps = Double.pi / acos(1 - min(0.25 / max(delta, 1e-9), 1))
        steps = min(steps, delta * Double.pi)
        let stepsPerRadian = steps / (2 * Double.pi)
        // Outward normals: the polygon's orientation decides which side is out.
        let signed = area >= 0 ? 1.0 : -1.0
        func normal(_ a: SIMD2<Double>, _ b: SIMD2<Double>) -> SIMD2<Double> {
            let d = b - a
            let length = (d * d).sum().squareRoot()
            guard length > 0 else { return .zero }
            return SIMD2(d.y, -d.x) / length * signed
        }
        var out: [SIMD2<Double>] = []
        let n = points.count
        for index in 0..<n {
            let p = points[index]
            let before = normal(points[(index + n - 1) % n], p)
            let after = normal(p, points[(index + 1) % n])
            let turn = atan2(before.x * after.y - before.y * after.x, (before * after).sum())
            let count = max(Int((stepsPerRadian * abs(turn)).rounded()), 1)
            for k in 0...count {
                let angle = atan2(before.y, before.x) + turn * Double(k) / Double(count)
                out.append((p + SIMD2(cos(angle), sin(angle)) * delta).rounded(.toNearestOrEven))
            }
        }
        return out
    }

    /// rapidocr's sorted_boxes: by the first corner's y then x, then neighbours less than 10 pixels apart
    /// in y put left to right.
    static func readingOrder(_ boxes: [(quad: [SIMD2<Double>], score: Double)]) -> [(
        quad: [SIMD2<Double>], score: Double
    )] {
        var sorted = boxes.sorted { a, b in
            a.quad[0].y != b.quad[0].y ? a.quad[0].y < b.quad[0].y : a.quad[0].x < b.quad[0].x
        }
        guard sorted.count > 1 else { return sorted }
        for i in 0..<(sorted.count - 1) {
            for j in stride(from: i, through: 0, by: -1) {
                if abs(sorted[j + 1].quad[0].y - sorted[j].quad[0].y) < 10,
                    sorted[j + 1].quad[0].x < sorted[j].quad[0].x
                {
                    sorted.swapAt(j, j + 1)
                } else {
                    break
                }
            }
        }
        return sorted
    }
}
