import TesseraCore

extension Saliency {
    /// The salient boxes of a heat map whose values are stretched to 0...1, in the pixels of an image of
    /// `imageWidth` x `imageHeight` that the map covers.
    ///
    /// 1. Cells at or above `threshold` are salient; NaN cells are not.
    /// 2. Salient cells touching by an edge or a corner form one region (8-connected components).
    /// 3. Each region's box covers its cells, mapped to the image (cell `x` spans `x * imageWidth /
    ///    size` to `(x + 1) * imageWidth / size`); its weight is the sum of its cells' values.
    /// 4. Boxes that overlap (share any area) are merged into the box covering both, their weights
    ///    added, until none overlap.
    /// 5. A box's confidence is its weight over the weight of all boxes: confidences are in 0...1 and
    ///    add up to 1, so a lone region is certain and clutter that takes little of the map scores
    ///    low. The boxes are sorted by confidence, highest first (ties: top to bottom, left to right),
    ///    and the first `limit` are kept.
    static func boxes(
        in map: PixelBuffer, threshold: Float, limit: Int, imageWidth: Int, imageHeight: Int
    ) -> [Box] {
        let width = map.region.width
        let height = map.region.height
        let values = map.samples
        var region = [Int](repeating: -1, count: width * height)
        // Per region: the covered cells' bounds (minX, minY, maxX, maxY, exclusive max) and weight.
        var found: [(bounds: SIMD4<Int>, weight: Double)] = []
        var stack: [Int] = []
        for start in 0..<(width * height) where region[start] < 0 && values[start] >= threshold {
            let label = found.count
            var bounds = SIMD4(Int.max, Int.max, Int.min, Int.min)
            var weight = 0.0
            region[start] = label
            stack.append(start)
            while let cell = stack.popLast() {
                let x = cell % width
                let y = cell / width
                bounds = SIMD4(
                    Swift.min(bounds[0], x), Swift.min(bounds[1], y), Swift.max(bounds[2], x + 1),
                    Swift.max(bounds[3], y + 1))
                weight += Double(values[cell])
                for dy in -1...1 {
                    for dx in -1...1 {
                        let nx = x + dx
                        let ny = y + dy
                        guard nx >= 0, nx < width, ny >= 0, ny < height else { continue }
                        let next = ny * width + nx
                        if region[next] < 0 && values[next] >= threshold {
                            region[next] = label
                            stack.append(next)
                        }
                    }
                }
            }
            found.append((bounds, weight))
        }

        // Merge overlapping boxes until none overlap (merging can make a box overlap another).
        var merged = true
        while merged {
            merged = false
            outer: for i in found.indices {
                for j in found.indices where j > i {
                    let a = found[i].bounds
                    let b = found[j].bounds
                    if Swift.max(a[0], b[0]) < Swift.min(a[2], b[2]) && Swift.max(a[1], b[1]) < Swift.min(a[3], b[3]) {
                        found[i] = (
                            SIMD4(
                                Swift.min(a[0], b[0]), Swift.min(a[1], b[1]), Swift.max(a[2], b[2]),
                                Swift.max(a[3], b[3])),
                            found[i].weight + found[j].weight
                        )
                        found.remove(at: j)
                        merged = true
                        break outer
                    }
                }
            }
        }

        let total = found.reduce(0) { $0 + $1.weight }
        let ranked = found.sorted { a, b in
            if a.weight != b.weight { return a.weight > b.weight }
            return (a.bounds[1], a.bounds[0]) < (b.bounds[1], b.bounds[0])
        }
        let scaleX = Double(imageWidth) / Double(width)
        let scaleY = Double(imageHeight) / Double(height)
        return ranked.prefix(limit).map { found in
            let b = found.bounds
            return Box(
                x: Double(b[0]) * scaleX, y: Double(b[1]) * scaleY, width: Double(b[2] - b[0]) * scaleX,
                height: Double(b[3] - b[1]) * scaleY, confidence: total > 0 ? found.weight / total : 1)
        }
    }
}
