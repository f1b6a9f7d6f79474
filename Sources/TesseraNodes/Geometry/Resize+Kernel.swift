import TesseraCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension Resize {
    /// The input pixels and weights of each output column (or row), computed once per run for the
    /// whole output, so a pixel's value never depends on the tile it is rendered in.
    struct Axis: Sendable {
        /// Per output coordinate: the first input coordinate it reads.
        var first: [Int]
        /// Per output coordinate: how many consecutive input coordinates it reads (at least 1).
        var count: [Int]
        /// Per output coordinate, `stride` slots: the weights of those input coordinates, in order.
        var weights: [Float]
        var stride: Int
        /// Input pixels per output pixel, and how far the (stretched) filter reaches, in input pixels.
        var scale: Double
        var support: Double
        /// Where output coordinate 0's edge falls in the input: 0 unless a part of the input is mapped.
        var start: Double
        /// The input's length along this axis.
        var inputLength: Int

        /// Pillow's `precompute_coeffs`: the filter centered on each output pixel's center in input
        /// coordinates, stretched by the scale when shrinking, cut to the image and renormalized. Taps
        /// of weight exactly 0 at either end are left out (they add nothing), so the region a tile
        /// declares is no larger than what it reads. Weights are computed in Double, as Pillow does.
        ///
        /// `antialias: false` never stretches the filter: a shrink samples the input at the output
        /// pixels' centers, as OpenCV's `resize` does with `INTER_LINEAR` and `INTER_CUBIC` (for
        /// bilinear the weights are then OpenCV's: its clamped border pixels give what the renormalized
        /// weights give here). It aliases; spectral residual saliency is defined on such a shrink.
        ///
        /// `part` maps only that part of the input (`start` to `start + length`, in input pixels) onto
        /// the output, instead of all of it: a DCT-scaled image whose last pixel holds a partial block
        /// covers `side / shrink` pixels of its `ceil(side / shrink)`. Weights still stop at the input's
        /// edges, and a first or last pixel the part covers only in part weighs what it covers, at the
        /// middle of that: it stands for that many of the file's pixels (the rest of its block is the
        /// encoder's padding). Weighed as a whole pixel, a 6400x4270 JPEG decoded at 1/4 and resized to
        /// 267 rows differed from a full decode resized in its last row by up to 7/255 (2.1 inside);
        /// weighed so, by 2.1 in all.
        init(
            input: Int, output: Int, filter: Interpolation, antialias: Bool = true,
            part: (start: Double, length: Double)? = nil
        ) {
            first = [Int](repeating: 0, count: output)
            count = [Int](repeating: 1, count: output)
            inputLength = input
            start = part?.start ?? 0
            scale = (part?.length ?? Double(input)) / Double(output)
            support = filter.support * (antialias ? Swift.max(scale, 1) : 1)
            guard input != output || part != nil else {
                // Pillow skips the pass when a side keeps its size: one tap of weight 1 is the same.
                stride = 1
                weights = [Float](repeating: 1, count: output)
                for x in 0..<output { first[x] = x }
                return
            }
            let filterScale = antialias ? Swift.max(scale, 1) : 1
            let inverse = 1 / filterScale
            stride = Int(support.rounded(.up)) * 2 + 1
            weights = [Float](repeating: 0, count: output * stride)
            var raw = [Double](repeating: 0, count: stride)
            for x in 0..<output {
                let center = start + (Double(x) + 0.5) * scale
                let low = Swift.max(Int(center - support + 0.5), 0)
                let high = Swift.min(Int(center + support + 0.5), input)
                guard high > low else {
                    first[x] = Swift.min(Swift.max(low, 0), input - 1)
                    weights[x * stride] = 0
                    continue
                }
                var total = 0.0
                for i in low..<high {
                    var w = filter.weight((Double(i) - center + 0.5) * inverse)
                    if let part, i == 0 || i == input - 1 {
                        // A pixel the part covers only in part (a partial block) weighs what it covers,
                        // placed at the middle of what it covers.
                        let from = Swift.max(Double(i), part.start)
                        let to = Swift.min(Double(i + 1), part.start + part.length)
                        if to - from < 1 {
                            w = Swift.max(0, to - from) * filter.weight(((from + to) / 2 - center) * inverse)
                        }
                    }
                    raw[i - low] = w
                    total += w
                }
                if total != 0 {
                    for k in 0..<(high - low) { raw[k] /= total }
                }
                var start = 0
                var end = high - low
                while end - start > 1 && raw[start] == 0 { start += 1 }
                while end - start > 1 && raw[end - 1] == 0 { end -= 1 }
                first[x] = low + start
                count[x] = end - start
                for k in start..<end { weights[x * stride + k - start] = Float(raw[k]) }
            }
        }

        /// Pillow's nearest neighbour (`ImagingScaleAffine`): the input pixel under each output pixel's
        /// center. The position is stepped by repeated addition, as Pillow does, so that exact ties
        /// (a center on a pixel boundary) fall on the same side as in Pillow.
        init(nearestFrom input: Int, output: Int, part: (start: Double, length: Double)? = nil) {
            let step = (part?.length ?? Double(input)) / Double(output)
            inputLength = input
            scale = step
            support = 0
            start = part?.start ?? 0
            var position = start + step * 0.5
            first = [Int](repeating: 0, count: output)
            for x in 0..<output {
                first[x] = Swift.min(Swift.max(position < 0 ? 0 : Int(position), 0), input - 1)
                position += step
            }
            count = [Int](repeating: 1, count: output)
            weights = [Float](repeating: 1, count: output)
            stride = 1
        }

        /// The taps as pointers for the filter loops: per output coordinate, the first input coordinate,
        /// the tap count, and the weights (`stride` apart).
        @inline(__always)
        func withTaps(
            _ body: (_ first: UnsafePointer<Int>, _ count: UnsafePointer<Int>, _ weights: UnsafePointer<Float>) -> Void
        ) {
            first.withUnsafeBufferPointer { first in
                count.withUnsafeBufferPointer { count in
                    weights.withUnsafeBufferPointer { weights in
                        guard let first = first.baseAddress, let count = count.baseAddress,
                            let weights = weights.baseAddress
                        else { return }
                        body(first, count, weights)
                    }
                }
            }
        }

        /// The input coordinates output coordinates `range` read. Coordinates outside the output (only
        /// the scheduler's probes ask for those, to size its caches) get what the same filter would
        /// read there, unclamped.
        func span(_ range: Range<Int>) -> Range<Int> {
            guard !range.isEmpty else { return 0..<0 }
            var low = Int.max
            var high = Int.min
            for x in range.clamped(to: 0..<first.count) {
                low = Swift.min(low, first[x])
                high = Swift.max(high, first[x] + count[x])
            }
            for x in [range.lowerBound, range.upperBound - 1] where !(0..<first.count).contains(x) {
                let center = start + (Double(x) + 0.5) * scale
                low = Swift.min(low, Int((center - support).rounded(.down)))
                high = Swift.max(high, Int((center + support).rounded(.down)) + 1)
            }
            return low < high ? low..<high : 0..<0
        }
    }

    /// How channels are handled around the filter.
    enum Channels: Sendable {
        /// One channel.
        case gray
        /// Four channels, alpha 1: filtered as they are, then alpha set back to exactly 1.
        case opaque
        /// Four channels with alpha: premultiplied while filtering, divided after.
        case straightAlpha
    }

    /// Which passes a kernel does. The `resize` node runs the rows and the columns as two images, so
    /// that the scheduler renders the narrow intermediate (output width, input height) in cached cells,
    /// each reading only its own rows of the input: a big shrink (8K to a thumbnail) then never holds
    /// the whole input at once. Both passes in one kernel suit a node that shrinks on its own.
    enum Stage: Sendable {
        /// Input to output.
        case both
        /// Input to the intermediate: the horizontal pass, alpha left premultiplied.
        case rows
        /// The intermediate to output: the vertical pass, then alpha divided out (or set to 1).
        case columns
    }

    struct Kernel: SampleKernel {
        let horizontal: Axis
        let vertical: Axis
        let nearest: Bool
        let channels: Channels
        let outputExtent: Rect
        var stage = Stage.both

        /// The rows pass, then the columns pass, of this resize, as two kernels.
        var stages: (rows: Kernel, columns: Kernel) {
            var rows = self
            rows.stage = .rows
            var columns = self
            columns.stage = .columns
            return (rows, columns)
        }

        /// The intermediate image between the two stages: output width, input height.
        var intermediateSize: (width: Int, height: Int) { (outputExtent.width, vertical.inputLength) }

        /// `part`, when given, is the part of the input mapped onto the output (``Axis``'s).
        init(
            input: (width: Int, height: Int), output: (width: Int, height: Int), layout: PixelLayout,
            interpolation: Interpolation, antialias: Bool = true,
            part: (x: Double, y: Double, width: Double, height: Double)? = nil
        ) {
            nearest = interpolation == .nearest
            let across = part.map { (start: $0.x, length: $0.width) }
            let down = part.map { (start: $0.y, length: $0.height) }
            if nearest {
                horizontal = Axis(nearestFrom: input.width, output: output.width, part: across)
                vertical = Axis(nearestFrom: input.height, output: output.height, part: down)
            } else {
                horizontal = Axis(
                    input: input.width, output: output.width, filter: interpolation, antialias: antialias,
                    part: across)
                vertical = Axis(
                    input: input.height, output: output.height, filter: interpolation, antialias: antialias,
                    part: down)
            }
            channels = layout.channels == 1 ? .gray : layout.hasAlpha ? .straightAlpha : .opaque
            outputExtent = Rect(width: output.width, height: output.height)
        }

        func inputRegion(for output: Rect, input index: Int) -> Rect {
            guard !output.isEmpty else { return .empty }
            let columns = stage == .columns ? output.minX..<output.maxX : horizontal.span(output.minX..<output.maxX)
            let rows = stage == .rows ? output.minY..<output.maxY : vertical.span(output.minY..<output.maxY)
            return Rect(x: columns.lowerBound, y: rows.lowerBound, width: columns.count, height: rows.count)
        }

        func render(into output: inout PixelBuffer, from inputs: [PixelBuffer]) {
            switch stage {
            case .both:
                precondition(outputExtent.contains(output.region), "resize renders inside its extent")
                if nearest {
                    renderNearest(into: &output, from: inputs[0])
                } else {
                    renderFiltered(into: &output, from: inputs[0])
                }
            case .rows:
                renderRows(into: &output, from: inputs[0])
            case .columns:
                let needed = inputRegion(for: output.region, input: 0)
                renderColumns(
                    into: &output, from: inputs[0].region == needed ? inputs[0] : inputs[0].cropped(to: needed))
            }
        }

        /// The rows pass reads a decoded file's rows packed, decoding each row as it filters it; other
        /// stages, and Float32 inputs, render as ``render(into:from:)`` does.
        func render(into output: inout PixelBuffer, from inputs: [KernelSamples]) throws {
            switch inputs[0] {
            case .floats(let buffer):
                render(into: &output, from: [buffer])
            case .packed(let packed) where stage == .rows && !nearest:
                let region = output.region
                let span = packed.region
                var row = [Float].scratch(count: span.width * output.channels)
                defer { row.recycleScratch() }
                row.withUnsafeMutableBufferPointer { row in
                    guard let scratch = row.baseAddress else { return }
                    filterRows(
                        rows: region.minY..<region.maxY, columns: region.minX..<region.maxX, firstColumn: span.minX,
                        into: &output
                    ) { y in
                        packed.decode(x: span.minX, y: y, count: span.width, into: scratch)
                        return UnsafePointer(scratch)
                    }
                }
            case .packed(let packed):
                var buffer = PixelBuffer.scratch(region: packed.region, channels: output.channels)
                defer { buffer.recycle() }
                packed.decode(into: &buffer)
                render(into: &output, from: [buffer])
            }
        }

        // MARK: The two stages

        /// The horizontal pass of `output.region`'s rows (alpha left premultiplied): `input` covers those
        /// rows and the columns they read.
        func renderRows(into output: inout PixelBuffer, from input: PixelBuffer) {
            let region = output.region
            let columns = region.minX..<region.maxX
            let rows = region.minY..<region.maxY
            if nearest {
                let channels = output.channels
                for y in rows {
                    for x in columns {
                        let from = input.index(x: horizontal.first[x], y: y)
                        let to = output.index(x: x, y: y)
                        for c in 0..<channels { output.samples[to + c] = input.samples[from + c] }
                    }
                }
                return
            }
            input.samples.withUnsafeBufferPointer { samples in
                guard let base = samples.baseAddress else { return }
                let source = input.region
                filterRows(rows: rows, columns: columns, firstColumn: source.minX, into: &output) { y in
                    base + (y &- source.minY) &* input.rowLength
                }
            }
        }

        /// The horizontal pass of `rows` over `columns` into `output`, reading each input row from the
        /// pointer `row` gives, at input column `firstColumn`.
        private func filterRows(
            rows: Range<Int>, columns: Range<Int>, firstColumn: Int, into output: inout PixelBuffer,
            row: (Int) -> UnsafePointer<Float>
        ) {
            output.samples.withUnsafeMutableBufferPointer { target in
                guard let band = target.baseAddress else { return }
                switch self.channels {
                case .gray: filterRowsGray(rows: rows, columns: columns, firstColumn: firstColumn, into: band, row: row)
                case .opaque:
                    filterRowsRGBA(
                        rows: rows, columns: columns, firstColumn: firstColumn, into: band, premultiply: false, row: row
                    )
                case .straightAlpha:
                    filterRowsRGBA(
                        rows: rows, columns: columns, firstColumn: firstColumn, into: band, premultiply: true, row: row)
                }
            }
        }

        /// `input` covers exactly the rows this region reads, across the region's columns.
        private func renderColumns(into output: inout PixelBuffer, from input: PixelBuffer) {
            let region = output.region
            if nearest {
                let rowLength = output.rowLength
                for row in 0..<region.height {
                    let from = input.index(x: region.minX, y: vertical.first[region.minY + row])
                    let to = row * rowLength
                    for i in 0..<rowLength { output.samples[to + i] = input.samples[from + i] }
                }
                return
            }
            let rowLength = output.rowLength
            input.samples.withUnsafeBufferPointer { band in
                output.samples.withUnsafeMutableBufferPointer { target in
                    guard let band = band.baseAddress, let target = target.baseAddress else { return }
                    filterColumns(band, firstRow: input.region.minY, rowLength: rowLength, region: region, into: target)
                    finish(target, pixels: region.area)
                }
            }
        }

        /// Alpha after the vertical pass: set back to 1, or divided out.
        func finish(_ target: UnsafeMutablePointer<Float>, pixels: Int) {
            switch channels {
            case .gray: break
            case .opaque: setOpaque(target, pixels: pixels)
            case .straightAlpha: unpremultiply(target, pixels: pixels)
            }
        }

        // MARK: Nearest neighbour

        private func renderNearest(into output: inout PixelBuffer, from input: PixelBuffer) {
            let region = output.region
            let source = input.region
            let channels = output.channels
            let inRow = input.rowLength
            let outRow = output.rowLength
            input.samples.withUnsafeBufferPointer { from in
                output.samples.withUnsafeMutableBufferPointer { to in
                    horizontal.first.withUnsafeBufferPointer { columns in
                        guard let from = from.baseAddress, let to = to.baseAddress, let columns = columns.baseAddress
                        else { return }
                        for row in 0..<region.height {
                            let sourceRow = from + (vertical.first[region.minY &+ row] &- source.minY) &* inRow
                            let target = to + row &* outRow
                            if channels == 4 {
                                for x in 0..<region.width {
                                    let pixel = sourceRow + (columns[region.minX &+ x] &- source.minX) &* 4
                                    (target + x &* 4).update(from: pixel, count: 4)
                                }
                            } else {
                                for x in 0..<region.width {
                                    target[x] = sourceRow[columns[region.minX &+ x] &- source.minX]
                                }
                            }
                        }
                    }
                }
            }
        }

        // MARK: Separable filter

        /// Filters the needed input rows horizontally into a scratch band as wide as the output region,
        /// then the band vertically into the output. Each output sample accumulates its taps in index
        /// order from 0, whatever the region: tiles give the same bits as a whole render.
        private func renderFiltered(into output: inout PixelBuffer, from input: PixelBuffer) {
            let region = output.region
            let rows = vertical.span(region.minY..<region.maxY)
            let channels = output.channels
            let bandRow = region.width * channels
            var band = [Float](unsafeUninitializedCapacity: rows.count * bandRow) { buffer, initialized in
                initialized = buffer.count
            }
            band.withUnsafeMutableBufferPointer { band in
                guard let band = band.baseAddress else { return }
                input.samples.withUnsafeBufferPointer { samples in
                    guard let base = samples.baseAddress else { return }
                    let source = input.region
                    let row = { (y: Int) in UnsafePointer(base + (y &- source.minY) &* input.rowLength) }
                    let columns = region.minX..<region.maxX
                    switch self.channels {
                    case .gray:
                        filterRowsGray(rows: rows, columns: columns, firstColumn: source.minX, into: band, row: row)
                    case .opaque:
                        filterRowsRGBA(
                            rows: rows, columns: columns, firstColumn: source.minX, into: band, premultiply: false,
                            row: row)
                    case .straightAlpha:
                        filterRowsRGBA(
                            rows: rows, columns: columns, firstColumn: source.minX, into: band, premultiply: true,
                            row: row)
                    }
                }
                output.samples.withUnsafeMutableBufferPointer { target in
                    guard let target = target.baseAddress else { return }
                    filterColumns(
                        UnsafePointer(band), firstRow: rows.lowerBound, rowLength: bandRow, region: region, into: target
                    )
                    finish(target, pixels: region.area)
                }
            }
        }

        /// The horizontal pass for RGBA: one SIMD4 multiply-add per tap. Input row `y` is at `row(y)`,
        /// from input column `firstColumn`.
        @inline(__always)
        private func filterRowsRGBA(
            rows: Range<Int>, columns: Range<Int>, firstColumn: Int, into band: UnsafeMutablePointer<Float>,
            premultiply: Bool, row: (Int) -> UnsafePointer<Float>
        ) {
            let stride = horizontal.stride
            let width = columns.count
            horizontal.withTaps { first, count, weights in
                let target = UnsafeMutableRawPointer(band)
                for (index, y) in rows.enumerated() {
                    let raw = UnsafeRawPointer(row(y))
                    let targetRow = index &* width &* 16
                    for i in 0..<width {
                        let x = columns.lowerBound &+ i
                        let taps = count[x]
                        let w = weights + x &* stride
                        var offset = (first[x] &- firstColumn) &* 16
                        var sum = SIMD4<Float>()
                        var k = 0
                        while k < taps {
                            var pixel = raw.loadUnaligned(fromByteOffset: offset, as: SIMD4<Float>.self)
                            if premultiply { pixel *= SIMD4(pixel.w, pixel.w, pixel.w, 1) }
                            sum += pixel * w[k]
                            offset &+= 16
                            k &+= 1
                        }
                        target.storeBytes(of: sum, toByteOffset: targetRow &+ i &* 16, as: SIMD4<Float>.self)
                    }
                }
            }
        }

        /// The horizontal pass for one channel.
        private func filterRowsGray(
            rows: Range<Int>, columns: Range<Int>, firstColumn: Int, into band: UnsafeMutablePointer<Float>,
            row: (Int) -> UnsafePointer<Float>
        ) {
            let stride = horizontal.stride
            let width = columns.count
            horizontal.withTaps { first, count, weights in
                for (index, y) in rows.enumerated() {
                    let sourceRow = row(y) - firstColumn
                    let targetRow = band + index &* width
                    for i in 0..<width {
                        let x = columns.lowerBound &+ i
                        let taps = count[x]
                        let w = weights + x &* stride
                        let pixels = sourceRow + first[x]
                        var sum: Float = 0
                        var k = 0
                        while k < taps {
                            sum += pixels[k] * w[k]
                            k &+= 1
                        }
                        targetRow[i] = sum
                    }
                }
            }
        }

        /// The vertical pass: each output row is the weighted sum of band rows, sample by sample (the
        /// same for any channel count, and a plain loop the compiler vectorizes).
        private func filterColumns(
            _ band: UnsafePointer<Float>, firstRow: Int, rowLength: Int, region: Rect,
            into target: UnsafeMutablePointer<Float>
        ) {
            let stride = vertical.stride
            vertical.withTaps { first, count, weights in
                for row in 0..<region.height {
                    let y = region.minY &+ row
                    let w = weights + y &* stride
                    let out = target + row &* rowLength
                    let top = band + (first[y] &- firstRow) &* rowLength
                    let w0 = w[0]
                    for i in 0..<rowLength { out[i] = top[i] * w0 }
                    var k = 1
                    while k < count[y] {
                        let line = top + k &* rowLength
                        let wk = w[k]
                        for i in 0..<rowLength { out[i] += line[i] * wk }
                        k &+= 1
                    }
                }
            }
        }

        /// Sets alpha back to exactly 1 (the filter's weights sum to 1 only up to rounding).
        private func setOpaque(_ samples: UnsafeMutablePointer<Float>, pixels: Int) {
            for p in 0..<pixels { samples[p &* 4 &+ 3] = 1 }
        }

        /// Divides colors by the filtered alpha (color 0 where alpha is 0 or less) and clamps alpha to
        /// 0...1, which ringing filters can overshoot.
        private func unpremultiply(_ samples: UnsafeMutablePointer<Float>, pixels: Int) {
            let raw = UnsafeMutableRawPointer(samples)
            for p in 0..<pixels {
                let offset = p &* 16
                let pixel = raw.loadUnaligned(fromByteOffset: offset, as: SIMD4<Float>.self)
                let alpha = pixel.w
                var result =
                    alpha > 0 ? pixel / SIMD4(alpha, alpha, alpha, 1) : SIMD4<Float>(0, 0, 0, 0)
                result.w = Swift.min(Swift.max(alpha, 0), 1)
                raw.storeBytes(of: result, toByteOffset: offset, as: SIMD4<Float>.self)
            }
        }
    }
}

extension Resize.Interpolation {
    /// How far the kernel reaches from its center, in input pixels when enlarging.
    var support: Double {
        switch self {
        case .nearest: 0.5
        case .bilinear: 1
        case .bicubic: 2
        case .lanczos3: 3
        }
    }

    /// The kernel at `x`, as Pillow's `Resample.c` defines it.
    func weight(_ x: Double) -> Double {
        switch self {
        case .nearest:
            return x > -0.5 && x <= 0.5 ? 1 : 0
        case .bilinear:
            let x = abs(x)
            return x < 1 ? 1 - x : 0
        case .bicubic:
            let a = -0.5
            let x = abs(x)
            if x < 1 { return ((a + 2) * x - (a + 3)) * x * x + 1 }
            if x < 2 { return (((x - 5) * x + 8) * x - 4) * a }
            return 0
        case .lanczos3:
            return -3 <= x && x < 3 ? Self.sinc(x) * Self.sinc(x / 3) : 0
        }
    }

    private static func sinc(_ x: Double) -> Double {
        if x == 0 { return 1 }
        let t = x * Double.pi
        return sin(t) / t
    }
}
