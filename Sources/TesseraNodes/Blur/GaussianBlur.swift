import TesseraCore

/// `gaussianBlur`: a Gaussian blur that agrees with SciPy's `gaussian_filter` (`truncate=4.0`; `mode=
/// 'nearest'` for `edge: clamp`, `mode='constant'` for `transparent`).
///
/// Small sigmas use SciPy's own taps (exact up to Float32 rounding). From sigma 4.5 on, a constant and
/// three cosines on a 3.5-sigma window stand in for the Gaussian (``CosineGaussian``): its cost per pixel
/// does not grow with sigma, and it stays within 1.2/255 of SciPy on any image (0.2/255 on
/// photos). Colors are premultiplied by alpha while blurring, so transparent pixels never darken their
/// neighbours. Every pixel's value is the same whatever the tiling. An 8-bit gray or RGB image takes
/// taps 3 sigma long below sigma 4.5 (``eightBitTruncate``), within 0.3/255 of 4 sigma's; written as 8
/// bits, it is blurred from its bytes into bytes.
///
/// - Cost: per sample and axis, 12 sigma + 1 additions and multiplications below sigma 4.5 (the taps),
///   then a constant of about 45 (the cosine series; the taps cost that much at sigma 4.5). Each tile
///   also reads a margin of 4 sigma (3.5 sigma from 4.5 on) on every side, which does grow with sigma.
struct GaussianBlur: Node {
    static let info = NodeInfo(
        op: "gaussianBlur",
        summary: "Blurs an image with a Gaussian of standard deviation sigma, as SciPy's gaussian_filter.",
        access: .area,
        outputs: [
            .init(
                "output", .image,
                doc: "The blurred image, with the input's size, layout and depth. An 8-bit gray or RGB image below "
                    + "sigma 4.5 is blurred with taps 3 sigma long, not SciPy's 4: within 0.3/255 of 4's.")
        ],
        example: """
            photo: { op: load, path: photo.png }
            soft: { op: gaussianBlur, input: photo, sigma: 8 }
            out: { op: save, input: soft, path: soft.png }
            """)

    enum Edge: String, ParameterChoice {
        /// The nearest edge pixel, as Core Image's `clampedToExtent` (SciPy's `nearest`).
        case clamp
        /// Transparent black (SciPy's `constant` with 0): edges fade out, to transparent where the image has
        /// alpha, to black where it has not (the output keeps the input's layout, so RGB stays opaque).
        case transparent
    }

    /// The sigma from which the cosine series is used: where it became faster than the exact taps, on
    /// 8K gray, RGB and RGBA images (one core, 256-pixel tiles).
    static let cosineFromSigma = 4.5

    /// Below ``cosineFromSigma``, an 8-bit gray or RGB image takes taps 3 sigma long instead of 4: the
    /// Gaussian's tail beyond 3 sigma moves a result by 0.3/255 at most (two passes over a black-to-white
    /// edge), less than the image's own 8-bit step, and the blur does a quarter less work. Its
    /// output is within one level of the 4-sigma blur's once rounded to 8 bits (most pixels the same).
    static let eightBitTruncate = 3.0

    @Input(
        doc: "The image to blur; where it has alpha, transparent pixels do not darken their neighbours. Values are "
            + "blurred as stored (gamma-encoded, as libvips and OpenCV do); for light that mixes physically, "
            + "convert to linearSRGB with colorSpace and back.")
    var input: Image

    @Parameter(doc: "Standard deviation of the Gaussian.", range: 0...1000, suggested: 0.5...100, unit: "px")
    var sigma = 2.0

    @Parameter(
        doc: "Outside the image: clamp repeats the edge pixels; transparent is transparent black (black without alpha)."
    )
    var edge = Edge.clamp

    func run() throws -> NodeOutputs {
        let kernel = Kernel(sigma: sigma, layout: input.layout, depth: input.depth)
        let edgeMode: EdgeMode = edge == .clamp ? .clamp : .transparent
        return NodeOutputs(
            .image(
                Image(
                    width: input.width, height: input.height, layout: input.layout, depth: input.depth,
                    kernel: kernel, inputs: [KernelInput(input, edge: edgeMode)])))
    }

    /// Blurs one tile: a working copy of the tile plus its margin (premultiplied, RGB packed to 3
    /// channels), a vertical pass over all its columns, then a horizontal pass per row into the output.
    struct Kernel: FormatKernel {
        enum Method {
            /// Sigma so small that the kernel is one tap.
            case copy
            /// ``GaussianTaps``.
            case taps
            /// ``CosineGaussian``.
            case cosine
        }

        let method: Method
        /// Pixels read on each side of the output region.
        let margin: Int
        /// Samples per pixel in the scratch buffers: gray 1, RGB 3 (alpha is 1 and is not blurred), else 4.
        let channels: Int
        /// The taps' weights, for ``Method/taps``.
        let weights: [Float]
        /// The cosine series' tables, for ``Method/cosine``.
        let tables: CosineTables?

        /// Where the blurred alpha is below this (half a 16-bit step) the pixel is transparent black: the
        /// color of an almost transparent pixel is a ratio of two sums at the level of their rounding error.
        static let transparentBelow: Float = 0x1p-17

        /// Prepares the weights or tables once; tiles only read them. `depth` is the image's: an 8-bit
        /// gray or RGB image takes the shorter taps (``GaussianBlur/eightBitTruncate``); other users of the
        /// kernel (saliency, unsharpMask, maskedBlur) leave it at Float32 and get SciPy's.
        init(sigma: Double, layout: PixelLayout, depth: SampleDepth = .float32) {
            let eightBit = depth == .uint8 && !layout.hasAlpha
            let taps = GaussianTaps(sigma: sigma, truncate: eightBit ? GaussianBlur.eightBitTruncate : 4)
            if taps.radius == 0 {
                (method, margin, weights, tables) = (.copy, 0, [], nil)
            } else if sigma >= GaussianBlur.cosineFromSigma {
                let cosine = CosineGaussian(sigma: sigma)
                (method, margin, weights, tables) = (.cosine, cosine.radius, [], CosineTables(cosine))
            } else {
                (method, margin, weights, tables) = (.taps, taps.radius, taps.weights, nil)
            }
            switch layout {
            case .gray: channels = 1
            case .rgb: channels = 3
            case .rgba, .grayAlpha: channels = 4
            }
        }

        func inputRegion(for output: Rect, input index: Int) -> Rect {
            output.insetBy(dx: -margin, dy: -margin)
        }

        func render(into output: inout PixelBuffer, from inputs: [PixelBuffer]) {
            let region = output.region
            guard !region.isEmpty else { return }
            if case .copy = method {
                output.copy(from: inputs[0])
                return
            }
            let outRowLength = output.rowLength
            output.samples.withUnsafeMutableBufferPointer { out in
                guard let out = out.baseAddress else { return }
                blur(region, from: .floats(inputs[0]), row: { out + $0 &* outRowLength }, done: { _ in })
            }
        }

        /// Any format: an input read packed, or an output written packed, spares a Float32 tile.
        func computes(_ output: SampleEncoder, from inputs: [SampleFormat?]) -> Bool {
            inputs[0] != nil || output.packed != nil
        }

        /// Reads an input in its own format (8-bit RGB straight into the 3-channel working copy) and
        /// writes each output row packed as it is made: no Float32 tile on either side.
        func render(into output: PackedOutput, from inputs: [KernelSamples]) {
            let region = output.region
            guard !region.isEmpty else { return }
            var line = [Float].scratch(count: region.width * 4)
            defer { line.recycleScratch() }
            line.withUnsafeMutableBufferPointer { line in
                guard let line = line.baseAddress else { return }
                if case .copy = method {
                    for row in 0..<region.height {
                        inputs[0].row(x: region.minX, y: region.minY + row, count: region.width, scratch: line) {
                            output.encode($0, x: region.minX, y: region.minY + row, count: region.width)
                        }
                    }
                    return
                }
                // 8-bit gray or RGB out: rows are rounded straight from the working channels.
                let direct = channels != 4 && output.encoder.packed == SampleFormat(depth: .uint8, bands: channels)
                blur(region, from: inputs[0], row: { _ in line }, direct: direct ? output : nil) { row in
                    output.encode(line, x: region.minX, y: region.minY + row, count: region.width)
                }
            }
        }

        /// Blurs `region` from `input`, which covers it and its margin: output row `r` (from the top of
        /// the region) is written where `row(r)` points, as 1 (gray) or 4 Float32 channels, then
        /// `done(r)` is called before the next row is asked for.
        /// With `direct`, 8-bit rows of the working channels (gray or RGB), rows are rounded into it from
        /// the pass's output instead.
        private func blur(
            _ region: Rect, from input: KernelSamples, row: (Int) -> UnsafeMutablePointer<Float>,
            direct: PackedOutput? = nil, done: (Int) -> Void
        ) {
            let area = region.insetBy(dx: -margin, dy: -margin)
            let c = channels
            // The working copy: area.height rows of area.width pixels; one float of slack past each row
            // for the 4-wide loads of packed RGB, rows padded to 16 floats for the 16-wide FIR. (Strips of
            // columns stored one after another would make the cosine pass's column walks contiguous, but
            // measured no faster: what the column walks gain, the copy into strips loses.)
            let workStride = Self.roundUp(area.width * c + 1, 16)
            var work = [Float].scratch(count: area.height * workStride)
            fillWorkingCopy(&work, stride: workStride, area: area, from: input)
            // After the vertical pass: region.height rows of area.width pixels, with room for the
            // horizontal FIR's 16-wide reads past the last output.
            let middleStride = Self.roundUp(
                max(area.width * c + 1, Self.roundUp(region.width * c, 16) + 2 * margin * c), 16)
            var middle = [Float].scratch(count: region.height * middleStride)
            Self.zeroPadding(&middle, rows: region.height, stride: middleStride, from: area.width * c)
            var line = [Float].scratch(count: Self.roundUp(region.width * 4, 16) + 16)
            defer {
                work.recycleScratch()
                middle.recycleScratch()
                line.recycleScratch()
            }
            work.withUnsafeBufferPointer { work in
                middle.withUnsafeMutableBufferPointer { middle in
                    line.withUnsafeMutableBufferPointer { line in
                        guard let work = work.baseAddress, let middle = middle.baseAddress,
                            let line = line.baseAddress
                        else { return }
                        withoutActuallyEscaping(row) { row in
                            withoutActuallyEscaping(done) { done in
                                let passes = Passes(
                                    kernel: self, region: region, area: area, work: work, workStride: workStride,
                                    middle: middle, middleStride: middleStride, line: line, row: row, direct: direct,
                                    done: done)
                                switch method {
                                case .copy: break
                                case .taps: passes.taps()
                                case .cosine: passes.cosine()
                                }
                            }
                        }
                    }
                }
            }
        }

        /// Copies `area` of `input` into `work`: gray as is, RGB without its alpha, RGBA premultiplied.
        /// Packed rows are decoded one at a time into a row of Float32 first.
        private func fillWorkingCopy(_ work: inout [Float], stride: Int, area: Rect, from input: KernelSamples) {
            let channels = self.channels
            let used = area.width * channels
            var decoded = [Float].scratch(count: area.width * 4 + 4)
            defer { decoded.recycleScratch() }
            decoded.withUnsafeMutableBufferPointer { decoded in
                work.withUnsafeMutableBufferPointer { target in
                    guard let decoded = decoded.baseAddress, let target = target.baseAddress else { return }
                    for row in 0..<area.height {
                        let to = target + row &* stride
                        (to + used).update(repeating: 0, count: stride &- used)
                        if channels != 4, case .packed(let packed) = input,
                            packed.format == SampleFormat(depth: .uint8, bands: channels)
                        {
                            // 8-bit gray or RGB: the working channels as stored, scaled as decoders do
                            // (RGBA is premultiplied below).
                            let bytes = packed.pointer(x: area.minX, y: area.minY + row).assumingMemoryBound(
                                to: UInt8.self)
                            Samples.decode8(bytes, count: used, into: to)
                            continue
                        }
                        input.row(x: area.minX, y: area.minY + row, count: area.width, scratch: decoded) { from in
                            switch channels {
                            case 1:
                                to.update(from: from, count: area.width)
                            case 3:
                                // Overlapping 4-wide stores: each pixel's junk fourth lane is overwritten by
                                // the next pixel, the last one's lands in the row's slack.
                                for x in 0..<area.width {
                                    let pixel: SIMD4<Float> = SeparablePasses.load(from + x &* 4)
                                    SeparablePasses.store(pixel, to + x &* 3)
                                }
                            default:
                                for x in 0..<area.width {
                                    let pixel: SIMD4<Float> = SeparablePasses.load(from + x &* 4)
                                    let alpha = pixel.w
                                    SeparablePasses.store(pixel * SIMD4(alpha, alpha, alpha, 1), to + x &* 4)
                                }
                            }
                        }
                    }
                }
            }
        }

        /// Clears the padding after each row, which the passes read but no sample is written to (stale
        /// scratch there could be a denormal, which would slow them down).
        static func zeroPadding(_ buffer: inout [Float], rows: Int, stride: Int, from start: Int) {
            buffer.withUnsafeMutableBufferPointer { buffer in
                guard let base = buffer.baseAddress else { return }
                for row in 0..<rows { (base + (row &* stride &+ start)).update(repeating: 0, count: stride &- start) }
            }
        }

        static func roundUp(_ value: Int, _ multiple: Int) -> Int {
            (value + multiple - 1) / multiple * multiple
        }
    }

    /// The passes over one tile's scratch buffers, by pointer.
    struct Passes {
        let kernel: Kernel
        let region: Rect
        let area: Rect
        let work: UnsafePointer<Float>
        let workStride: Int
        let middle: UnsafeMutablePointer<Float>
        let middleStride: Int
        let line: UnsafeMutablePointer<Float>
        /// Where output row `r` goes, and what to call once it is written.
        let row: (Int) -> UnsafeMutablePointer<Float>
        /// 8-bit rows in the working channels, written instead of `row`'s.
        let direct: PackedOutput?
        let done: (Int) -> Void

        /// The exact taps: vertical then horizontal, each 16 samples at a time.
        func taps() {
            let c = kernel.channels
            let radius = kernel.margin
            kernel.weights.withUnsafeBufferPointer { weights in
                guard let weights = weights.baseAddress else { return }
                SeparablePasses.fir(
                    source: work, step: workStride, rowStride: workStride, dest: middle, destStride: middleStride,
                    rows: region.height, width: Kernel.roundUp(area.width * c, 16), weights: weights, radius: radius)
                for row in 0..<region.height {
                    SeparablePasses.fir(
                        source: middle + row &* middleStride, step: c, rowStride: c, dest: line, destStride: 0,
                        rows: 1, width: Kernel.roundUp(region.width * c, 16), weights: weights, radius: radius)
                    writeRow(row, from: line, pixelStep: c)
                }
            }
        }

        /// The cosine series: vertical over 4-column strips, horizontal over pixels (gray: 4 rows at once).
        func cosine() {
            guard let tables = kernel.tables else { return }
            let c = kernel.channels
            let radius = kernel.margin
            var suffix = [SIMD4<Float>](unsafeUninitializedCapacity: max(region.width, region.height)) {
                _, initialized in initialized = max(region.width, region.height)
            }
            var interleaved = [Float].scratch(count: c == 1 ? area.width * 4 : 0)
            defer { interleaved.recycleScratch() }
            tables.modulation.withUnsafeBufferPointer { modulation in
                tables.demodulation.withUnsafeBufferPointer { demodulation in
                    suffix.withUnsafeMutableBufferPointer { suffix in
                        interleaved.withUnsafeMutableBufferPointer { interleaved in
                            guard let modulation = modulation.baseAddress, let demodulation = demodulation.baseAddress,
                                let suffix = suffix.baseAddress
                            else { return }
                            let sweep = CosineSweep(
                                radius: radius, modulation: modulation, demodulation: demodulation, suffix: suffix)
                            var column = 0
                            while column < area.width * c {
                                sweep.run(
                                    source: work + column, step: workStride, first: area.minY,
                                    count: region.height, dest: middle + column, destStep: middleStride)
                                column &+= 4
                            }
                            if c == 1 {
                                guard let interleaved = interleaved.baseAddress else { return }
                                grayRows(sweep, interleaved: interleaved)
                            } else {
                                for row in 0..<region.height {
                                    sweep.run(
                                        source: middle + row &* middleStride, step: c, first: area.minX,
                                        count: region.width, dest: line, destStep: 4)
                                    writeRow(row, from: line, pixelStep: 4)
                                }
                            }
                        }
                    }
                }
            }
        }

        /// The horizontal cosine pass of a gray tile, with 4 rows in the 4 lanes.
        private func grayRows(_ sweep: CosineSweep, interleaved: UnsafeMutablePointer<Float>) {
            var row = 0
            while row < region.height {
                let rows = min(4, region.height - row)
                for lane in 0..<4 {
                    let from = middle + (row + min(lane, rows - 1)) &* middleStride
                    for x in 0..<area.width { interleaved[x &* 4 &+ lane] = from[x] }
                }
                sweep.run(
                    source: interleaved, step: 4, first: area.minX, count: region.width, dest: line, destStep: 4)
                for lane in 0..<rows {
                    let to = self.row(row + lane)
                    for x in 0..<region.width { to[x] = line[x &* 4 &+ lane] }
                    done(row + lane)
                }
                row &+= 4
            }
        }

        /// Writes output row `row` from `pixels` (`pixelStep` floats apart, `channels` of them meaningful):
        /// gray as is, RGB with alpha 1, RGBA divided by its alpha.
        private func writeRow(_ row: Int, from pixels: UnsafeMutablePointer<Float>, pixelStep: Int) {
            if let direct {
                let to = (direct.base + row &* direct.rowBytes).assumingMemoryBound(to: UInt8.self)
                let c = kernel.channels
                if pixelStep == c {
                    Samples.encode8(pixels, count: region.width &* c, into: to)
                } else {
                    for x in 0..<region.width {
                        for k in 0..<c {
                            to[x &* c &+ k] = UInt8(
                                truncatingIfNeeded: quantize(pixels[x &* pixelStep &+ k], maxValue: 255))
                        }
                    }
                }
                return
            }
            let to = self.row(row)
            defer { done(row) }
            let width = region.width
            switch kernel.channels {
            case 1:
                for x in 0..<width { to[x] = pixels[x &* pixelStep] }
            case 3:
                for x in 0..<width {
                    var pixel: SIMD4<Float> = SeparablePasses.load(pixels + x &* pixelStep)
                    pixel.w = 1
                    SeparablePasses.store(pixel, to + x &* 4)
                }
            default:
                let floor = Kernel.transparentBelow
                for x in 0..<width {
                    let pixel: SIMD4<Float> = SeparablePasses.load(pixels + x &* pixelStep)
                    let alpha = pixel.w
                    let straight = alpha >= floor ? pixel / SIMD4(alpha, alpha, alpha, 1) : SIMD4()
                    SeparablePasses.store(straight, to + x &* 4)
                }
            }
        }
    }
}
