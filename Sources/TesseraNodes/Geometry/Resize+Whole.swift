import TesseraCore

extension Resize.Kernel {
    /// The whole output, from one pass down the input: bands of about `bandRows` input rows, read once
    /// each, top to bottom; each band's rows filtered across (the rows stage, split into `jobs`), then
    /// each filtered row added, with its weight, into the output rows whose filter reaches it.
    ///
    /// For a node that shrinks a whole image on its own (saliency's grid). Rendering the output through
    /// ``render(into:from:)`` in bands of output rows gives the same bits, but reads each band's input
    /// span at once, and neighbouring bands' spans overlap: an antialiased shrink's filter reaches one
    /// output row past each side, and a margin below (a blur) adds more. Here every output sample still
    /// sums its taps in order from the first, so the bits are the same, and every input row is read
    /// once.
    ///
    /// - Cost: the needed input rows read and filtered across once each (about `2 * support *
    ///   max(1, scale)` multiply-adds per output column and input row), then added into the output
    ///   rows that read them (about two each for a bilinear shrink). Memory: one band of the input and
    ///   its filtered rows, and the output.
    func renderWhole(from input: Image, bandRows: Int, jobs: Jobs = .current) throws -> PixelBuffer {
        let (width, height) = (outputExtent.width, outputExtent.height)
        let channels = input.channels
        var output = PixelBuffer(region: outputExtent, channels: channels)
        let rows = vertical.span(0..<height).clamped(to: 0..<input.height)
        let columns = horizontal.span(0..<width).clamped(to: 0..<input.width)
        guard !rows.isEmpty, !columns.isEmpty else { return output }
        let across = stages.rows
        // Filtered rows come in pieces of this many, the jobs of one band.
        let piece = 16
        // One buffer for every band: a fresh one per band was zeroed and page-faulted in each time.
        var reading = PixelBuffer(region: .empty, channels: channels)
        var bandTop = rows.lowerBound
        while bandTop < rows.upperBound {
            let bandRows = Swift.min(Swift.max(1, bandRows), rows.upperBound - bandTop)
            reading.reshape(to: Rect(x: columns.lowerBound, y: bandTop, width: columns.count, height: bandRows))
            try input.render(into: &reading)
            let band = reading
            let top = bandTop
            let filtered = try jobs.map((bandRows + piece - 1) / piece) { index in
                let first = top + index * piece
                var strip = PixelBuffer(
                    region: Rect(x: 0, y: first, width: width, height: Swift.min(piece, top + bandRows - first)),
                    channels: channels)
                across.renderRows(into: &strip, from: band)
                return strip
            }
            for part in filtered { add(part, into: &output) }
            bandTop += bandRows
        }
        if !nearest {
            output.samples.withUnsafeMutableBufferPointer { samples in
                guard let base = samples.baseAddress else { return }
                finish(base, pixels: outputExtent.area)
            }
        }
        return output
    }

    /// Adds each row of `part` (filtered across, in input row coordinates) into the output rows that
    /// read it, times that row's weight there: the output row's first tap sets it, the others add in
    /// order, as the columns pass does.
    private func add(_ part: PixelBuffer, into output: inout PixelBuffer) {
        let rowLength = output.rowLength
        let rows = part.region.minY..<part.region.maxY
        part.samples.withUnsafeBufferPointer { part in
            output.samples.withUnsafeMutableBufferPointer { target in
                vertical.withTaps { first, count, weights in
                    guard let part = part.baseAddress, let target = target.baseAddress else { return }
                    for y in 0..<outputExtent.height {
                        let taps = first[y]..<(first[y] &+ count[y])
                        let common = taps.clamped(to: rows)
                        guard !common.isEmpty else { continue }
                        let out = target + y &* rowLength
                        let w = weights + y &* vertical.stride
                        for r in common {
                            let line = part + (r &- rows.lowerBound) &* rowLength
                            let k = r &- taps.lowerBound
                            let wk = w[k]
                            if k == 0 {
                                for i in 0..<rowLength { out[i] = line[i] * wk }
                            } else {
                                for i in 0..<rowLength { out[i] += line[i] * wk }
                            }
                        }
                    }
                }
            }
        }
    }
}
