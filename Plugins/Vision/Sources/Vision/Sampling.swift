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
    /// channels, alpha is ignored.
    func tensor(from pixels: PixelBuffer, low: Float, high: Float) -> [Float] {
        var out = [Float](repeating: 0, count: width * height * 3)
        let (imageWidth, imageHeight) = (pixels.region.width, pixels.region.height)
        let channels = pixels.channels
        let scale = high - low
        pixels.samples.withUnsafeBufferPointer { samples in
            for v in 0..<height {
                for u in 0..<width {
                    let point = origin + Double(u) * across + Double(v) * down
                    let x0 = Int(point.x.rounded(.down))
                    let y0 = Int(point.y.rounded(.down))
                    let fx = Float(point.x - Double(x0))
                    let fy = Float(point.y - Double(y0))
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
                        let at = (y * imageWidth + x) * channels
                        let sample =
                            channels == 1
                            ? SIMD3(repeating: samples[at]) : SIMD3(samples[at], samples[at + 1], samples[at + 2])
                        rgb += sample * weight
                    }
                    let at = (v * width + u) * 3
                    out[at] = low + scale * rgb.x
                    out[at + 1] = low + scale * rgb.y
                    out[at + 2] = low + scale * rgb.z
                }
            }
        }
        return out
    }
}

/// `source` (`sourceWidth` x `sourceHeight`, one channel) resized bilinearly to `width` x `height` as
/// OpenCV's `resize` with INTER_LINEAR does it (pixel centers aligned, edges replicated), into a gray
/// buffer. Separable: the weights of each column and row are found once.
func resizeBilinear(
    _ source: [Float], sourceWidth: Int, sourceHeight: Int, width: Int, height: Int
) -> PixelBuffer {
    func taps(_ count: Int, from sourceCount: Int) -> [(Int, Int, Float)] {
        let scale = Double(sourceCount) / Double(count)
        return (0..<count).map { index in
            let position = max((Double(index) + 0.5) * scale - 0.5, 0)
            let low = min(Int(position), sourceCount - 1)
            let high = min(low + 1, sourceCount - 1)
            return (low, high, Float(position - Double(low)))
        }
    }
    let columns = taps(width, from: sourceWidth)
    let rows = taps(height, from: sourceHeight)
    var buffer = PixelBuffer(region: Rect(width: width, height: height), channels: 1)
    // Each source row resized across once, then rows blended.
    var across = [Float](repeating: 0, count: width * sourceHeight)
    for y in 0..<sourceHeight {
        let row = y * sourceWidth
        for (x, (low, high, weight)) in columns.enumerated() {
            across[y * width + x] = source[row + low] + (source[row + high] - source[row + low]) * weight
        }
    }
    buffer.samples.withUnsafeMutableBufferPointer { out in
        across.withUnsafeBufferPointer { across in
            for (y, (low, high, weight)) in rows.enumerated() {
                let top = low * width
                let bottom = high * width
                let target = y * width
                for x in 0..<width {
                    out[target + x] = across[top + x] + (across[bottom + x] - across[top + x]) * weight
                }
            }
        }
    }
    return buffer
}
