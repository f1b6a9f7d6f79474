import Foundation

/// The taps of an exact Gaussian, as SciPy's `gaussian_filter` makes them: `exp(-x² / 2σ²)` for
/// `|x| <= radius`, `radius = Int(4σ + 0.5)` (`truncate=4.0`), divided by their sum.
struct GaussianTaps: Sendable {
    /// Half the kernel's width: it reads `radius` pixels on each side.
    let radius: Int
    /// `weights[k]` is the weight of the pixels at distance `k`, for `k` in `0...radius`.
    let weights: [Float]

    /// SciPy's taps, `truncate` sigmas on each side (SciPy's default, 4, unless told).
    init(sigma: Double, truncate: Double = 4) {
        let radius = Int(truncate * sigma + 0.5)
        guard radius > 0 else {
            (self.radius, weights) = (0, [1])
            return
        }
        var exact = (0...radius).map { k in exp(-0.5 * Double(k * k) / (sigma * sigma)) }
        let sum = exact.dropFirst().reduce(0, +) * 2 + exact[0]
        for k in exact.indices { exact[k] /= sum }
        self.radius = radius
        self.weights = exact.map(Float.init)
    }

    /// The same taps, in Double, from `-radius` to `radius`: the reference other kernels are fitted to.
    static func reference(sigma: Double) -> [Double] {
        let radius = Int(4 * sigma + 0.5)
        let exact = (-radius...radius).map { k in exp(-0.5 * Double(k * k) / (sigma * sigma)) }
        let sum = exact.reduce(0, +)
        return exact.map { $0 / sum }
    }
}

/// A Gaussian approximated, on a window of `2R + 1` pixels, by a constant and three cosines:
///
///     h(n) = c₀ + c₁ cos(πn/R) + c₂ cos(2πn/R) + c₃ cos(3πn/R),   |n| <= R,   R = round(3.5σ)
///
/// The coefficients are the least-squares fit to SciPy's taps (``GaussianTaps``), scaled to sum to 1.
/// Each cosine splits into a cosine and a sine of the absolute coordinate, `cos(θ(m - x)) = cos θm
/// cos θx + sin θm sin θx`, so filtering is 7 plain window sums of the input multiplied by `1, cos θm,
/// sin θm, ...` (computed in O(1) per pixel, see ``CosineSweep``), each multiplied by `c₀, c₁ cos θx,
/// ...` at the output: the cost does not grow with sigma. This is the idea of Elboher and Werman's
/// "Cosine integral images for fast spatial and range filtering" (ICIP 2011); Sugimoto and Kamata's
/// "Fast Gaussian filter with second-order shift property of DCT-5" (ICIP 2013) fits the same series
/// but slides it recursively, which would make a pixel depend on where its tile starts.
///
/// Accuracy: for sigma 4.5 to 1000 the 1-D kernel is off SciPy's by at most 0.70/255 in L1 norm and
/// the 2-D kernel by 1.16/255 (at sigma 5.3): no image with values in 0...1 can differ by more than
/// that, and photos differ by 0.2/255 at most. Three frequencies on 3.5σ (not 4σ) is the cheapest
/// choice well under 2/255: two frequencies are 6/255 off or worse, three on a 4σ window go negative,
/// and cascades of box filters (Gwosdek et al. 2011) measured 2.3 to 5/255 off on the example photo
/// even with 6 passes.
struct CosineGaussian: Sendable {
    /// Components: the plain sum, then a cosine and a sine for each of the three frequencies.
    static let components = 7

    /// Half the window: R.
    let radius: Int
    /// `modulation[q * 6 + j]`: the factor of component `j + 1` at a coordinate `m` with `m mod 2R == q`
    /// (`cos θ₁m, sin θ₁m, cos θ₂m, ...`); component 0's factor is 1.
    let modulation: [Float]
    /// `demodulation[q * 7 + j]`: the weight of component `j` at an output `x` with `x mod 2R == q`
    /// (`c₀, c₁ cos θ₁x, c₁ sin θ₁x, ...`).
    let demodulation: [Float]
    /// The fitted kernel from `-R` to `R` (for tests and docs).
    let kernel: [Double]

    /// Sigma must be at least 0.5 (a window of at least 2 pixels on each side).
    init(sigma: Double) {
        let radius = max(2, Int(3.5 * sigma + 0.5))
        let reference = GaussianTaps.reference(sigma: sigma)
        let referenceRadius = reference.count / 2
        let basis = (0..<4).map { k in
            (-radius...radius).map { n in cos(Double.pi * Double(k * n) / Double(radius)) }
        }
        // Normal equations of the least-squares fit over the window (reference taps beyond it are lost).
        var matrix = [[Double]](repeating: [Double](repeating: 0, count: 5), count: 4)
        for k in 0..<4 {
            for l in 0..<4 { matrix[k][l] = zip(basis[k], basis[l]).reduce(0) { $0 + $1.0 * $1.1 } }
            for (i, n) in (-radius...radius).enumerated() where abs(n) <= referenceRadius {
                matrix[k][4] += basis[k][i] * reference[n + referenceRadius]
            }
        }
        var coefficients = Self.solve(matrix)
        let kernel = (0..<(2 * radius + 1)).map { i in (0..<4).reduce(0) { $0 + coefficients[$1] * basis[$1][i] } }
        let sum = kernel.reduce(0, +)
        coefficients = coefficients.map { $0 / sum }

        let period = 2 * radius
        var modulation = [Float](repeating: 0, count: period * 6)
        var demodulation = [Float](repeating: 0, count: period * 7)
        for q in 0..<period {
            demodulation[q * 7] = Float(coefficients[0])
            for k in 1...3 {
                let angle = Double.pi * Double(k * q) / Double(radius)
                modulation[q * 6 + 2 * k - 2] = Float(cos(angle))
                modulation[q * 6 + 2 * k - 1] = Float(sin(angle))
                demodulation[q * 7 + 2 * k - 1] = Float(coefficients[k] * cos(angle))
                demodulation[q * 7 + 2 * k] = Float(coefficients[k] * sin(angle))
            }
        }
        self.radius = radius
        self.modulation = modulation
        self.demodulation = demodulation
        self.kernel = kernel.map { $0 / sum }
    }

    /// Solves an n x (n + 1) augmented system by Gaussian elimination with partial pivoting.
    private static func solve(_ system: [[Double]]) -> [Double] {
        var m = system
        let n = m.count
        for column in 0..<n {
            let pivot = (column..<n).max { abs(m[$0][column]) < abs(m[$1][column]) } ?? column
            m.swapAt(column, pivot)
            for row in (column + 1)..<n {
                let factor = m[row][column] / m[column][column]
                for j in column...n { m[row][j] -= factor * m[column][j] }
            }
        }
        var x = [Double](repeating: 0, count: n)
        for row in (0..<n).reversed() {
            var value = m[row][n]
            for j in (row + 1)..<n { value -= m[row][j] * x[j] }
            x[row] = value / m[row][row]
        }
        return x
    }
}
