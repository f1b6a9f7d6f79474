/// A rectangle of whole pixels: origin top-left, x to the right, y down.
///
/// `maxX` and `maxY` are exclusive, so `Rect(x: 0, y: 0, width: 2, height: 2)` covers the pixels with
/// x and y in 0...1. A rectangle with no area is empty; every empty rectangle equals ``Rect/empty``
/// once it comes out of an operation here, so callers can test `isEmpty` or compare with `.empty`.
///
/// The arithmetic here saturates at `Int.min` and `Int.max` instead of trapping, so a rectangle built
/// from a user's numbers can be grown, moved and measured without crashing the process; values a graph
/// gives are held to ``limit`` besides.
public struct Rect: Hashable, Sendable, CustomStringConvertible {
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int

    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// The rectangle at the origin with the given size.
    public init(width: Int, height: Int) {
        self.init(x: 0, y: 0, width: width, height: height)
    }

    public static let empty = Rect(x: 0, y: 0, width: 0, height: 0)

    /// The largest coordinate or size (2^30) a graph may give a rectangle, a margin or an offset: far
    /// beyond any image, and small enough that sums and products of a few of them fit in an `Int`.
    public static let limit = 1 << 30

    public var minX: Int { x }
    public var minY: Int { y }
    public var maxX: Int { Self.adding(x, width) }
    public var maxY: Int { Self.adding(y, height) }
    public var isEmpty: Bool { width <= 0 || height <= 0 }
    /// The number of pixels covered (`Int.max` if that does not fit).
    public var area: Int {
        guard !isEmpty else { return 0 }
        let (product, overflow) = width.multipliedReportingOverflow(by: height)
        return overflow ? .max : product
    }

    public var description: String { "\(width)x\(height)+\(x)+\(y)" }

    /// The pixels in both rectangles, or ``empty``.
    public func intersection(_ other: Rect) -> Rect {
        let x0 = Swift.max(minX, other.minX)
        let y0 = Swift.max(minY, other.minY)
        let x1 = Swift.min(maxX, other.maxX)
        let y1 = Swift.min(maxY, other.maxY)
        return x1 > x0 && y1 > y0 ? Rect(x: x0, y: y0, width: x1 - x0, height: y1 - y0) : .empty
    }

    /// The smallest rectangle holding both; an empty operand is ignored.
    public func union(_ other: Rect) -> Rect {
        if isEmpty { return other.isEmpty ? .empty : other }
        if other.isEmpty { return self }
        let x0 = Swift.min(minX, other.minX)
        let y0 = Swift.min(minY, other.minY)
        return Rect(x: x0, y: y0, width: Swift.max(maxX, other.maxX) - x0, height: Swift.max(maxY, other.maxY) - y0)
    }

    public func intersects(_ other: Rect) -> Bool { !intersection(other).isEmpty }

    /// Whether every pixel of `other` is in this rectangle. An empty `other` is contained everywhere.
    public func contains(_ other: Rect) -> Bool {
        other.isEmpty
            || (!isEmpty && other.minX >= minX && other.minY >= minY && other.maxX <= maxX && other.maxY <= maxY)
    }

    public func contains(x px: Int, y py: Int) -> Bool {
        px >= minX && px < maxX && py >= minY && py < maxY
    }

    /// Shrinks each side by `dx` (left and right) and `dy` (top and bottom); negative values grow it,
    /// which is how an area filter states the margin it reads around an output region.
    /// A rectangle shrunk past nothing is ``empty``.
    public func insetBy(dx: Int, dy: Int) -> Rect {
        let inset = Rect(
            x: Self.adding(x, dx), y: Self.adding(y, dy), width: Self.adding(width, Self.negated(Self.adding(dx, dx))),
            height: Self.adding(height, Self.negated(Self.adding(dy, dy))))
        return inset.isEmpty ? .empty : inset
    }

    public func offsetBy(dx: Int, dy: Int) -> Rect {
        Rect(x: Self.adding(x, dx), y: Self.adding(y, dy), width: width, height: height)
    }

    /// `a + b`, held at `Int.min` or `Int.max` where it would overflow.
    static func adding(_ a: Int, _ b: Int) -> Int {
        let (sum, overflow) = a.addingReportingOverflow(b)
        return overflow ? (b > 0 ? .max : .min) : sum
    }

    /// `-a`, with `-Int.min` held at `Int.max`.
    static func negated(_ a: Int) -> Int { a == .min ? .max : -a }

    /// Cuts this rectangle into tiles of `tileWidth` x `tileHeight`, aligned to this rectangle's origin,
    /// row by row from the top left; tiles on the right and bottom edges are cut to fit.
    ///
    /// - Complexity: O(number of tiles).
    package func tiles(width tileWidth: Int, height tileHeight: Int) -> [Rect] {
        precondition(tileWidth > 0 && tileHeight > 0, "tile sizes must be positive")
        guard !isEmpty else { return [] }
        var result: [Rect] = []
        result.reserveCapacity(((width + tileWidth - 1) / tileWidth) * ((height + tileHeight - 1) / tileHeight))
        var ty = minY
        while ty < maxY {
            let th = Swift.min(tileHeight, maxY - ty)
            var tx = minX
            while tx < maxX {
                result.append(Rect(x: tx, y: ty, width: Swift.min(tileWidth, maxX - tx), height: th))
                tx += tileWidth
            }
            ty += tileHeight
        }
        return result
    }

    /// The cells of a grid of `cellWidth` x `cellHeight` anchored at (0, 0) that this rectangle touches,
    /// each cut to this rectangle. This is how a region maps onto a tiled file's tiles.
    package func gridCells(width cellWidth: Int, height cellHeight: Int) -> [Rect] {
        precondition(cellWidth > 0 && cellHeight > 0, "cell sizes must be positive")
        guard !isEmpty else { return [] }
        let x0 = (minX / cellWidth) * cellWidth
        let y0 = (minY / cellHeight) * cellHeight
        return Rect(x: x0, y: y0, width: maxX - x0, height: maxY - y0)
            .tiles(width: cellWidth, height: cellHeight)
            .map { $0.intersection(self) }
    }
}

/// `factors` multiplied, or `Int.max` when the product does not fit: sizes from a header are products
/// of untrusted numbers, and an overflow must read as "too big", never wrap or trap.
package func saturatingProduct(_ factors: Int...) -> Int {
    var product = 1
    for factor in factors {
        let (next, overflow) = product.multipliedReportingOverflow(by: Swift.max(0, factor))
        if overflow { return .max }
        product = next
    }
    return product
}

/// `terms` added, or `Int.max` when the sum does not fit.
package func saturatingSum(_ terms: Int...) -> Int {
    var sum = 0
    for term in terms {
        let (next, overflow) = sum.addingReportingOverflow(term)
        if overflow { return .max }
        sum = next
    }
    return sum
}

/// Bytes in binary units: "512 B", "3.5 MiB", "7.8 GiB".
package func describeBytes(_ bytes: Int) -> String {
    let units = ["KiB", "MiB", "GiB", "TiB", "PiB", "EiB"]
    guard bytes >= 1024 else { return "\(bytes) B" }
    var value = Double(bytes) / 1024
    var unit = 0
    while value >= 1024, unit < units.count - 1 {
        value /= 1024
        unit += 1
    }
    let tenths = (value * 10).rounded()
    let text = tenths.truncatingRemainder(dividingBy: 10) == 0 ? "\(Int(tenths / 10))" : "\(tenths / 10)"
    return "\(text) \(units[unit])"
}

/// The most pixels a sink writes unless told otherwise (``RunOptions/maxOutputPixels``, `tessera run
/// --max-output-pixels`): 2^32, so that a graph asking for a huge image fails at once instead of filling
/// the disk. Validation holds images whose size the parameters fix to it too.
public enum OutputLimit {
    public static let defaultPixels = 1 << 32
}
