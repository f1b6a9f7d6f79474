import TesseraCore

/// Removes near-duplicate rectangles by intersection over union, with the contour-art tutorial's
/// semantics: walk the boxes in order, keep a box unless its IoU with a box already kept is at least
/// `threshold`.
///
/// The tutorial compares each box with every kept one (O(n^2)). Here kept boxes sit in a grid per size
/// class, and a box is compared only with kept boxes that could reach the threshold: IoU >= t needs
/// the widths (and the heights) within a factor t of each other, and the left edges (top edges) within
/// `(1 - t) / t` of the box's width (height) of each other. So each query looks at a few cells of a few
/// size classes, and the answer is exactly the tutorial's.
///
/// - Cost: about O(n) for thresholds of 0.5 and above (100,000 boxes in well under a second);
///   low thresholds widen the search, bounded by a linear scan of each size class.
struct BoxDeduplication {
    let threshold: Double
    /// (Size class: log2 of the longer side, cell) as one key (``key(_:_:_:)``) -> indices of kept boxes.
    private var grid: [Int: [Int32]] = [:]
    /// Kept boxes per size class.
    private var classCounts = [Int](repeating: 0, count: 64)
    private(set) var kept: [Rect] = []
    /// IoU computations so far: the work done, which tests bound (the tutorial's loop does one per pair).
    private(set) var comparisons = 0

    init(threshold: Double) { self.threshold = threshold }

    /// The indices of the boxes to keep, in order.
    static func keep(_ boxes: [Rect], threshold: Double) -> [Int] {
        var dedup = BoxDeduplication(threshold: threshold)
        return boxes.indices.filter { dedup.insert(boxes[$0]) }
    }

    /// Keeps `box` (and returns true) unless a kept box overlaps it with IoU >= threshold.
    mutating func insert(_ box: Rect) -> Bool {
        guard !box.isEmpty else { return false }
        if threshold <= 0 {
            // Every pair has IoU >= 0: only the first box stays.
            guard kept.isEmpty else { return false }
        } else if threshold <= 1, isDuplicate(box) {
            return false
        }
        let sizeClass = Self.sizeClass(box)
        let size = 1 << sizeClass
        let key = Self.key(sizeClass, Self.floorDivide(box.minX, size), Self.floorDivide(box.minY, size))
        grid[key, default: []].append(Int32(kept.count))
        classCounts[sizeClass] += 1
        kept.append(box)
        return true
    }

    /// One integer for a size class (below 64) and a cell (coordinates within ±2^27, which any image's
    /// boxes are): hashing one Int is much cheaper than a nested dictionary or a SIMD key.
    static func key(_ sizeClass: Int, _ x: Int, _ y: Int) -> Int {
        sizeClass << 56 | (x & 0xFFF_FFFF) << 28 | (y & 0xFFF_FFFF)
    }

    static func sizeClass(_ box: Rect) -> Int {
        let side = Swift.max(box.width, box.height, 1)
        return Int.bitWidth - 1 - side.leadingZeroBitCount
    }

    static func floorDivide(_ a: Int, _ b: Int) -> Int { a >= 0 ? a / b : -((-a + b - 1) / b) }

    mutating func isDuplicate(_ box: Rect) -> Bool {
        let t = threshold
        let longer = Double(Swift.max(box.width, box.height))
        // The longer side of a box with IoU >= t lies within a factor t of this one's.
        let lowClass = Self.sizeClass(Rect(width: Swift.max(1, Int((longer * t).rounded(.down))), height: 1))
        let highClass = Self.sizeClass(Rect(width: Int(Swift.min(longer / t, 1e15).rounded(.up)), height: 1))
        let reachX = Int(Swift.min((1 - t) / t * Double(box.width), 1e15).rounded(.up))
        let reachY = Int(Swift.min((1 - t) / t * Double(box.height), 1e15).rounded(.up))
        for sizeClass in lowClass...highClass {
            let members = classCounts[sizeClass]
            guard members > 0 else { continue }
            let size = 1 << sizeClass
            let x0 = Self.floorDivide(box.minX - reachX, size)
            let x1 = Self.floorDivide(box.minX + reachX, size)
            let y0 = Self.floorDivide(box.minY - reachY, size)
            let y1 = Self.floorDivide(box.minY + reachY, size)
            if Double(x1 - x0 + 1) * Double(y1 - y0 + 1) > Double(members) {
                // Fewer boxes than cells to look in: look at the boxes of this class.
                for other in kept where Self.sizeClass(other) == sizeClass {
                    comparisons += 1
                    if iou(box, other) >= t { return true }
                }
                continue
            }
            for cy in y0...y1 {
                for cx in x0...x1 {
                    guard let indices = grid[Self.key(sizeClass, cx, cy)] else { continue }
                    comparisons += indices.count
                    for index in indices where iou(box, kept[Int(index)]) >= t { return true }
                }
            }
        }
        return false
    }

    /// Intersection over union of two pixel rectangles (0 when they do not overlap).
    @inline(__always)
    func iou(_ a: Rect, _ b: Rect) -> Double {
        let width = Swift.min(a.maxX, b.maxX) - Swift.max(a.minX, b.minX)
        let height = Swift.min(a.maxY, b.maxY) - Swift.max(a.minY, b.minY)
        guard width > 0, height > 0 else { return 0 }
        let inter = Double(width) * Double(height)
        let union = Double(a.width) * Double(a.height) + Double(b.width) * Double(b.height) - inter
        return inter / union
    }
}
