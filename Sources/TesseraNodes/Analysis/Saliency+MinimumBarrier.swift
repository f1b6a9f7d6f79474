import TesseraCore

extension Saliency {
    /// Raster passes of FastMBD: forward, backward, forward (the paper finds three enough).
    static let barrierPasses = 3

    /// The minimum barrier distance of each grid cell to the grid's border, summed over red, green and
    /// blue (gray images: the one channel), row by row.
    func minimumBarrier() throws -> [Double] {
        // The whole input shrunk first, each row read once, then the small grid blurred: blurring bands of
        // the shrunk image would shrink each band's margin again (on a 6400x4270 photo, 3.7 times the
        // input rows), and the shrink's output rows are the same whatever the bands.
        let shrink = Resize.Kernel(
            input: (input.width, input.height), output: (size, size), layout: input.layout,
            interpolation: .bilinear)
        // Bands of 256 input rows: memory stays a band's, not the image's.
        let shrunk = Image(buffer: try shrink.renderWhole(from: input, bandRows: 256), layout: input.layout)
        // Sigma 1 cell takes out the finest texture, which would otherwise raise every barrier.
        let blurred = Image(
            width: size, height: size, layout: input.layout, depth: .float32,
            kernel: GaussianBlur.Kernel(sigma: 1, layout: input.layout), inputs: [KernelInput(shrunk)])
        let cells = try grid(blurred, rowsPerRequest: size)
        let channels = cells.channels
        var total = [Double](repeating: 0, count: size * size)
        var plane = [Double](repeating: 0, count: size * size)
        for c in 0..<Swift.min(channels, 3) {
            for i in plane.indices { plane[i] = Double(cells.samples[i * channels + c]) }
            let distance = Self.barrierDistance(plane, size: size)
            for i in total.indices { total[i] += distance[i] }
        }
        return total
    }

    /// FastMBD (Zhang et al. 2015, algorithm 1): every border cell is a seed at distance 0; each pass
    /// visits the inner cells in raster order (or reversed) and offers each the path through its two
    /// already visited neighbours, whose barrier is the larger of that path's highest value and the
    /// cell's, minus the smaller of its lowest value and the cell's.
    static func barrierDistance(_ values: [Double], size n: Int) -> [Double] {
        var distance = [Double](repeating: .infinity, count: n * n)
        var highest = values
        var lowest = values
        for i in 0..<n {
            distance[i] = 0
            distance[(n - 1) * n + i] = 0
            distance[i * n] = 0
            distance[i * n + n - 1] = 0
        }
        guard n > 2 else { return distance }
        for pass in 0..<barrierPasses {
            let forward = pass % 2 == 0
            let rows = forward ? Array(1..<(n - 1)) : Array((1..<(n - 1)).reversed())
            let step = forward ? -1 : 1
            for y in rows {
                for x in rows {
                    let cell = y * n + x
                    let value = values[cell]
                    for neighbour in [cell + step * n, cell + step] {
                        let high = Swift.max(highest[neighbour], value)
                        let low = Swift.min(lowest[neighbour], value)
                        if high - low < distance[cell] {
                            distance[cell] = high - low
                            highest[cell] = high
                            lowest[cell] = low
                        }
                    }
                }
            }
        }
        return distance
    }
}
