import Foundation
import TesseraCore

extension Saliency {
    /// The spectral residual map on the grid, divided by its maximum (OpenCV's scale), row by row.
    func spectralResidual() throws -> [Double] {
        // Rec. 601 gray (OpenCV's BGR2GRAY), then a shrink that samples rather than averages: OpenCV's
        // bilinear resize, which the method's published maps and OpenCV's output are made with.
        let gray = Image(
            width: input.width, height: input.height, layout: .gray, depth: .float32,
            kernel: Grayscale.Kernel(weights: Luma.rec601), inputs: [KernelInput(input)])
        let shrink = Resize.Kernel(
            input: (input.width, input.height), output: (size, size), layout: .gray, interpolation: .bilinear,
            antialias: false)
        let shrunk = Image(
            width: size, height: size, layout: .gray, depth: .float32, kernel: shrink, inputs: [KernelInput(gray)])
        let samples = try grid(shrunk, rowsPerRequest: 1).samples

        let n = size
        var real = samples.map { Double($0) }
        var imaginary = [Double](repeating: 0, count: n * n)
        let fourier = FourierTransform(size: n)
        fourier.transform2D(real: &real, imaginary: &imaginary, inverse: false)

        // The residual: log amplitude minus its 3x3 average; the phase is kept by scaling each
        // coefficient by exp(residual) / amplitude. A zero amplitude (a flat image's) stays zero.
        let tiny = Double.leastNormalMagnitude
        var amplitude = [Double](repeating: 0, count: n * n)
        var logAmplitude = [Double](repeating: 0, count: n * n)
        for i in 0..<(n * n) {
            amplitude[i] = (real[i] * real[i] + imaginary[i] * imaginary[i]).squareRoot()
            logAmplitude[i] = log(Swift.max(amplitude[i], tiny))
        }
        let average = Self.filterReflected(logAmplitude, size: n, taps: [1.0 / 3, 1.0 / 3, 1.0 / 3])
        for i in 0..<(n * n) {
            let factor = exp(logAmplitude[i] - average[i]) / Swift.max(amplitude[i], tiny)
            real[i] *= factor
            imaginary[i] *= factor
        }
        fourier.transform2D(real: &real, imaginary: &imaginary, inverse: true)

        var magnitude = (0..<(n * n)).map { i in (real[i] * real[i] + imaginary[i] * imaginary[i]).squareRoot() }
        magnitude = Self.filterReflected(magnitude, size: n, taps: Self.gaussianTaps(count: 5, sigma: 8))
        var largest = 0.0
        for i in magnitude.indices {
            magnitude[i] *= magnitude[i]
            if magnitude[i].isFinite { largest = Swift.max(largest, magnitude[i]) }
        }
        return largest > 0 ? magnitude.map { $0 / largest } : magnitude.map { _ in 0 }
    }

    /// `grid` (size x size, row by row) filtered by `taps` along rows, then along columns, with the
    /// border reflected without repeating the edge (OpenCV's default border, `BORDER_REFLECT_101`).
    static func filterReflected(_ grid: [Double], size n: Int, taps: [Double]) -> [Double] {
        let radius = taps.count / 2
        func reflect(_ i: Int) -> Int {
            guard n > 1 else { return 0 }
            var i = i
            while i < 0 || i >= n { i = i < 0 ? -i : 2 * n - 2 - i }
            return i
        }
        var across = [Double](repeating: 0, count: n * n)
        for y in 0..<n {
            for x in 0..<n {
                var sum = 0.0
                for (k, weight) in taps.enumerated() { sum += weight * grid[y * n + reflect(x + k - radius)] }
                across[y * n + x] = sum
            }
        }
        var result = [Double](repeating: 0, count: n * n)
        for y in 0..<n {
            for x in 0..<n {
                var sum = 0.0
                for (k, weight) in taps.enumerated() { sum += weight * across[reflect(y + k - radius) * n + x] }
                result[y * n + x] = sum
            }
        }
        return result
    }

    /// `count` samples of a Gaussian of `sigma` around the middle one, summing to 1 (OpenCV's
    /// `getGaussianKernel` for a given sigma).
    static func gaussianTaps(count: Int, sigma: Double) -> [Double] {
        let middle = Double(count - 1) / 2
        let raw = (0..<count).map { exp(-(Double($0) - middle) * (Double($0) - middle) / (2 * sigma * sigma)) }
        let sum = raw.reduce(0, +)
        return raw.map { $0 / sum }
    }
}
