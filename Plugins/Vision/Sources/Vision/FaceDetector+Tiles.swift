import TesseraPluginSDK

/// Small faces in large photos: the full-range detector run on an image pyramid of overlapping square
/// tiles, with the boxes merged across tiles and levels.
///
/// Letterboxed whole, a 2048 x 1024 group photo with faces 100 pixels wide gives each face 6 pixels of the
/// short-range model's 128 and 9 of the full-range model's 192: MediaPipe finds none, or half. Measured
/// with MediaPipe's own Python package on the people photos, the short-range model finds faces filling
/// 16 % of its input or more, the full-range one those filling 8 % to 33 % (it misses some filling half).
/// Tiled, the short-range model took hands and shirts for faces (18 at its 0.5, on the 8-face group
/// photo), the full-range one none: so the tiles always run the full-range model. Each level's tiles are
/// squares in which the faces it is meant for fill ``smallestShare`` (16 %) to twice that; the finest
/// level's tiles are `minimumFaceSize / smallestShare` pixels across, each coarser level's twice as large,
/// and the whole photo letterboxed (MediaPipe's own pass, with the node's range) covers the largest faces.
///
/// Tiles of a level overlap by half, so every face up to half a tile wide lies whole in one tile with room
/// around it. Each tile keeps the faces whose centres fall in its share of the level (the part nearer its
/// centre than any other tile's, widened by 5 % of the tile so that a face on the border is kept by both
/// rather than by neither) and that are no wider than ``largestShare`` of it (larger ones belong to the
/// coarser levels, which see them whole; a large face's part seen by a small tile is not a face). The faces
/// of every level are then merged by MediaPipe's weighted suppression, and a face lying mostly inside a
/// more confident one is dropped.
///
/// - Cost: about `4 W H / side²` detector runs for the finest level's tile side, a third more for the
///   coarser ones: on a 2048 x 1024 photo, `minimumFaceSize: 20` is 683 runs of the full-range model, 40 is
///   171, 100 is 22; on a 4000 x 3000 photo, 20 is 3881 and 40 is 920.
extension FaceDetector {
    /// The share of a tile's side the smallest face a level is meant for fills. On a plain background the
    /// full-range model finds every face of the people photos from 8 % of its input, but in a crowd a dark
    /// face filling 12.5 % of a tile went unseen (score under 0.3) where it scored 0.82 filling 16 %.
    static let smallestShare = 0.16
    /// The widest face a tile keeps, as a share of its side: the faces its level is meant for fill up to
    /// 32 % (the full-range model misses some filling half its input).
    static let largestShare = 0.35
    /// The lowest score a face found in a tile needs (unless the node's minimumConfidence says otherwise):
    /// MediaPipe's 0.6 for the full-range model is for one look at a photo, and over the few hundred tiles
    /// of a group photo it let a brick wall pass as a face.
    static let tileThreshold = 0.7
    /// The most detector runs one image may take (about a minute on one core): a 12-megapixel photo down to
    /// 20-pixel faces is 3880, a 100-megapixel one (11547 x 8660) down to 40 pixels 8415.
    static let maximumRuns = 10_000

    /// A square of the image the detector sees, and the part of the image whose faces it keeps.
    struct Tile: Equatable {
        /// The top left corner in image pixels (pixel edges), and the side.
        var origin: SIMD2<Double>
        var side: Double
        var keepLow: SIMD2<Double>
        var keepHigh: SIMD2<Double>
    }

    /// The pyramid's levels below the whole image, finest first: the tile sides from
    /// `minimumFaceSize / smallestShare`, doubling while smaller than the image's longer side.
    func levels(width: Int, height: Int, minimumFaceSize: Double) -> [[Tile]] {
        let longer = Double(max(width, height))
        var sides: [Double] = []
        var side = max(minimumFaceSize / Self.smallestShare, Double(detector.side) / 2)
        while side < longer {
            sides.append(side)
            side *= 2
        }
        return sides.map { Self.tiles(width: width, height: height, side: $0) }
    }

    /// Squares of `side` overlapping by at least half, the first and last flush with the image's edges (one
    /// centred square, letterboxed, along a side shorter than `side`).
    static func tiles(width: Int, height: Int, side: Double) -> [Tile] {
        func positions(_ length: Double) -> [Double] {
            guard length > side else { return [(length - side) / 2] }
            let count = Int(((length - side) / (side / 2)).rounded(.up)) + 1
            return (0..<count).map { (length - side) * Double($0) / Double(count - 1) }
        }
        /// Where each square's share begins and ends: halfway between its centre and its neighbours'.
        func shares(_ starts: [Double]) -> [(Double, Double)] {
            let pad = side * 0.05
            return starts.indices.map { index in
                let low = index == 0 ? -Double.infinity : (starts[index - 1] + starts[index] + side) / 2 - pad
                let high =
                    index == starts.count - 1 ? Double.infinity : (starts[index] + starts[index + 1] + side) / 2 + pad
                return (low, high)
            }
        }
        let (xs, ys) = (positions(Double(width)), positions(Double(height)))
        let (across, down) = (shares(xs), shares(ys))
        var tiles: [Tile] = []
        for (y, rows) in zip(ys, down) {
            for (x, columns) in zip(xs, across) {
                tiles.append(
                    Tile(
                        origin: SIMD2(x, y), side: side, keepLow: SIMD2(columns.0, rows.0),
                        keepHigh: SIMD2(columns.1, rows.1)))
            }
        }
        return tiles
    }

    /// The faces of `whole` (the whole image's, from either range), and those this full-range detector
    /// finds on tiles down to about `minimumFaceSize` pixels wide, merged, in normalized image coordinates,
    /// most confident first.
    func tiled(
        _ image: Image, adding whole: [Detection], threshold: Double?, minimumFaceSize: Double,
        scratch: inout PixelBuffer
    ) throws -> [Detection] {
        let (width, height) = (image.width, image.height)
        let size = SIMD2(Double(width), Double(height))
        let scale = Double(detector.side)
        let levels = levels(width: width, height: height, minimumFaceSize: minimumFaceSize)
        let runs = levels.reduce(0) { $0 + $1.count }
        guard runs <= Self.maximumRuns else {
            let enough = (minimumFaceSize * (Double(runs) / Double(Self.maximumRuns)).squareRoot()).rounded(.up)
            throw VisionError(
                "minimumFaceSize \(Int(minimumFaceSize)) on a \(width)x\(height) photo is \(runs) detector runs, "
                    + "more than \(Self.maximumRuns) (about a minute): make it at least \(Int(enough))")
        }
        var found = whole
        for level in levels {
            for tile in level {
                let step = tile.side / scale
                var cut = TensorCut(
                    width: detector.side, height: detector.side, origin: tile.origin, across: SIMD2(step, 0),
                    down: SIMD2(0, step))
                // About one sample a source pixel (3 x 3 for a tile shrunk 2.7 times; one for 1.3 times, which
                // aliases little, where 2 x 2 cost more than the model).
                cut.supersample = max(Int(step.rounded()), 1)
                let raw = try detector.unmerged(
                    image, cut: cut, minimumScore: threshold ?? Self.tileThreshold, scratch: &scratch)
                for detection in raw where (detection.maximum - detection.minimum).max() <= Self.largestShare {
                    let center = tile.origin + (detection.minimum + detection.maximum) / 2 * tile.side
                    guard all(center .>= tile.keepLow), all(center .<= tile.keepHigh) else { continue }
                    var placed = detection
                    placed.minimum = (tile.origin + detection.minimum * tile.side) / size
                    placed.maximum = (tile.origin + detection.maximum * tile.side) / size
                    placed.keypoints = detection.keypoints.map { (tile.origin + $0 * tile.side) / size }
                    found.append(placed)
                }
            }
        }
        return Self.withoutNested(AnchorDetector.weightedSuppression(found), size: size)
    }

    /// Drops each detection lying mostly (over half its area, in pixels) inside a more confident one: a
    /// face's eye or mouth taken for a small face by a fine level.
    static func withoutNested(_ detections: [Detection], size: SIMD2<Double>) -> [Detection] {
        var kept: [Detection] = []
        for detection in detections.sorted(by: { $0.score > $1.score }) {
            let low = detection.minimum * size
            let high = detection.maximum * size
            let area = (high - low).x * (high - low).y
            let nested = kept.contains { other in
                let overlap = pointwiseMax(
                    pointwiseMin(high, other.maximum * size) - pointwiseMax(low, other.minimum * size), .zero)
                return overlap.x * overlap.y > 0.5 * area
            }
            if !nested { kept.append(detection) }
        }
        return kept
    }
}
