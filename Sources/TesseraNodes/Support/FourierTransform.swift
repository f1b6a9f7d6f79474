import Foundation

/// The 2-D discrete Fourier transform of a small square grid of complex numbers, in Double, unscaled
/// both ways (as OpenCV's `dft` without `DFT_SCALE`): forward `X[k] = Σ x[n] e^(-2πi kn/N)`, inverse
/// the same with `+`. Rows are transformed, then columns.
///
/// A side that is a power of two uses an iterative radix-2 FFT; any other side a direct DFT from a
/// table of `N` roots of unity, which is fast enough for the coarse grids saliency works on.
///
/// - Cost: per 2-D transform `2N² log₂N` butterflies for a power of two, `2N³` multiply-adds otherwise
///   (68x68: 0.6 M). The tables are built once per grid size.
struct FourierTransform: Sendable {
    let size: Int
    /// `cos(2πk/N)` and `sin(2πk/N)` for `k` in `0..<N`.
    private let cosines: [Double]
    private let sines: [Double]
    private let isPowerOfTwo: Bool

    init(size: Int) {
        precondition(size > 0, "a transform has at least one point")
        self.size = size
        cosines = (0..<size).map { cos(2 * Double.pi * Double($0) / Double(size)) }
        sines = (0..<size).map { sin(2 * Double.pi * Double($0) / Double(size)) }
        isPowerOfTwo = size & (size - 1) == 0
    }

    /// Transforms `real` and `imaginary` (each `size * size`, row by row) in place.
    func transform2D(real: inout [Double], imaginary: inout [Double], inverse: Bool) {
        precondition(real.count == size * size && imaginary.count == size * size)
        var lineReal = [Double](repeating: 0, count: size)
        var lineImaginary = [Double](repeating: 0, count: size)
        var scratchReal = [Double](repeating: 0, count: size)
        var scratchImaginary = [Double](repeating: 0, count: size)
        for vertical in [false, true] {
            for line in 0..<size {
                for i in 0..<size {
                    let index = vertical ? i * size + line : line * size + i
                    lineReal[i] = real[index]
                    lineImaginary[i] = imaginary[index]
                }
                transform1D(
                    &lineReal, &lineImaginary, inverse: inverse, scratchReal: &scratchReal,
                    scratchImaginary: &scratchImaginary)
                for i in 0..<size {
                    let index = vertical ? i * size + line : line * size + i
                    real[index] = lineReal[i]
                    imaginary[index] = lineImaginary[i]
                }
            }
        }
    }

    /// One line of `size` points, in place.
    private func transform1D(
        _ re: inout [Double], _ im: inout [Double], inverse: Bool, scratchReal: inout [Double],
        scratchImaginary: inout [Double]
    ) {
        let n = size
        let sign: Double = inverse ? 1 : -1
        if isPowerOfTwo {
            // Bit-reversal permutation, then butterflies of growing span.
            var j = 0
            for i in 1..<Swift.max(n, 1) {
                var bit = n >> 1
                while j & bit != 0 {
                    j ^= bit
                    bit >>= 1
                }
                j |= bit
                if i < j {
                    re.swapAt(i, j)
                    im.swapAt(i, j)
                }
            }
            var span = 1
            while span < n {
                let step = n / (span * 2)
                for start in stride(from: 0, to: n, by: span * 2) {
                    for k in 0..<span {
                        let wr = cosines[k * step]
                        let wi = sign * sines[k * step]
                        let a = start + k
                        let b = a + span
                        let tr = re[b] * wr - im[b] * wi
                        let ti = re[b] * wi + im[b] * wr
                        re[b] = re[a] - tr
                        im[b] = im[a] - ti
                        re[a] += tr
                        im[a] += ti
                    }
                }
                span *= 2
            }
        } else {
            for k in 0..<n {
                var sumRe = 0.0
                var sumIm = 0.0
                var root = 0  // (k * m) mod n, stepped to stay exact
                for m in 0..<n {
                    let wr = cosines[root]
                    let wi = sign * sines[root]
                    sumRe += re[m] * wr - im[m] * wi
                    sumIm += re[m] * wi + im[m] * wr
                    root += k
                    if root >= n { root -= n }
                }
                scratchReal[k] = sumRe
                scratchImaginary[k] = sumIm
            }
            for k in 0..<n {
                re[k] = scratchReal[k]
                im[k] = scratchImaginary[k]
            }
        }
    }
}
