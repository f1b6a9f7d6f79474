import TesseraCore

/// Suzuki and Abe's border following (1985, "Topological structural analysis of digitized binary images
/// by border following"), with the full hierarchy: the algorithm behind OpenCV's `findContours`.
///
/// On the same mask it gives what `findContours(mask, RETR_TREE, CHAIN_APPROX_NONE)` gives (OpenCV 4.x):
///
/// - every non-zero pixel is foreground; the image is surrounded by a one-pixel frame of background
///   (OpenCV 4 pads the image so), so shapes touching the edge keep their edge pixels and the frame is
///   the root "hole" every top-level outer border lies in;
/// - borders are 8-connected: foreground pixels touching at a corner belong to one component, and
///   background pixels (holes) are 4-connected;
/// - each contour starts at the pixel where the raster scan (rows top to bottom, columns left to right)
///   meets it: an outer border at its first foreground pixel, a hole border at the foreground pixel left
///   of the hole's first background pixel. Points follow the border counterclockwise on screen for outer
///   borders (y down) and clockwise for holes, every border pixel once per visit, without repeating
///   the first;
/// - the order is OpenCV's: depth first from the top-level contours, parents before children, and
///   siblings (contours with the same parent) in the reverse of the order the scan met them, because
///   OpenCV inserts each new contour at the front of its parent's list of children.
///
/// - Cost: one pass over the padded mask as 32-bit labels (4 bytes a pixel), plus each border pixel
///   visited a few times; no recursion.
enum BorderFollowing {
    /// Every border of `mask` (`width * height` bytes, row by row; non-zero is foreground).
    static func trace(mask: [UInt8], width: Int, height: Int) -> [Contours.Contour] {
        guard width > 0, height > 0, mask.count >= width * height else { return [] }
        let stride = width + 2
        // Labels: 0 background, 1 foreground not yet on a border, ±(k + 2) on border k; negative where the
        // pixel to the right is background that border k's following examined (Suzuki-Abe's -NBD).
        var labels = [Int32](repeating: 0, count: stride * (height + 2))
        for y in 0..<height {
            let row = (y + 1) * stride + 1
            for x in 0..<width where mask[y * width + x] != 0 { labels[row + x] = 1 }
        }
        var found: [(points: [SIMD2<Int32>], isHole: Bool, parent: Int)] = []
        labels.withUnsafeMutableBufferPointer { buffer in
            guard let labels = buffer.baseAddress else { return }
            for y in 1...height {
                let row = y * stride
                var previous: Int32 = 0
                var lastBorder: Int32 = 1  // LNBD: 1 stands for the frame
                var x = 1
                while x <= width {
                    let value = labels[row + x]
                    defer { x += 1 }
                    if value == previous { continue }
                    let isOuter = previous == 0 && value == 1
                    let isHole = value == 0 && previous >= 1
                    guard isOuter || isHole else {
                        previous = value
                        if abs(value) >= 2 { lastBorder = value }
                        continue
                    }
                    if isHole && previous >= 2 { lastBorder = previous }
                    let parent: Int
                    if lastBorder == 1 {
                        parent = -1
                    } else {
                        let neighbour = Int(abs(lastBorder)) - 2
                        // Two outer borders (or two holes) are siblings; otherwise the border met last
                        // encloses the new one. The frame counts as a hole.
                        parent = found[neighbour].isHole == isHole ? found[neighbour].parent : neighbour
                    }
                    let start = row + x - (isHole ? 1 : 0)
                    let label = Int32(found.count + 2)
                    let points = follow(
                        labels, stride: stride, start: start, isHole: isHole, label: label,
                        origin: SIMD2(Int32(x - 1 - (isHole ? 1 : 0)), Int32(y - 1)))
                    found.append((points, isHole, parent))
                    lastBorder = labels[start]
                    previous = labels[row + x]
                }
            }
        }
        return ordered(found)
    }

    /// Freeman directions, counterclockwise on screen from east: E, NE, N, NW, W, SW, S, SE.
    static let steps: [SIMD2<Int32>] = [[1, 0], [1, -1], [0, -1], [-1, -1], [-1, 0], [-1, 1], [0, 1], [1, 1]]

    /// Follows the border through the pixel at `start` (Suzuki-Abe step 3), labelling it, and returns its
    /// points in image coordinates (`origin` is `start`'s).
    static func follow(
        _ labels: UnsafeMutablePointer<Int32>, stride: Int, start: Int, isHole: Bool, label: Int32,
        origin: SIMD2<Int32>
    ) -> [SIMD2<Int32>] {
        let offsets = [1, 1 - stride, -stride, -1 - stride, -1, stride - 1, stride, stride + 1]
        // The background neighbour the scan came from: west of an outer border's first pixel, east of a
        // hole border's. Look clockwise from it for the first foreground neighbour.
        let from = isHole ? 0 : 4
        var direction = from
        var first = start
        repeat {
            direction = (direction + 7) & 7
            first = start + offsets[direction]
        } while labels[first] == 0 && direction != from
        if labels[first] == 0 {
            labels[start] = -label  // a single pixel
            return [origin]
        }
        var points: [SIMD2<Int32>] = []
        var point = origin
        var current = start
        while true {
            // Counterclockwise from the pixel we came from, the next foreground neighbour.
            let came = direction
            var next = current
            var step = came
            repeat {
                step += 1
                next = current + offsets[step & 7]
            } while labels[next] == 0 && step < came + 8
            direction = step & 7
            if step > 8 {
                // The search passed east (direction 8) and found background there.
                labels[current] = -label
            } else if labels[current] == 1 {
                labels[current] = label
            }
            points.append(point)
            point &+= steps[direction]
            if next == start && current == first { break }
            current = next
            direction = (direction + 4) & 7
        }
        return points
    }

    /// The contours in OpenCV's order: depth first, siblings newest first.
    static func ordered(_ found: [(points: [SIMD2<Int32>], isHole: Bool, parent: Int)]) -> [Contours.Contour] {
        var children = [[Int]](repeating: [], count: found.count)
        var roots: [Int] = []
        for index in found.indices.reversed() {
            if found[index].parent < 0 { roots.append(index) } else { children[found[index].parent].append(index) }
        }
        var order: [Int] = []
        order.reserveCapacity(found.count)
        var stack = Array(roots.reversed())
        while let index = stack.popLast() {
            order.append(index)
            stack += children[index].reversed()
        }
        var position = [Int](repeating: 0, count: found.count)
        for (new, old) in order.enumerated() { position[old] = new }
        return order.map { old in
            let item = found[old]
            return Contours.Contour(
                points: item.points.map { SIMD2(Double($0.x), Double($0.y)) },
                parent: item.parent < 0 ? -1 : position[item.parent],
                children: children[old].map { position[$0] }, isHole: item.isHole)
        }
    }
}
