import Testing
import TesseraCore

@Suite struct RectTests {
    let a = Rect(x: 2, y: 3, width: 10, height: 5)

    @Test func edges() {
        #expect(a.maxX == 12 && a.maxY == 8 && a.area == 50)
        #expect(!a.isEmpty)
        #expect(Rect(x: 5, y: 5, width: 0, height: 3).isEmpty)
        #expect(Rect(x: 5, y: 5, width: 3, height: -1).area == 0)
    }

    /// Values a hostile graph could reach saturate instead of trapping (a trap kills a program embedding
    /// the engine): growing, moving and measuring a rectangle near Int's limits.
    @Test func arithmeticSaturates() {
        let huge = Rect(x: .max - 1, y: .min + 1, width: .max, height: .max)
        #expect(huge.maxX == .max && huge.maxY == 0)
        #expect(huge.area == .max)
        #expect(a.insetBy(dx: .min, dy: .min).width == .max)
        #expect(a.insetBy(dx: .max, dy: .max) == .empty)
        #expect(a.offsetBy(dx: .max, dy: .min) == Rect(x: .max, y: .min + 3, width: 10, height: 5))
        #expect(Rect(x: -3, y: 0, width: 1, height: 1).offsetBy(dx: .min, dy: 0).x == .min)
        #expect(a.insetBy(dx: -(1 << 30), dy: 0) == Rect(x: 2 - (1 << 30), y: 3, width: 10 + (1 << 31), height: 5))
    }

    @Test(arguments: [
        (Rect(x: 0, y: 0, width: 4, height: 4), Rect(x: 2, y: 3, width: 2, height: 1)),
        (Rect(x: 11, y: 7, width: 5, height: 5), Rect(x: 11, y: 7, width: 1, height: 1)),
        (Rect(x: 12, y: 3, width: 5, height: 5), Rect.empty),  // touching edges share no pixel
        (Rect(x: 4, y: 4, width: 2, height: 2), Rect(x: 4, y: 4, width: 2, height: 2)),
        (Rect(x: -5, y: -5, width: 100, height: 100), Rect(x: 2, y: 3, width: 10, height: 5)),
    ])
    func intersection(other: Rect, expected: Rect) {
        #expect(a.intersection(other) == expected)
        #expect(other.intersection(a) == expected)
        #expect(a.intersects(other) == !expected.isEmpty)
    }

    @Test func intersectionAgreesWithPixelSets() {
        // Every pair of small rectangles in a 6x6 window: the intersection holds exactly the shared pixels.
        let rects = (0..<5).flatMap { x in
            (0..<5).flatMap { y in [Rect(x: x, y: y, width: 2, height: 3), Rect(x: x, y: y, width: 1, height: 1)] }
        }
        func pixels(_ r: Rect) -> Set<[Int]> {
            Set((r.minY..<max(r.minY, r.maxY)).flatMap { y in (r.minX..<max(r.minX, r.maxX)).map { [$0, y] } })
        }
        for r in rects {
            for s in rects {
                #expect(pixels(r.intersection(s)) == pixels(r).intersection(pixels(s)))
                #expect(r.union(s).contains(r) && r.union(s).contains(s))
            }
        }
    }

    @Test func unionIsTheBoundingBoxAndIgnoresEmpty() {
        #expect(a.union(Rect(x: 0, y: 10, width: 1, height: 1)) == Rect(x: 0, y: 3, width: 12, height: 8))
        #expect(a.union(.empty) == a)
        #expect(Rect.empty.union(a) == a)
        #expect(Rect(x: 50, y: 50, width: 0, height: 0).union(a) == a)
    }

    @Test func insetShrinksAndNegativeInsetGrows() {
        #expect(a.insetBy(dx: 1, dy: 2) == Rect(x: 3, y: 5, width: 8, height: 1))
        #expect(a.insetBy(dx: -3, dy: -1) == Rect(x: -1, y: 2, width: 16, height: 7))
        #expect(a.insetBy(dx: 5, dy: 0) == .empty)
    }

    @Test func containment() {
        #expect(a.contains(Rect(x: 2, y: 3, width: 10, height: 5)))
        #expect(!a.contains(Rect(x: 2, y: 3, width: 11, height: 5)))
        #expect(a.contains(Rect.empty))
        #expect(a.contains(x: 11, y: 7) && !a.contains(x: 12, y: 7))
    }

    @Test(arguments: [(1, 1), (3, 2), (4, 5), (10, 5), (16, 16)])
    func tilesCoverEachPixelOnce(tileWidth: Int, tileHeight: Int) {
        let tiles = a.tiles(width: tileWidth, height: tileHeight)
        var count = [Int](repeating: 0, count: a.area)
        for tile in tiles {
            #expect(a.contains(tile) && !tile.isEmpty)
            #expect(tile.width <= tileWidth && tile.height <= tileHeight)
            for y in tile.minY..<tile.maxY {
                for x in tile.minX..<tile.maxX { count[(y - a.y) * a.width + (x - a.x)] += 1 }
            }
        }
        #expect(count.allSatisfy { $0 == 1 })
        let across = (a.width + tileWidth - 1) / tileWidth
        let down = (a.height + tileHeight - 1) / tileHeight
        #expect(tiles.count == across * down)
        #expect(tiles.first?.x == a.x && tiles.first?.y == a.y)
    }

    @Test func gridCellsFollowTheGridNotTheRegion() {
        // Grid of 4x4 anchored at the origin; the region starts mid-cell.
        let cells = Rect(x: 3, y: 6, width: 6, height: 3).gridCells(width: 4, height: 4)
        #expect(
            cells == [
                Rect(x: 3, y: 6, width: 1, height: 2), Rect(x: 4, y: 6, width: 4, height: 2),
                Rect(x: 8, y: 6, width: 1, height: 2),
                Rect(x: 3, y: 8, width: 1, height: 1), Rect(x: 4, y: 8, width: 4, height: 1),
                Rect(x: 8, y: 8, width: 1, height: 1),
            ])
        #expect(Rect.empty.gridCells(width: 4, height: 4).isEmpty)
    }
}
