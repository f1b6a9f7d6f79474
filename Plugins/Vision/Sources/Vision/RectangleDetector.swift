import Foundation
import TesseraPluginSDK

/// Finds quadrilaterals (pages, cards, signs seen in perspective) the classical way OpenCV users do, with
/// no model:
///
/// 1. The photo's colour averaged down to at most `maximumImageDimension` pixels a side, smoothed 5 x 5, and
///    its luma.
/// 2. Regions: above and below nine levels and Otsu's threshold of the luma, and the regions Canny's edges
///    close off, the edges as they are and widened by 1, 2 and 4 pixels (which closes their gaps where the
///    page meets a background as light as itself); the edges twice, of the colour channel whose gradient is
///    largest (as OpenCV's Canny on colour: a blue card on a red saucer of the same luma has its edge) and of
///    the luma (fewer: they leave whole a page whose light changes across it).
/// 3. Each region's convex hull simplified as OpenCV's `approxPolyDP` does (Ramer-Douglas-Peucker, from 2 %
///    of the perimeter) until four corners are left, when the region (its holes filled) covers 85 % of them.
/// 4. Each side then, from those corners and from the corners a local Hough search settles them at (turned
///    up to 4 degrees and moved up to 5 % of the size, or by coarser steps up to 10 degrees and 10 %, onto the
///    line the colour steps across the most, the same way all along), moved onto the photo's edge: a
///    least-squares line through the largest colour step across it at 40 points (the largest whose inside
///    is the sheet's border colour, where there are enough), outliers dropped, the corners where the lines
///    meet; three times at most.
/// 5. Kept when convex, inside the photo, its angles within `quadratureTolerance` of square and its size and
///    aspect ratio allowed. A side is scored two ways: the share of its points whose edge lies on the fitted
///    line, and the share that outline a sheet (the colour just inside is the sheet's border colour, twice as
///    far in too, the light on it aside, and steps to the colour outside: ``outline(_:of:inside:_:)``), which
///    a faint edge on a wall as light as the page meets and a line of text inside the page or a frame outside
///    it does not. The confidence is the mean of the outline share and of the better of the two per side,
///    times `1 - (largest angle error) / 90`; a quadrilateral whose corners all lie within 3 % of a more
///    confident one's is the same one.
/// 6. The six most confident are searched again side by side (``repaired(_:_:)``: turned up to 6 degrees and
///    moved up to 10 %) for the line that outlines the sheet best, refined, and ranked with the rest: a side
///    pulled onto the heading of a page, or onto a window frame beside it, goes back to the page's edge.
///
/// On the 12 test photos the corners land within 0.17 % to 0.71 % of the sheet's longer side; on copies of
/// them shaded across or down (brightness x0.55 to x1.1), 11 of 12 each way.
///
/// - Cost: one read of the photo (averaged in bands of 256 rows), then 28 binary images of the small grid and
///   their regions (a start already tried is skipped), and the six best searched again: 0.3 to 0.5 s for an
///   800 x 600 photo, 0.4 to 0.6 s for a 4000 x 3000 JPEG (`--stats` medians under this shared 2-core
///   machine's changing load), 1.1 times the luma-only method before (side by side, and in CPU time).
struct RectangleDetector {
    var maximumImageDimension = 512
    /// The smallest side allowed, as a share of the image's shorter side.
    var minimumSize = 0.2
    /// The shorter side over the longer one (sides as perspectiveCorrect measures them), allowed range.
    var aspectRatios = 0.0...1.0
    /// The largest departure of a corner's angle from 90 degrees.
    var quadratureTolerance = 30.0
    var minimumConfidence = 0.0

    /// The image's colour and luma, averaged down (never up), and its scale: a pixel of the small grid is
    /// `scale` pixels of the image.
    struct Grid {
        /// Red, green and blue (a gray image's value in all three), the fourth lane 0.
        var colors: [SIMD4<Float>]
        /// The luma of ``colors`` (Rec. 601 weights of the stored values).
        var values: [Float]
        var width: Int
        var height: Int
        var scaleX: Double
        var scaleY: Double

        func at(_ x: Int, _ y: Int) -> Float { values[y * width + x] }

        /// Bilinear, edges replicated; integers are pixel centres.
        func sample(_ point: SIMD2<Double>) -> SIMD4<Float> {
            let x = min(max(point.x, 0), Double(width - 1))
            let y = min(max(point.y, 0), Double(height - 1))
            let (x0, y0) = (Int(x), Int(y))
            let (x1, y1) = (min(x0 + 1, width - 1), min(y0 + 1, height - 1))
            let (fx, fy) = (Float(x - Double(x0)), Float(y - Double(y0)))
            let (a, b) = (colors[y0 * width + x0], colors[y0 * width + x1])
            let (c, d) = (colors[y1 * width + x0], colors[y1 * width + x1])
            let top = a + (b - a) * fx
            let bottom = c + (d - c) * fx
            return top + (bottom - top) * fy
        }
    }

    /// How far apart two colours are: their largest difference in one channel (as OpenCV's Canny takes the
    /// channel whose gradient is largest), so a gray step counts as its luma step does, and a blue card on a
    /// red saucer of the same luma is as plain as black on white.
    @inline(__always) static func difference(_ a: SIMD4<Float>, _ b: SIMD4<Float>) -> Float {
        let d = pointwiseMax(a - b, b - a)
        return max(d.x, d.y, d.z)
    }

    /// The quadrilaterals in `image`, most confident first, in the image's pixels.
    func detect(_ image: Image) throws -> [Quadrilateral] {
        guard image.width >= 8, image.height >= 8 else { return [] }
        var grid = try Self.colors(image, maximumDimension: maximumImageDimension)
        grid.colors = Self.smoothed(grid.colors, grid.width, grid.height)
        grid.values = grid.colors.map { 0.299 * $0.x + 0.587 * $0.y + 0.114 * $0.z }
        var found: [Quadrilateral] = []
        // The starting corners already fitted: the masks' nested levels give many a region twice, and the same
        // start gives the same quadrilaterals.
        var tried: [[SIMD2<Double>]] = []
        for (mask, grow) in masks(grid) {
            for region in Self.regions(mask, grid.width, grid.height) {
                let quads = quadrilaterals(region, grow: grow, grid, tried: &tried)
                found += quads
            }
        }
        found.sort { $0.box.confidence > $1.box.confidence }
        var kept: [Quadrilateral] = []
        for quad in found where !kept.contains(where: { Self.same($0, quad) }) { kept.append(quad) }
        // The most confident few with each side searched again for the sheet's own border (``repaired(_:_:)``):
        // a side refined onto a line of text inside the page, or onto a frame outside it, where the page's edge
        // beside it is faint.
        var again = kept
        for quad in kept.prefix(6) {
            if let repaired = repaired(quad.corners, grid), let quad = polished(repaired, grid, keepingOutlines: true) {
                again.append(quad)
            }
        }
        again.sort { $0.box.confidence > $1.box.confidence }
        kept = []
        for quad in again where !kept.contains(where: { Self.same($0, quad) }) { kept.append(quad) }
        // Back to the image's pixels (pixel centres to pixel centres).
        return kept.map { quad in
            Quadrilateral(
                corners: quad.corners.map {
                    SIMD2(($0.x + 0.5) * grid.scaleX - 0.5, ($0.y + 0.5) * grid.scaleY - 0.5)
                }, confidence: quad.box.confidence)
        }
    }

    /// The document among `found` (most confident first): the most confident, or, while a quadrilateral at
    /// least 0.85 times as confident holds it whole, the most confident such one (a page holds the table
    /// printed on it, whose ruled border may outscore the page's own edge against a light wall).
    static func outermost(_ found: [Quadrilateral]) -> Quadrilateral? {
        guard var best = found.first else { return nil }
        let floor = 0.85 * best.box.confidence
        while let outer = found.first(where: { $0 != best && $0.box.confidence >= floor && holds($0, best) }) {
            best = outer
        }
        return best
    }

    /// Whether every corner of `inner` lies inside the convex quadrilateral `outer`.
    static func holds(_ outer: Quadrilateral, _ inner: Quadrilateral) -> Bool {
        let (a, b) = (outer.corners, inner.corners)
        guard a.count == 4, b.count == 4 else { return false }
        return b.allSatisfy { point in
            let signs = (0..<4).map { i -> Double in
                let (p, q) = (a[i], a[(i + 1) % 4])
                return (q.x - p.x) * (point.y - p.y) - (q.y - p.y) * (point.x - p.x)
            }
            return signs.allSatisfy { $0 > 0 } || signs.allSatisfy { $0 < 0 }
        }
    }

    /// Two quadrilaterals are one when every corner of one lies within 3 % of the other's size.
    static func same(_ a: Quadrilateral, _ b: Quadrilateral) -> Bool {
        let size = max(a.box.width, a.box.height, b.box.width, b.box.height)
        return zip(a.corners, b.corners).allSatisfy { norm($0 - $1) <= 0.03 * size }
    }

    /// The colours (a gray image's one channel as all three) averaged over the cells of a grid at most
    /// `maximumDimension` a side, read in bands of 256 rows; the luma is left to be computed after smoothing.
    static func colors(_ image: Image, maximumDimension: Int) throws -> Grid {
        let (width, height, channels) = (image.width, image.height, image.channels)
        let factor = max(1, Double(max(width, height)) / Double(maximumDimension))
        let (columns, rows) = (
            max(1, Int((Double(width) / factor).rounded())), max(1, Int((Double(height) / factor).rounded()))
        )
        var sums = [SIMD4<Float>](repeating: .zero, count: columns * rows)
        var counts = [Float](repeating: 0, count: columns * rows)
        let cellOfColumn = (0..<width).map { min($0 * columns / width, columns - 1) }
        try image.forEachBand { region, samples in
            for y in 0..<region.height {
                let row = min((region.minY + y) * rows / height, rows - 1) * columns
                for x in 0..<width {
                    let at = (y * width + x) * channels
                    var value =
                        channels < 3
                        ? SIMD4(repeating: samples[at]) : SIMD4(samples[at], samples[at + 1], samples[at + 2], 0)
                    value.w = 0
                    if !(value.x.isFinite && value.y.isFinite && value.z.isFinite) { value = .zero }
                    sums[row + cellOfColumn[x]] += value
                    counts[row + cellOfColumn[x]] += 1
                }
            }
        }
        for index in sums.indices { sums[index] /= max(counts[index], 1) }
        return Grid(
            colors: sums, values: [], width: columns, height: rows, scaleX: Double(width) / Double(columns),
            scaleY: Double(height) / Double(rows))
    }

    /// A 5 x 5 binomial blur (1 4 6 4 1 across and down), edges replicated: it takes out the noise and the
    /// JPEG blocks that would break a region's outline.
    static func smoothed(_ values: [SIMD4<Float>], _ width: Int, _ height: Int) -> [SIMD4<Float>] {
        let taps: [Float] = [1, 4, 6, 4, 1].map { $0 / 16 }
        var across = values
        for y in 0..<height {
            for x in 0..<width {
                var sum = SIMD4<Float>.zero
                for (k, tap) in taps.enumerated() { sum += tap * values[y * width + min(max(x + k - 2, 0), width - 1)] }
                across[y * width + x] = sum
            }
        }
        var out = across
        for y in 0..<height {
            for x in 0..<width {
                var sum = SIMD4<Float>.zero
                for (k, tap) in taps.enumerated() {
                    sum += tap * across[min(max(y + k - 2, 0), height - 1) * width + x]
                }
                out[y * width + x] = sum
            }
        }
        return out
    }

    /// The binary images whose regions are tried: above and below each of nine levels and Otsu's threshold,
    /// and the regions Canny's edges close off.
    func masks(_ grid: Grid) -> [(mask: [Bool], grow: Double)] {
        let values = grid.values
        let levels = (1...9).map { Float($0) / 10 } + [Self.otsu(values)]
        var masks: [(mask: [Bool], grow: Double)] = []
        for level in levels {
            masks.append((values.map { $0 >= level }, 0))
            masks.append((values.map { $0 < level }, 0))
        }
        // Canny's edges, and the same widened by 1, 2 and 4 pixels: where the page meets a background as
        // light as itself its outline has gaps, which the widening closes (the sides are found again on the
        // photo's edges, so the region's shrinking does not matter).
        // Of the colour and of the luma: colour edges outline a card on a saucer as dark as itself, and luma
        // edges, fewer, leave whole a page whose light changes across it, which colour edges may cut.
        for edges in [Self.canny(grid, colors: true), Self.canny(grid, colors: false)] {
            masks.append((edges.map { !$0 }, 0.5))
            for radius in [1, 2, 4] {
                masks.append(
                    (Self.widened(edges, grid.width, grid.height, by: radius).map { !$0 }, Double(radius) + 0.5))
            }
        }
        return masks
    }

    /// `mask` dilated by a square of `radius` pixels each way (a running count along rows, then columns).
    static func widened(_ mask: [Bool], _ width: Int, _ height: Int, by radius: Int) -> [Bool] {
        var across = [Bool](repeating: false, count: mask.count)
        for y in 0..<height {
            var last = -radius - 1  // the last set pixel seen
            for x in 0..<(width + radius) {
                if x < width, mask[y * width + x] { last = x }
                let at = x - radius
                if at >= 0, at < width { across[y * width + at] = x - last <= 2 * radius }
            }
        }
        var out = across
        for x in 0..<width {
            var last = -radius - 1
            for y in 0..<(height + radius) {
                if y < height, across[y * width + x] { last = y }
                let at = y - radius
                if at >= 0, at < height { out[at * width + x] = y - last <= 2 * radius }
            }
        }
        return out
    }

    /// Canny's edges: the Sobel gradient's magnitude, kept where it is the largest across the edge (of its
    /// two neighbours along the gradient's direction, in eighths of a turn) and linked from 0.15 down to 0.06
    /// (a step of about 0.05 and 0.02 of the luma's range, after the smoothing). One pixel thin, so the
    /// regions they close off are whole, and the words inside a page cut no path across it.
    static func canny(_ grid: Grid, colors: Bool) -> [Bool] {
        let (width, height, values) = (grid.width, grid.height, grid.colors)
        let luma = SIMD4<Float>(0.299, 0.587, 0.114, 0)
        var magnitude = [Float](repeating: 0, count: width * height)
        var direction = [UInt8](repeating: 0, count: width * height)
        guard width >= 3, height >= 3 else { return Array(repeating: false, count: width * height) }
        for y in 1..<height - 1 {
            for x in 1..<width - 1 {
                // Sobel on each channel; the channel whose gradient is largest gives it (OpenCV's Canny on
                // colour images does the same), so an edge of colour alone counts.
                func c(_ u: Int, _ v: Int) -> SIMD4<Float> { values[v * width + u] }
                let right: SIMD4<Float> = c(x + 1, y - 1) + 2 * c(x + 1, y) + c(x + 1, y + 1)
                let left: SIMD4<Float> = c(x - 1, y - 1) + 2 * c(x - 1, y) + c(x - 1, y + 1)
                let below: SIMD4<Float> = c(x - 1, y + 1) + 2 * c(x, y + 1) + c(x + 1, y + 1)
                let above: SIMD4<Float> = c(x - 1, y - 1) + 2 * c(x, y - 1) + c(x + 1, y - 1)
                let (gxs, gys) = (right - left, below - above)
                let squares = gxs * gxs + gys * gys
                var (gx, gy) = ((gxs * luma).sum(), (gys * luma).sum())
                if colors {
                    let channel =
                        squares.x >= squares.y ? (squares.x >= squares.z ? 0 : 2) : (squares.y >= squares.z ? 1 : 2)
                    (gx, gy) = (gxs[channel], gys[channel])
                }
                magnitude[y * width + x] = (gx * gx + gy * gy).squareRoot()
                // 0: across (the gradient along x), 1: the diagonal down-right, 2: down, 3: down-left.
                let angle = atan2(Double(gy), Double(gx)) * 4 / .pi
                direction[y * width + x] = UInt8(((Int(angle.rounded()) % 4) + 4) % 4)
            }
        }
        let steps = [(1, 0), (1, 1), (0, 1), (-1, 1)]
        var strong = [UInt8](repeating: 0, count: width * height)  // 0 none, 1 weak, 2 strong
        var stack: [Int] = []
        for y in 1..<height - 1 {
            for x in 1..<width - 1 {
                let index = y * width + x
                let value = magnitude[index]
                guard value >= 0.06 else { continue }
                let (dx, dy) = steps[Int(direction[index])]
                guard value >= magnitude[(y + dy) * width + x + dx], value > magnitude[(y - dy) * width + x - dx]
                else { continue }
                strong[index] = value >= 0.15 ? 2 : 1
                if value >= 0.15 { stack.append(index) }
            }
        }
        var edges = [Bool](repeating: false, count: width * height)
        while let index = stack.popLast() {
            guard !edges[index] else { continue }
            edges[index] = true
            let (x, y) = (index % width, index / width)
            for v in max(y - 1, 0)...min(y + 1, height - 1) {
                for u in max(x - 1, 0)...min(x + 1, width - 1) where strong[v * width + u] > 0 && !edges[v * width + u]
                {
                    stack.append(v * width + u)
                }
            }
        }
        return edges
    }

    /// Otsu's threshold of values in 0...1, on 256 bins.
    static func otsu(_ values: [Float]) -> Float {
        var histogram = [Double](repeating: 0, count: 256)
        for value in values { histogram[min(max(Int(value * 255 + 0.5), 0), 255)] += 1 }
        let total = Double(values.count)
        let sum = histogram.enumerated().reduce(0) { $0 + Double($1.offset) * $1.element }
        var (below, belowSum, best, threshold) = (0.0, 0.0, -1.0, 128)
        for level in 0..<256 {
            below += histogram[level]
            belowSum += Double(level) * histogram[level]
            let above = total - below
            guard below > 0, above > 0 else { continue }
            let difference = belowSum / below - (sum - belowSum) / above
            let between = below * above * difference * difference
            if between > best { (best, threshold) = (between, level) }
        }
        return (Float(threshold) + 0.5) / 255
    }

    /// A region of a mask: its pixel count and, for each row it spans, its leftmost and rightmost pixel.
    struct Region {
        var count = 0
        var top = 0
        var left: [Int] = []
        var right: [Int] = []
        var touchesAllSides = false
    }

    /// The 4-connected regions of `mask`, each as its rows' extremes; regions smaller than 1 % of the grid
    /// are left out.
    static func regions(_ mask: [Bool], _ width: Int, _ height: Int) -> [Region] {
        var labels = [Int32](repeating: -1, count: mask.count)
        var stack: [Int] = []
        var result: [Region] = []
        for start in mask.indices where mask[start] && labels[start] < 0 {
            let label = Int32(result.count)
            labels[start] = label
            stack.append(start)
            var region = Region(top: start / width)
            var (minY, maxY, minX, maxX) = (height, 0, width, 0)
            var pixels: [Int] = []
            while let index = stack.popLast() {
                pixels.append(index)
                let (x, y) = (index % width, index / width)
                (minY, maxY, minX, maxX) = (min(minY, y), max(maxY, y), min(minX, x), max(maxX, x))
                for (dx, dy) in [(1, 0), (-1, 0), (0, 1), (0, -1)] {
                    let (u, v) = (x + dx, y + dy)
                    guard u >= 0, u < width, v >= 0, v < height else { continue }
                    let next = v * width + u
                    if mask[next] && labels[next] < 0 {
                        labels[next] = label
                        stack.append(next)
                    }
                }
            }
            region.count = pixels.count
            guard pixels.count * 100 >= mask.count else {
                result.append(Region())
                continue
            }
            region.top = minY
            region.left = Array(repeating: width, count: maxY - minY + 1)
            region.right = Array(repeating: -1, count: maxY - minY + 1)
            for index in pixels {
                let (x, row) = (index % width, index / width - minY)
                region.left[row] = min(region.left[row], x)
                region.right[row] = max(region.right[row], x)
            }
            region.touchesAllSides = minX == 0 && minY == 0 && maxX == width - 1 && maxY == height - 1
            result.append(region)
        }
        return result.filter { $0.count * 100 >= mask.count && !$0.touchesAllSides }
    }

    /// The region's quadrilateral in the grid's pixels, or nil when it is not one this detector keeps.
    /// `grow`: how far inside the outline the region ends (the edges' widening), which its sides are moved out
    /// by before they are refined.
    func quadrilaterals(_ region: Region, grow: Double, _ grid: Grid, tried: inout [[SIMD2<Double>]])
        -> [Quadrilateral]
    {
        // The outline of the region's pixels (their outer edges), its convex hull, four corners.
        var points: [SIMD2<Double>] = []
        for (row, (left, right)) in zip(region.left, region.right).enumerated() where right >= left {
            let y = Double(region.top + row)
            points += [
                SIMD2(Double(left) - 0.5, y - 0.5), SIMD2(Double(left) - 0.5, y + 0.5),
                SIMD2(Double(right) + 0.5, y - 0.5),
                SIMD2(Double(right) + 0.5, y + 0.5),
            ]
        }
        let hull = Self.convexHull(points)
        guard hull.count >= 4, let corners = Self.fourCorners(hull), Self.area(corners) > 0 else { return [] }
        // The region, its holes (the text on a page) filled along its rows, fills the quadrilateral (a blob
        // with a corner cut off, or an L, does not).
        let filled = zip(region.left, region.right).reduce(0) { $0 + max($1.1 - $1.0 + 1, 0) }
        guard Double(filled) >= 0.85 * Self.area(corners) else { return [] }
        // Refined again from where it moved, up to three times: a side that started at an angle to its edge
        // (a corner of the region leaked into a background as light as the page) reaches more of it each time.
        // From the region's corners, and from them settled; each refined again from where it moved, up to
        // three times (a side that started at an angle to its edge reaches more of it each time).
        let start = Self.grown(corners, by: grow)
        // A start within half a pixel of one tried before is left out.
        guard !tried.contains(where: { zip($0, start).allSatisfy { norm($0 - $1) <= 0.5 } }) else { return [] }
        tried.append(start)
        return [start, settled(start, grid), settled(start, grid, turn: 10, share: 0.1, step: 2)].compactMap {
            corners in
            corners.flatMap { polished($0, grid) }
        }
    }

    /// The quadrilateral refined, and refined again from where it moved up to three times, if ``accepted``.
    /// `keepingOutlines`: a side that outlined the sheet better before (``outline(_:of:inside:_:)``) stays where
    /// it was, as ``repaired(_:_:)`` put it: refining moves a faint stretch of edge onto a stronger one beside it.
    func polished(_ corners: [SIMD2<Double>], _ grid: Grid, keepingOutlines: Bool = false) -> Quadrilateral? {
        guard var refined = refine(corners, grid) else { return nil }
        for _ in 0..<3 {
            guard let again = refine(refined.corners, grid) else { break }
            let moved = zip(again.corners, refined.corners).map { norm($0 - $1) }.max() ?? 0
            refined = again
            if moved < 0.25 { break }
        }
        if keepingOutlines, let color = Self.border(corners, grid) {
            func score(_ quad: [SIMD2<Double>], _ side: Int) -> Double {
                let found = outline(side, of: quad, inside: color, grid)
                return found.share + 0.5 * found.step
            }
            var lines: [(point: SIMD2<Double>, direction: SIMD2<Double>)] = []
            for side in 0..<4 {
                let quad = score(corners, side) > score(refined.corners, side) + 0.05 ? corners : refined.corners
                let (a, b) = (quad[side], quad[(side + 1) % 4])
                lines.append((a, (b - a) / max(norm(b - a), 1e-9)))
                if quad == corners { refined.support[side] = 0 }
            }
            let kept = (0..<4).compactMap { Self.intersection(lines[($0 + 3) % 4], lines[$0]) }
            guard kept.count == 4 else { return nil }
            refined.corners = kept
        }
        return accepted(refined.corners, support: refined.support, grid)
    }

    /// The quadrilateral ordered top-left first, clockwise on screen, with its confidence, if its size,
    /// aspect ratio and angles are allowed and the confidence reaches the minimum.
    func accepted(_ corners: [SIMD2<Double>], support: [Double], _ grid: Grid) -> Quadrilateral? {
        guard Self.isConvex(corners) else { return nil }
        // Inside the photo (to a pixel): lines fitted to a few edge points can meet far beyond it.
        let (right, bottom) = (Double(grid.width), Double(grid.height))
        guard corners.allSatisfy({ $0.x >= -1 && $0.y >= -1 && $0.x <= right && $0.y <= bottom }) else { return nil }
        let ordered = Self.ordered(corners)
        let sides = (0..<4).map { norm(ordered[($0 + 1) % 4] - ordered[$0]) }
        let shorter = Double(min(grid.width, grid.height))
        guard sides.min() ?? 0 >= minimumSize * shorter else { return nil }
        let across = (sides[0] + sides[2]) / 2
        let down = (sides[1] + sides[3]) / 2
        guard aspectRatios.contains(min(across, down) / max(across, down)) else { return nil }
        var worst = 0.0
        for index in 0..<4 {
            let a = ordered[(index + 3) % 4] - ordered[index]
            let b = ordered[(index + 1) % 4] - ordered[index]
            let cosine = dot(a, b) / (norm(a) * norm(b))
            worst = max(worst, abs(90 - acos(min(max(cosine, -1), 1)) * 180 / .pi))
        }
        guard worst <= quadratureTolerance else { return nil }
        // Half the share of the sides' points that outline a sheet of one colour, half the share on the photo's
        // edges, where a side's faint edge counts as far as it outlines the sheet.
        var (outlined, supported) = (0.0, support.reduce(0, +) / 4)
        if let color = Self.border(corners, grid) {
            supported = 0
            for side in 0..<4 {
                let share = outline(side, of: corners, inside: color, grid).share
                outlined += share / 4
                supported += max(share, support[side]) / 4
            }
        }
        let confidence = (supported + outlined) / 2 * (1 - worst / 90)
        guard confidence >= minimumConfidence, confidence > 0 else { return nil }
        return Quadrilateral(corners: ordered, confidence: confidence)
    }

    /// How far inside a side its points are read for the sheet's colour, and outside for what it lies on, in
    /// the grid's pixels: past the edge's blur (the 5 x 5 smoothing and a camera's).
    static let depth = 3.0
    /// The largest difference (one channel, 0...1) from the sheet's border colour that is still the sheet: the
    /// paper's shading and the JPEG's noise, not a wall or a window frame.
    static let sameColor: Float = 0.1

    /// How far `sample` is from the sheet's colour `sheet`: their largest difference in one channel, or, where
    /// the light on it differs (a page shaded across its width; brightness, the mean of the channels, within a
    /// factor of 1.3), twice that of the sheet's colour scaled to the sample's brightness, if less.
    @inline(__always) static func offSheet(_ sample: SIMD4<Float>, _ sheet: SIMD4<Float>) -> Float {
        let plain = difference(sample, sheet)
        let (brightness, reference) = ((sample.x + sample.y + sample.z) / 3, (sheet.x + sheet.y + sheet.z) / 3)
        guard plain > sameColor / 2, reference > 0.01, brightness * 1.3 >= reference, brightness <= reference * 1.3
        else { return plain }
        return min(plain, 2 * difference(sample, sheet * (brightness / reference)))
    }
    /// The smallest step (one channel, 0...1) across a side that counts as its edge: a white page on a light
    /// wall steps by 4 to 9 levels of 255 in luma and 12 to 18 in one channel.
    static let leastStep: Float = 0.025

    /// The sheet's border colour: the median, channel by channel, of 32 points a side ``depth`` inside it; nil
    /// when the quadrilateral is degenerate.
    static func border(_ corners: [SIMD2<Double>], _ grid: Grid) -> SIMD4<Float>? {
        let center = corners.reduce(SIMD2<Double>.zero, +) / 4
        var samples: [SIMD4<Float>] = []
        for index in 0..<4 {
            let (a, b) = (corners[index], corners[(index + 1) % 4])
            let length = norm(b - a)
            guard length > 0 else { return nil }
            var inward = SIMD2(-(b - a).y, (b - a).x) / length
            if dot(inward, center - (a + b) / 2) < 0 { inward = -inward }
            for k in 0..<32 {
                samples.append(grid.sample(a + (b - a) * (0.05 + 0.9 * Double(k) / 31) + inward * depth))
            }
        }
        var median = SIMD4<Float>.zero
        for channel in 0..<3 {
            let sorted = samples.map { $0[channel] }.sorted()
            median[channel] = sorted[sorted.count / 2]
        }
        return median
    }

    /// How well side `side` of `corners` (from corner `side` to the next) is the outline of a sheet of colour
    /// `color`: the share of 32 points along it where the colour ``depth`` inside is the sheet's and steps by at
    /// least ``leastStep`` to the colour as far outside, and the mean of those steps. A line of text inside the
    /// page has the page on both sides of it in places, a frame outside it has the wall inside.
    func outline(_ side: Int, of corners: [SIMD2<Double>], inside color: SIMD4<Float>, _ grid: Grid) -> (
        share: Double, step: Double
    ) {
        let center = corners.reduce(SIMD2<Double>.zero, +) / 4
        let (a, b) = (corners[side], corners[(side + 1) % 4])
        return Self.outline(a, b, toward: center, inside: color, grid)
    }

    static func outline(
        _ a: SIMD2<Double>, _ b: SIMD2<Double>, toward center: SIMD2<Double>, inside color: SIMD4<Float>,
        _ grid: Grid
    ) -> (share: Double, step: Double) {
        let length = norm(b - a)
        guard length > 0 else { return (0, 0) }
        var inward = SIMD2(-(b - a).y, (b - a).x) / length * depth
        if dot(inward, center - (a + b) / 2) < 0 { inward = -inward }
        var (count, steps) = (0, Float(0))
        for k in 0..<32 {
            let point = a + (b - a) * (0.05 + 0.9 * Double(k) / 31)
            let inner = grid.sample(point + inward)
            let step = difference(inner, grid.sample(point - inward))
            // The sheet's colour, twice as far in too, and nearer it than the step is high: noise and texture
            // are not a sheet.
            guard step >= leastStep, offSheet(inner, color) <= min(sameColor, step),
                offSheet(grid.sample(point + 2 * inward), color) <= sameColor
            else { continue }
            do {
                count += 1
                steps += min(step, 0.3)
            }
        }
        return (Double(count) / 32, Double(steps) / 32)
    }

    /// Each side searched (turned by up to 6 degrees, moved by up to 10 % of the quadrilateral's size)
    /// for the line most of whose points are the outline of a sheet of the quadrilateral's border colour
    /// (``outline(_:_:toward:inside:_:)``: the most such points, then the largest steps), when that beats the
    /// side where it is by a tenth; nil when no side moved.
    func repaired(_ corners: [SIMD2<Double>], _ grid: Grid) -> [SIMD2<Double>]? {
        guard let color = Self.border(corners, grid) else { return nil }
        let center = corners.reduce(SIMD2<Double>.zero, +) / 4
        let size = max(norm(corners[2] - corners[0]), norm(corners[3] - corners[1]))
        let reach = max(4, 0.1 * size)
        var lines: [(point: SIMD2<Double>, direction: SIMD2<Double>)] = []
        var moved = false
        for index in 0..<4 {
            let (a, b) = (corners[index], corners[(index + 1) % 4])
            let length = norm(b - a)
            guard length > 0 else { return nil }
            let along = (b - a) / length
            let middle = (a + b) / 2
            let normal = SIMD2(-along.y, along.x)
            func score(_ found: (share: Double, step: Double)) -> Double { found.share + 0.5 * found.step }
            let here = score(Self.outline(a, b, toward: center, inside: color, grid))
            // By 2 degrees and 2 pixels, then by 1 around the best (a quarter of the lines of a search by 1; the
            // outline holds a pixel either side of the edge, so the coarse search does not step over it).
            var best = (score: here + 0.1, turn: 0.0, offset: 0.0, moved: false)
            func search(_ turns: [Double], _ offsets: [Double]) {
                for turn in turns {
                    let angle = turn * .pi / 180
                    let direction = SIMD2(
                        along.x * cos(angle) - along.y * sin(angle), along.x * sin(angle) + along.y * cos(angle))
                    for offset in offsets {
                        let point = middle + normal * offset
                        let (from, to) = (point - direction * (length / 2), point + direction * (length / 2))
                        let found = score(Self.outline(from, to, toward: center, inside: color, grid))
                        if found > best.score { best = (found, turn, offset, true) }
                    }
                }
            }
            search(Array(stride(from: -6.0, through: 6, by: 2)), Array(stride(from: -reach, through: reach, by: 2)))
            if best.moved {
                search([best.turn - 1, best.turn, best.turn + 1], [best.offset - 1, best.offset, best.offset + 1])
            }
            let angle = best.turn * .pi / 180
            let direction = SIMD2(
                along.x * cos(angle) - along.y * sin(angle), along.x * sin(angle) + along.y * cos(angle))
            moved = moved || best.moved
            lines.append((middle + normal * best.offset, direction))
        }
        guard moved else { return nil }
        var repaired: [SIMD2<Double>] = []
        for index in 0..<4 {
            guard let point = Self.intersection(lines[(index + 3) % 4], lines[index]) else { return nil }
            repaired.append(point)
        }
        return repaired
    }

    /// Each side turned (by half degrees, up to 4) and moved (by pixels, up to 5 % of the quadrilateral's size)
    /// to the line across which the colour steps the most on average, the same way all along it (a local Hough
    /// transform): a region that leaked past a corner into a background as light as the page starts with a
    /// side at an angle to its edge, and the words and rules inside a page step both ways and cancel out.
    func settled(
        _ corners: [SIMD2<Double>], _ grid: Grid, turn limit: Double = 4, share: Double = 0.05, step: Double = 1
    ) -> [SIMD2<Double>]? {
        let size = max(norm(corners[2] - corners[0]), norm(corners[3] - corners[1]))
        let reach = max(4, share * size)
        var lines: [(point: SIMD2<Double>, direction: SIMD2<Double>)] = []
        for index in 0..<4 {
            let (a, b) = (corners[index], corners[(index + 1) % 4])
            let length = norm(b - a)
            guard length > 0 else { return nil }
            let along = (b - a) / length
            let across = SIMD2(-along.y, along.x)
            let middle = (a + b) / 2
            var best = (score: -1.0, turn: 0.0, offset: 0.0)
            func search(_ turns: [Double], _ offsets: [Double]) {
                for turn in turns {
                    let angle = turn * .pi / 180
                    let direction = SIMD2(
                        along.x * cos(angle) - along.y * sin(angle), along.x * sin(angle) + along.y * cos(angle))
                    let normal = SIMD2(-direction.y, direction.x) * 1.5
                    for offset in offsets {
                        let center = middle + across * offset
                        var sum = SIMD4<Float>.zero
                        for k in 0..<32 {
                            let point = center + direction * ((-0.45 + 0.9 * Double(k) / 31) * length)
                            sum += grid.sample(point + normal) - grid.sample(point - normal)
                        }
                        let score = Double(Self.difference(sum, .zero)) / 32
                        if score > best.score { best = (score, turn, offset) }
                    }
                }
            }
            // Coarse (by whole steps of angle and two of offset), then by halves around the best: a third of
            // the lines, as the step across 3 pixels is found from a pixel away.
            search(
                Array(stride(from: -limit, through: limit, by: step)),
                Array(stride(from: -reach, through: reach, by: 2 * step)))
            search(
                [best.turn - step / 2, best.turn, best.turn + step / 2],
                [best.offset - step, best.offset, best.offset + step])
            let angle = best.turn * .pi / 180
            let direction = SIMD2(
                along.x * cos(angle) - along.y * sin(angle), along.x * sin(angle) + along.y * cos(angle))
            let line = (point: middle + across * best.offset, direction: direction)
            lines.append(line)
        }
        var settled: [SIMD2<Double>] = []
        for index in 0..<4 {
            guard let point = Self.intersection(lines[(index + 3) % 4], lines[index]) else { return nil }
            settled.append(point)
        }
        return settled
    }

    /// Each side moved onto the strongest edge across it: along the side, at 40 points from 5 % to 95 % of
    /// its length, the largest step of the colour (``difference(_:_:)``) within 3 % of the quadrilateral's size
    /// (at least 3 pixels) along the side's normal, to a tenth of a pixel; a least-squares line through those
    /// steps (again without the ones far from it); the corners where the lines meet. Where at least 8 of a
    /// side's points have one, the largest step whose colour ``depth`` inside is the sheet's border colour
    /// (``border(_:_:)``) is taken instead: beside a faint stretch of the page's edge, the edges of the tiles
    /// or the frames behind it step more. The support is each side's share of its 40 points whose step is at least
    /// 0.04 (about 10 levels of 255) and lies within a pixel and a half of the line.
    func refine(_ corners: [SIMD2<Double>], _ grid: Grid) -> (corners: [SIMD2<Double>], support: [Double])? {
        let size = max(norm(corners[2] - corners[0]), norm(corners[3] - corners[1]))
        let reach = max(3, 0.03 * size)
        let center = corners.reduce(SIMD2<Double>.zero, +) / 4
        let color = Self.border(corners, grid)
        var lines: [(point: SIMD2<Double>, direction: SIMD2<Double>)] = []
        var supported: [Double] = []
        for index in 0..<4 {
            let (a, b) = (corners[index], corners[(index + 1) % 4])
            let direction = (b - a) / norm(b - a)
            let normal = SIMD2(-direction.y, direction.x)
            let inward = (dot(normal, center - (a + b) / 2) < 0 ? -normal : normal) * Self.depth
            var (peaks, onSheet): ([SIMD2<Double>], [SIMD2<Double>]) = ([], [])
            var steps: [(offset: Double, step: Float)] = []
            // The peak of `steps` at `at`, between samples by a parabola through it and its neighbours.
            func peak(_ at: Int, _ base: SIMD2<Double>) -> SIMD2<Double> {
                var offset = steps[at].offset
                if at > 0, at < steps.count - 1 {
                    let (l, c, r) = (Double(steps[at - 1].step), Double(steps[at].step), Double(steps[at + 1].step))
                    let denominator = l - 2 * c + r
                    if denominator < 0 { offset += 0.25 * 0.5 * (l - r) / denominator }
                }
                return base + normal * offset
            }
            for step in 0..<40 {
                let t = 0.05 + 0.9 * Double(step) / 39
                let base = a + (b - a) * t
                steps.removeAll(keepingCapacity: true)
                var offset = -reach
                while offset <= reach {
                    let difference = Self.difference(
                        grid.sample(base + normal * (offset + 0.5)), grid.sample(base + normal * (offset - 0.5)))
                    steps.append((offset, difference))
                    offset += 0.25
                }
                var (best, bestOnSheet) = (-1, -1)
                for at in steps.indices where steps[at].step >= 0.04 {
                    if best < 0 || steps[at].step > steps[best].step { best = at }
                    if bestOnSheet < 0 || steps[at].step > steps[bestOnSheet].step, let color,
                        Self.offSheet(grid.sample(base + normal * steps[at].offset + inward), color) <= Self.sameColor
                    {
                        bestOnSheet = at
                    }
                }
                if best >= 0 { peaks.append(peak(best, base)) }
                if bestOnSheet >= 0 { onSheet.append(peak(bestOnSheet, base)) }
            }
            if onSheet.count >= 8 { peaks = onSheet }
            guard peaks.count >= 8, var line = Self.fitLine(peaks) else { return nil }
            // Twice: the peaks farther than twice the median distance (and a pixel) left out, as another
            // edge near the side (a line of text, a shadow) pulls a few of them away.
            for _ in 0..<2 {
                let distances = peaks.map { Self.distance($0, line) }.sorted()
                let limit = max(1, 2 * distances[distances.count / 2])
                let close = peaks.filter { Self.distance($0, line) <= limit }
                guard close.count >= 8, let again = Self.fitLine(close) else { break }
                line = again
            }
            supported.append(Double(peaks.filter { Self.distance($0, line) <= 1.5 }.count) / 40)
            lines.append(line)
        }
        var refined: [SIMD2<Double>] = []
        for index in 0..<4 {
            // Corner `index` joins side index - 1 and side index.
            guard let point = Self.intersection(lines[(index + 3) % 4], lines[index]) else { return nil }
            guard norm(point - corners[index]) <= 2 * reach else { return nil }
            refined.append(point)
        }
        return (refined, supported)
    }

    // MARK: Geometry

    /// A convex quadrilateral with each side moved out by `distance`.
    static func grown(_ corners: [SIMD2<Double>], by distance: Double) -> [SIMD2<Double>] {
        guard distance != 0 else { return corners }
        let center = corners.reduce(SIMD2<Double>.zero, +) / 4
        let lines = (0..<4).map { index -> (point: SIMD2<Double>, direction: SIMD2<Double>) in
            let (a, b) = (corners[index], corners[(index + 1) % 4])
            let direction = (b - a) / norm(b - a)
            var normal = SIMD2(-direction.y, direction.x)
            if dot(normal, a - center) < 0 { normal = -normal }
            return (a + normal * distance, direction)
        }
        return (0..<4).map { intersection(lines[($0 + 3) % 4], lines[$0]) ?? corners[$0] }
    }

    static func distance(_ point: SIMD2<Double>, _ line: (point: SIMD2<Double>, direction: SIMD2<Double>)) -> Double {
        let offset = point - line.point
        return abs(offset.x * line.direction.y - offset.y * line.direction.x)
    }

    /// The total least squares line through `points` (their mean and principal direction).
    static func fitLine(_ points: [SIMD2<Double>]) -> (point: SIMD2<Double>, direction: SIMD2<Double>)? {
        guard points.count >= 2 else { return nil }
        let mean = points.reduce(SIMD2<Double>.zero, +) / Double(points.count)
        var (xx, xy, yy) = (0.0, 0.0, 0.0)
        for point in points {
            let d = point - mean
            (xx, xy, yy) = (xx + d.x * d.x, xy + d.x * d.y, yy + d.y * d.y)
        }
        let angle = 0.5 * atan2(2 * xy, xx - yy)
        return (mean, SIMD2(cos(angle), sin(angle)))
    }

    static func intersection(
        _ a: (point: SIMD2<Double>, direction: SIMD2<Double>), _ b: (point: SIMD2<Double>, direction: SIMD2<Double>)
    ) -> SIMD2<Double>? {
        let cross = a.direction.x * b.direction.y - a.direction.y * b.direction.x
        guard abs(cross) > 1e-6 else { return nil }
        let offset = b.point - a.point
        let t = (offset.x * b.direction.y - offset.y * b.direction.x) / cross
        return a.point + a.direction * t
    }

    /// Andrew's monotone chain: the hull counterclockwise in x-right, y-up terms (clockwise on screen).
    static func convexHull(_ points: [SIMD2<Double>]) -> [SIMD2<Double>] {
        let sorted = points.sorted { $0.x < $1.x || ($0.x == $1.x && $0.y < $1.y) }
        guard sorted.count >= 3 else { return sorted }
        func cross(_ o: SIMD2<Double>, _ a: SIMD2<Double>, _ b: SIMD2<Double>) -> Double {
            (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x)
        }
        var lower: [SIMD2<Double>] = []
        for point in sorted {
            while lower.count >= 2, cross(lower[lower.count - 2], lower[lower.count - 1], point) <= 0 {
                lower.removeLast()
            }
            lower.append(point)
        }
        var upper: [SIMD2<Double>] = []
        for point in sorted.reversed() {
            while upper.count >= 2, cross(upper[upper.count - 2], upper[upper.count - 1], point) <= 0 {
                upper.removeLast()
            }
            upper.append(point)
        }
        return Array(lower.dropLast() + upper.dropLast())
    }

    /// A closed polygon simplified as OpenCV's `approxPolyDP` does (Ramer-Douglas-Peucker from its two
    /// farthest points), with the tolerance grown from 2 % of the perimeter until four corners are left.
    static func fourCorners(_ hull: [SIMD2<Double>]) -> [SIMD2<Double>]? {
        let perimeter = hull.indices.reduce(0.0) { $0 + norm(hull[($1 + 1) % hull.count] - hull[$1]) }
        var (first, second, farthest) = (0, 0, -1.0)
        for i in hull.indices {
            for j in hull.indices where j > i {
                let d = ((hull[i] - hull[j]) * (hull[i] - hull[j])).sum()
                if d > farthest { (first, second, farthest) = (i, j, d) }
            }
        }
        let chainA = Array(hull[first...second])
        let chainB = Array(hull[second...] + hull[...first])
        for share in [0.02, 0.03, 0.04, 0.05] {
            let epsilon = share * perimeter
            let corners = Array(simplify(chainA, epsilon).dropLast() + simplify(chainB, epsilon).dropLast())
            if corners.count == 4 { return corners }
            if corners.count < 4 { return nil }
        }
        return nil
    }

    /// Ramer-Douglas-Peucker on an open chain: its first and last points and those farther than `epsilon`.
    static func simplify(_ chain: [SIMD2<Double>], _ epsilon: Double) -> [SIMD2<Double>] {
        guard chain.count > 2, let first = chain.first, let last = chain.last else { return chain }
        let direction = last - first
        let length = norm(direction)
        var (index, farthest) = (0, -1.0)
        for (i, point) in chain.enumerated().dropFirst().dropLast() {
            let offset = point - first
            let d =
                length > 0 ? abs(offset.x * direction.y - offset.y * direction.x) / length : norm(offset)
            if d > farthest { (index, farthest) = (i, d) }
        }
        guard farthest > epsilon else { return [first, last] }
        return simplify(Array(chain[...index]), epsilon).dropLast() + simplify(Array(chain[index...]), epsilon)
    }

    static func area(_ corners: [SIMD2<Double>]) -> Double {
        abs(
            corners.indices.reduce(0.0) { sum, i in
                let (a, b) = (corners[i], corners[(i + 1) % corners.count])
                return sum + a.x * b.y - a.y * b.x
            }) / 2
    }

    static func isConvex(_ corners: [SIMD2<Double>]) -> Bool {
        let signs = (0..<4).map { i -> Double in
            let (a, b, c) = (corners[i], corners[(i + 1) % 4], corners[(i + 2) % 4])
            return (b.x - a.x) * (c.y - b.y) - (b.y - a.y) * (c.x - b.x)
        }
        return signs.allSatisfy { $0 > 0 } || signs.allSatisfy { $0 < 0 }
    }

    /// Clockwise on screen from the top-left corner: the corner with the smallest x + y, then around.
    static func ordered(_ corners: [SIMD2<Double>]) -> [SIMD2<Double>] {
        let center = corners.reduce(SIMD2<Double>.zero, +) / 4
        // On screen (y down), increasing atan2 is clockwise.
        let around = corners.sorted {
            atan2($0.y - center.y, $0.x - center.x) < atan2($1.y - center.y, $1.x - center.x)
        }
        let start = around.indices.min { around[$0].x + around[$0].y < around[$1].x + around[$1].y } ?? 0
        return (0..<4).map { around[(start + $0) % 4] }
    }
}
