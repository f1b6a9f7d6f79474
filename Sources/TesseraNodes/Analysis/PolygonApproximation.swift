/// Ramer-Douglas-Peucker simplification of a closed polyline, point for point as OpenCV 4.6's
/// `approxPolyDP(curve, epsilon, closed: true)`.
///
/// OpenCV's variant, which this follows so that the same contour gives the same polygon:
///
/// 1. the curve is cut at two far-apart points: from the first point, the farthest one, then the
///    farthest from that, then the farthest from that (three rounds); if no point is farther than
///    `epsilon` from the last start, the result is that one point;
/// 2. the two arcs are split recursively (depth first, the first half of each split first) at the point
///    farthest from the chord's line, until every point of an arc lies within `epsilon` of its chord's
///    line; each arc then keeps its first point;
/// 3. a clean-up pass walks the result once and drops a point that lies within `epsilon / sqrt(2)` of the
///    line through its neighbours when that chord is diagonal (neither horizontal nor vertical) and the
///    point lies between them, writing the survivors over the array in place, as OpenCV does.
///
/// - Cost: O(n log n) for typical contours, O(n^2) at worst (a spiral), as any RDP.
enum PolygonApproximation {
    static func closed(_ curve: [SIMD2<Double>], epsilon: Double) -> [SIMD2<Double>] {
        let count = curve.count
        guard count > 0 else { return [] }
        let squared = epsilon * epsilon
        var result: [SIMD2<Double>] = []
        result.reserveCapacity(Swift.min(count, 64))

        // 1. Two far-apart points.
        var start = 0
        var farthest = 0
        var withinEpsilon = false
        for _ in 0..<3 {
            start = (start + farthest) % count
            let origin = curve[start]
            var largest = 0.0
            // `farthest` is not reset: OpenCV keeps the last round's when no point is farther than 0.
            for offset in 1..<Swift.max(count, 1) {
                let d = curve[(start + offset) % count] - origin
                let distance = d.x * d.x + d.y * d.y
                if distance > largest {
                    largest = distance
                    farthest = offset
                }
            }
            withinEpsilon = largest <= squared
        }
        // Arcs as (first, last) indices, walked forward with wrap-around; popped from the end.
        var stack: [(first: Int, last: Int)] = []
        if withinEpsilon {
            result.append(curve[start])
        } else {
            let middle = (start + farthest) % count
            stack.append((middle, start))
            stack.append((start, middle))
        }

        // 2. Split arcs until each is within epsilon of its chord.
        while let arc = stack.popLast() {
            let first = curve[arc.first]
            let last = curve[arc.last]
            var position = (arc.first + 1) % count
            var keep = true
            var split = arc.first
            if position != arc.last {
                let chord = last - first
                var largest = 0.0
                while position != arc.last {
                    let p = curve[position]
                    let distance = abs((p.y - first.y) * chord.x - (p.x - first.x) * chord.y)
                    if distance > largest {
                        largest = distance
                        split = position
                    }
                    position = (position + 1) % count
                }
                keep = largest * largest <= squared * (chord.x * chord.x + chord.y * chord.y)
            }
            if keep {
                result.append(first)
            } else {
                stack.append((split, arc.last))
                stack.append((arc.first, split))
            }
        }

        // 3. Drop points on nearly straight diagonal runs, in place with wrap-around, as OpenCV does.
        let total = result.count
        var remaining = total
        guard total > 2 else { return result }
        var read = total - 1
        func next() -> SIMD2<Double> {
            let value = result[read]
            read = read + 1 >= total ? 0 : read + 1
            return value
        }
        var previous = next()
        var write = read
        var point = next()
        var i = 0
        while i < total && remaining > 2 {
            let following = next()
            let chord = following - previous
            let distance = abs((point.x - previous.x) * chord.y - (point.y - previous.y) * chord.x)
            let between =
                (point.x - previous.x) * (following.x - point.x) + (point.y - previous.y) * (following.y - point.y)
            if distance * distance <= 0.5 * squared * (chord.x * chord.x + chord.y * chord.y) && chord.x != 0
                && chord.y != 0 && between >= 0
            {
                remaining -= 1
                result[write] = following
                previous = following
                write = write + 1 >= total ? 0 : write + 1
                point = next()
                i += 2
                continue
            }
            result[write] = point
            previous = point
            write = write + 1 >= total ? 0 : write + 1
            point = following
            i += 1
        }
        return Array(result[0..<remaining])
    }
}
