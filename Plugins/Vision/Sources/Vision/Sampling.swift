import Foundation
import TesseraPluginSDK

/// How a model's input tensor is cut from an image, as MediaPipe's ImageToTensorCalculator does it on the
/// CPU: tensor pixel (u, v) samples the image at `origin + u * across + v * down`, in image coordinates
/// whose integers are pixel centers (OpenCV's warpAffine and warpPerspective), bilinearly.
struct TensorCut {
    var width: Int
    var height: Int
    var origin: SIMD2<Double>
    var across: SIMD2<Double>
    var down: SIMD2<Double>
    /// Outside the image: 0 (MediaPipe's BORDER_ZERO, for the detectors and segmentation) or the nearest
    /// edge pixel (BORDER_REPLICATE, for the face mesh's rotated crop).
    var replicateBorder = false
    /// Round each sample to 8 bits, as OpenCV's warps on 8-bit images do (MediaPipe's hand landmark model
    /// moves its joints by up to 0.6 % of the hand without it).
    var roundToBytes = false
    /// Each tensor pixel the mean of `supersample` x `supersample` bilinear samples spread over its
    /// footprint, for cuts that shrink the image (the face tiles' coarser levels): one bilinear sample a
    /// pixel, as MediaPipe's warp takes, aliases a photo shrunk 3 times, and the full-range detector then
    /// missed a dark 64-pixel face it found at 20 pixels unshrunk. 1 (one sample) for MediaPipe's own cuts.
    var supersample = 1

    /// The square of side `max(W, H)` centered on the image, edge to edge onto `side` x `side`, as the
    /// face detector sees the image (letterboxed).
    static func letterbox(_ imageWidth: Int, _ imageHeight: Int, side: Int) -> TensorCut {
        let square = Double(max(imageWidth, imageHeight))
        let scale = square / Double(side)
        return TensorCut(
            width: side, height: side,
            origin: SIMD2(Double(imageWidth) / 2 - square / 2, Double(imageHeight) / 2 - square / 2),
            across: SIMD2(scale, 0), down: SIMD2(0, scale))
    }

    /// The whole image stretched onto `width` x `height`, as the segmentation model sees it.
    static func stretch(_ imageWidth: Int, _ imageHeight: Int, width: Int, height: Int) -> TensorCut {
        TensorCut(
            width: width, height: height, origin: .zero,
            across: SIMD2(Double(imageWidth) / Double(width), 0), down: SIMD2(0, Double(imageHeight) / Double(height)))
    }

    /// RGB samples (NHWC, one image) mapped from 0...1 to `low...high`; gray images give three equal
    /// channels, alpha is ignored. Only the pixels the samples touch are read from `image`, in bands of
    /// tensor rows (``bands(_:_:)``): a 192 x 192 letterbox of a 12-megapixel photo reads 192 strips two
    /// pixels high, not the photo.
    ///
    /// The pixels are read into `scratch`, which keeps its storage for the next cut: a face's two crops
    /// of millions of pixels allocate (and page-fault) their memory once.
    func tensor(from image: Image, low: Float, high: Float, reusing scratch: inout PixelBuffer) throws -> [Float] {
        var out = [Float](repeating: 0, count: width * height * 3)
        let (imageWidth, imageHeight) = (image.width, image.height)
        let channels = image.channels
        let scale = high - low
        let taps = max(supersample, 1)
        let offsets = (0..<taps).map { (Double($0) + 0.5) / Double(taps) - 0.5 }
        // An axis-aligned cut's sample columns, once: x is then the same for every row.
        let aligned = across.y == 0 && down.x == 0
        let columns = aligned ? (0..<width).flatMap { u in offsets.map { origin.x + (Double(u) + $0) * across.x } } : []
        for (rows, region) in bands(imageWidth, imageHeight) {
            let count = region.area * channels
            if scratch.channels != channels || scratch.samples.capacity < count {
                scratch = PixelBuffer(region: .empty, channels: channels)
                scratch.samples.reserveCapacity(count + count / 4)
            }
            scratch.reshape(to: region)
            try image.render(into: &scratch)
            scratch.samples.withUnsafeBufferPointer { samples in
                out.withUnsafeMutableBufferPointer { out in
                    for v in rows {
                        for u in 0..<width {
                            var rgb = SIMD3<Float>()
                            for dv in offsets {
                                for (tap, du) in offsets.enumerated() {
                                    // Axis-aligned cuts (detectors, tiles) take their columns' taps from
                                    // the table; the point is the same either way.
                                    rgb +=
                                        aligned
                                        ? sample(
                                            x: columns[u * taps + tap],
                                            y: origin.y + (Double(v) + dv) * down.y, samples, region,
                                            channels, imageWidth, imageHeight)
                                        : sample(
                                            origin + (Double(u) + du) * across + (Double(v) + dv) * down, samples,
                                            region, channels, imageWidth, imageHeight)
                                }
                            }
                            if taps > 1 { rgb /= Float(taps * taps) }
                            if roundToBytes { rgb = (rgb * 255).rounded(.toNearestOrAwayFromZero) / 255 }
                            let at = (v * width + u) * 3
                            out[at] = low + scale * rgb.x
                            out[at + 1] = low + scale * rgb.y
                            out[at + 2] = low + scale * rgb.z
                        }
                    }
                }
            }
        }
        return out
    }

    /// The image bilinearly at `point` (integers are pixel centres), from `samples` holding `region`.
    @inline(__always)
    private func sample(
        _ point: SIMD2<Double>, _ samples: UnsafeBufferPointer<Float>, _ region: Rect, _ channels: Int,
        _ imageWidth: Int, _ imageHeight: Int
    ) -> SIMD3<Float> {
        sample(x: point.x, y: point.y, samples, region, channels, imageWidth, imageHeight)
    }

    @inline(__always)
    private func sample(
        x pointX: Double, y pointY: Double, _ samples: UnsafeBufferPointer<Float>, _ region: Rect, _ channels: Int,
        _ imageWidth: Int, _ imageHeight: Int
    ) -> SIMD3<Float> {
        let point = SIMD2(pointX, pointY)
        let x0 = Int(point.x.rounded(.down))
        let y0 = Int(point.y.rounded(.down))
        let fx = Float(point.x - Double(x0))
        let fy = Float(point.y - Double(y0))
        // Inside the image with four weights above 0 (nearly every sample), the four neighbours at once;
        // the same sums in the same order as the loop below, so the same bits.
        if x0 >= 0, y0 >= 0, x0 + 1 < imageWidth, y0 + 1 < imageHeight, fx > 0, fy > 0 {
            let at = ((y0 - region.y) * region.width + x0 - region.x) * channels
            let below = at + region.width * channels
            func pixel(_ at: Int) -> SIMD3<Float> {
                channels == 1 ? SIMD3(repeating: samples[at]) : SIMD3(samples[at], samples[at + 1], samples[at + 2])
            }
            var rgb = SIMD3<Float>()
            rgb += pixel(at) * ((1 - fx) * (1 - fy))
            rgb += pixel(at + channels) * (fx * (1 - fy))
            rgb += pixel(below) * ((1 - fx) * fy)
            rgb += pixel(below + channels) * (fx * fy)
            return rgb
        }
        // The four neighbours by index (no arrays: this runs for every tensor sample).
        var rgb = SIMD3<Float>()
        for corner in 0..<4 {
            let (dx, dy) = (corner & 1, corner >> 1)
            let weight = (dx == 0 ? 1 - fx : fx) * (dy == 0 ? 1 - fy : fy)
            guard weight > 0 else { continue }
            var x = x0 + dx
            var y = y0 + dy
            if replicateBorder {
                x = min(max(x, 0), imageWidth - 1)
                y = min(max(y, 0), imageHeight - 1)
            } else if x < 0 || y < 0 || x >= imageWidth || y >= imageHeight {
                continue
            }
            let at = ((y - region.y) * region.width + x - region.x) * channels
            let sample =
                channels == 1 ? SIMD3(repeating: samples[at]) : SIMD3(samples[at], samples[at + 1], samples[at + 2])
            rgb += sample * weight
        }
        return rgb
    }

    /// The tensor's rows in bands, each with the region of the image its samples touch (their four
    /// neighbours, clamped into the image). Consecutive rows share a band while one read of their union
    /// costs no more pixels than two reads: the rows of an axis-aligned cut each get their own thin strip,
    /// a rotated crop's rows (which overlap) one region.
    func bands(_ imageWidth: Int, _ imageHeight: Int) -> [(rows: Range<Int>, region: Rect)] {
        // Supersampled, a tensor pixel's samples spread up to half its footprint around it.
        let spread = supersample > 1 ? 0.5 : 0
        func reach(_ v: Int) -> Rect {
            let start = origin + (Double(v) - spread) * down - spread * across
            let end = origin + (Double(v) + spread) * down + (Double(width - 1) + spread) * across
            func span(_ a: Double, _ b: Double, _ count: Int) -> (Int, Int) {
                let low = min(max(Int(min(a, b).rounded(.down)), 0), count - 1)
                let high = min(max(Int(max(a, b).rounded(.down)) + 1, 0), count - 1)
                return (low, max(high, low))
            }
            let (x0, x1) = span(start.x, end.x, imageWidth)
            let (y0, y1) = span(start.y, end.y, imageHeight)
            return Rect(x: x0, y: y0, width: x1 - x0 + 1, height: y1 - y0 + 1)
        }
        var result: [(rows: Range<Int>, region: Rect)] = []
        for v in 0..<height {
            let row = reach(v)
            if let last = result.last {
                let union = last.region.union(row)
                if union.area <= last.region.area + row.area {
                    result[result.count - 1] = (last.rows.lowerBound..<v + 1, union)
                    continue
                }
            }
            result.append((v..<v + 1, row))
        }
        return result
    }
}

/// A square of the image, `side` pixels, turned by `rotation` radians about `center`, as a model with a
/// `tensorSide` x `tensorSide` input sees it (MediaPipe's rotated rectangles: a face's crop, a hand's).
struct TurnedSquare {
    var center: SIMD2<Double>
    var side: Double
    var rotation: Double
    let tensorSide: Int

    /// `angle` in -pi..<pi, as MediaPipe normalizes its rectangles' rotations.
    static func normalized(_ angle: Double) -> Double {
        angle - 2 * Double.pi * ((angle + Double.pi) / (2 * Double.pi)).rounded(.down)
    }

    /// Tensor coordinates (0...tensorSide) to image pixels.
    func image(_ point: SIMD2<Double>) -> SIMD2<Double> {
        let local = (point / Double(tensorSide) - 0.5) * side
        let (c, s) = (cos(rotation), sin(rotation))
        return center + SIMD2(c * local.x - s * local.y, s * local.x + c * local.y)
    }

    /// The cut that samples it, edges replicated; `roundToBytes` as ``TensorCut/roundToBytes``.
    func cut(roundToBytes: Bool = false) -> TensorCut {
        let step = side / Double(tensorSide)
        let (c, s) = (cos(rotation), sin(rotation))
        return TensorCut(
            width: tensorSide, height: tensorSide, origin: image(.zero), across: SIMD2(c, s) * step,
            down: SIMD2(-s, c) * step, replicateBorder: true, roundToBytes: roundToBytes)
    }
}

/// A one-channel grid (`sourceWidth` x `sourceHeight`, a model's output) resized bilinearly to
/// `width` x `height` as OpenCV's `resize` with INTER_LINEAR does it (pixel centers aligned, edges
/// replicated): a kernel without inputs, so the scheduler renders the full-size mask tile by tile where
/// it is read, and the node never holds it. A pixel's value depends on its position only, whatever the
/// tile.
struct BilinearResize: ImageKernel {
    let source: [Float]
    let sourceWidth: Int
    let sourceHeight: Int
    let width: Int
    let height: Int

    /// The two source indices and the weight of the second for output index `index` of `count`.
    private static func tap(_ index: Int, _ count: Int, from sourceCount: Int) -> (Int, Int, Float) {
        let position = max((Double(index) + 0.5) * Double(sourceCount) / Double(count) - 0.5, 0)
        let low = min(Int(position), sourceCount - 1)
        return (low, min(low + 1, sourceCount - 1), Float(position - Double(low)))
    }

    func render(into output: inout PixelBuffer, from inputs: [PixelBuffer]) throws {
        let region = output.region
        let columns = (region.x..<region.x + region.width).map { Self.tap($0, width, from: sourceWidth) }
        output.samples.withUnsafeMutableBufferPointer { out in
            for row in 0..<region.height {
                let (top, bottom, weight) = Self.tap(region.y + row, height, from: sourceHeight)
                // Each of the two source rows resized across, then blended, as a separable resize does.
                for (x, (low, high, w)) in columns.enumerated() {
                    let a = source[top * sourceWidth + low]
                    let b = source[bottom * sourceWidth + low]
                    let upper = a + (source[top * sourceWidth + high] - a) * w
                    let lower = b + (source[bottom * sourceWidth + high] - b) * w
                    out[row * region.width + x] = upper + (lower - upper) * weight
                }
            }
        }
    }
}

extension Image {
    /// The image read top to bottom in bands of `rows` rows, each given with its region and its samples: one
    /// buffer, reused, so no copy of the whole image is held.
    func forEachBand(rows: Int = 256, _ body: (Rect, UnsafeBufferPointer<Float>) throws -> Void) throws {
        var band = PixelBuffer(region: .empty, channels: channels)
        for top in stride(from: 0, to: height, by: rows) {
            let region = Rect(x: 0, y: top, width: width, height: min(rows, height - top))
            band.reshape(to: region)
            try render(into: &band)
            try band.samples.withUnsafeBufferPointer { try body(region, $0) }
        }
    }
}

/// The length of a vector.
func norm(_ v: SIMD2<Double>) -> Double { (v * v).sum().squareRoot() }

func dot(_ a: SIMD2<Double>, _ b: SIMD2<Double>) -> Double { (a * b).sum() }
