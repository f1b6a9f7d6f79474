import TesseraCore

/// An image's rows averaged over `factor` x `factor` blocks: how `DecodeOptions.shrink` shrinks the
/// formats libjpeg does not decode (PNG, TIFF), to the size a DCT-scaled JPEG has.
///
/// Blocks start at the top-left. Those of the last column and row hold what is left of the image and
/// average the pixels they have, so the size is `ceil(width / factor)` x `ceil(height / factor)`.
/// Colors are premultiplied by alpha while averaging, as `resize` does: a transparent pixel's color
/// counts for nothing, so edges never darken. An opaque RGB image keeps alpha exactly 1.
///
/// The image is read top to bottom in bands of whole blocks (64 rows), so a front-to-back decoder
/// beneath decodes once and only one band is held, whatever the image's height.
///
/// - Cost: one addition per input sample, one division per output sample.
final class BlockAverageRows: RowDecoder {
    let width: Int
    let height: Int
    let channels: Int
    private let image: Image
    private let factor: Int
    /// Output rows averaged from one band of input rows.
    private let blocksPerBand: Int
    private var band: PixelBuffer
    private var nextRow = 0

    init(image: Image, factor: Int) {
        self.image = image
        self.factor = factor
        width = (image.width + factor - 1) / factor
        height = (image.height + factor - 1) / factor
        channels = image.channels
        blocksPerBand = Swift.max(1, RowBands.height / factor)
        band = PixelBuffer(region: .empty, channels: image.channels)
    }

    func readRows(into target: UnsafeMutablePointer<Float>, count: Int) throws {
        var done = 0
        while done < count {
            let rows = Swift.min(count - done, blocksPerBand)
            let top = nextRow * factor
            let bottom = Swift.min((nextRow + rows) * factor, image.height)
            band.reshape(to: Rect(x: 0, y: top, width: image.width, height: bottom - top))
            try image.render(into: &band)
            for row in 0..<rows {
                let first = (nextRow + row) * factor
                average(
                    rows: first..<Swift.min(first + factor, image.height),
                    into: target + (done + row) * width * channels)
            }
            nextRow += rows
            done += rows
        }
    }

    /// Averages input rows `rows` of the band into one output row.
    private func average(rows: Range<Int>, into target: UnsafeMutablePointer<Float>) {
        let factor = self.factor
        let inputWidth = image.width
        let rowLength = band.rowLength
        let firstRow = rows.lowerBound - band.region.minY
        let premultiply = image.layout.hasAlpha
        band.samples.withUnsafeBufferPointer { samples in
            guard let base = samples.baseAddress else { return }
            if channels == 1 {
                for x in 0..<width {
                    let left = x &* factor
                    let right = Swift.min(left &+ factor, inputWidth)
                    var sum: Float = 0
                    for row in firstRow..<(firstRow &+ rows.count) {
                        let line = base + row &* rowLength
                        for column in left..<right { sum += line[column] }
                    }
                    target[x] = sum / Float((right &- left) &* rows.count)
                }
                return
            }
            let raw = UnsafeRawPointer(base)
            let out = UnsafeMutableRawPointer(target)
            for x in 0..<width {
                let left = x &* factor
                let right = Swift.min(left &+ factor, inputWidth)
                let count = Float((right &- left) &* rows.count)
                var sum = SIMD4<Float>()
                for row in firstRow..<(firstRow &+ rows.count) {
                    var offset = (row &* rowLength &+ left &* 4) &* 4
                    for _ in left..<right {
                        var pixel = raw.loadUnaligned(fromByteOffset: offset, as: SIMD4<Float>.self)
                        if premultiply { pixel *= SIMD4(pixel.w, pixel.w, pixel.w, 1) }
                        sum += pixel
                        offset &+= 16
                    }
                }
                var mean: SIMD4<Float>
                if premultiply {
                    let alpha = sum.w
                    mean = alpha > 0 ? sum / SIMD4(alpha, alpha, alpha, count) : SIMD4<Float>()
                } else {
                    mean = sum / count
                    mean.w = 1
                }
                out.storeBytes(of: mean, toByteOffset: x &* 16, as: SIMD4<Float>.self)
            }
        }
    }
}
