import Foundation
import TesseraCore

/// `rotate`: turns an image counter-clockwise by an angle in degrees (as Pillow's `rotate` and OpenCV's
/// `getRotationMatrix2D`; negative turns clockwise).
///
///     upright: { op: rotate, input: scan, angle: -90 }           # exact: pixels are copied
///     level:   { op: rotate, input: photo, angle: 2.5, interpolation: bicubic }
///
/// Multiples of 90 degrees copy pixels (exact, as numpy's `rot90`): the output is the input turned, its
/// sides swapped for 90 and 270. Any other angle resamples: output pixel centers map back through the
/// inverse rotation about the image centers (OpenCV's `warpAffine` with the inverse map, pixel centers at
/// integer coordinates), and samples that fall outside the input take the background color, blending
/// with the edge pixels as OpenCV's `BORDER_CONSTANT` does. The canvas grows to hold the whole turned
/// image (the bounding box of its corners, rounded to whole pixels) unless `keepSize` is set.
///
/// Alpha never darkens edges: with alpha in the output (a transparent background, or an input with
/// alpha) colors are weighed by their alpha and divided by the resampled alpha after, as resize does.
/// Values are not clamped (bicubic overshoots a little at sharp edges).
///
/// - Cost: per output pixel 1 (nearest), 4 (bilinear) or 16 (bicubic) taps; a tile reads the input
///   rectangle around its turned footprint (for 45 degrees about twice the tile's area).
struct Rotate: Node {
    static let info = NodeInfo(
        op: "rotate",
        summary:
            "Turns an image counter-clockwise by an angle in degrees: multiples of 90 exactly, others resampled "
            + "(nearest, bilinear, bicubic) over a background color, the canvas growing to fit.",
        access: .geometry,
        outputs: [
            .init(
                "output", .image,
                doc: "The turned image; RGBA when the background shows and is not opaque, else the input's layout.")
        ],
        example: """
            photo: { op: load, path: photo.png }
            level: { op: rotate, input: photo, angle: 3, interpolation: bicubic, background: [1, 1, 1, 1] }
            out: { op: save, input: level, path: level.png }
            """)

    /// How a sample between pixel centers is computed, as OpenCV's `warpAffine` flags.
    enum Interpolation: String, ParameterChoice {
        /// The pixel whose center is nearest (INTER_NEAREST).
        case nearest
        /// The four nearest pixels, weighed by distance (INTER_LINEAR).
        case bilinear
        /// The sixteen nearest, with Keys' cubic, a = -0.75 (INTER_CUBIC): sharper than bilinear.
        case bicubic
    }

    @Input(doc: "The image.")
    var input: Image

    @Parameter(
        doc: "Degrees counter-clockwise (negative: clockwise); multiples of 90 copy pixels exactly.",
        range: -3600...3600, suggested: -180...180, unit: "°")
    var angle = 0.0

    @Parameter(doc: "How samples between pixel centers are computed, for angles that are not multiples of 90.")
    var interpolation = Interpolation.bilinear

    @Parameter(
        doc: "Red, green, blue and alpha, 0...1, of the uncovered corners: transparent by default.", range: 0...1)
    var background = [0.0, 0, 0, 0]

    @Parameter(doc: "Keep the input's size, cutting off the turned corners, instead of growing the canvas.")
    var keepSize = false

    func prepare(_ inputs: [String: ImageShape]) -> Preparation {
        guard let input = inputs["input"] else { return Preparation() }
        let size = outputSize(width: input.width, height: input.height)
        return Preparation(outputSizes: ["output": .init(width: size.width, height: size.height)])
    }

    /// The quarter turns `angle` makes, 0 to 3, when it is a whole number of them that the output's
    /// size can follow (`keepSize` keeps it only for a square); nil for any other angle.
    func quarterTurns(width: Int, height: Int) -> Int? {
        let turns = angle / 90
        guard turns == turns.rounded(), !keepSize || width == height else { return nil }
        return ((Int(turns) % 4) + 4) % 4
    }

    /// The output's size for an input of `width` by `height`.
    func outputSize(width: Int, height: Int) -> (width: Int, height: Int) {
        if let quarter = quarterTurns(width: width, height: height) {
            return quarter % 2 == 1 ? (height, width) : (width, height)
        }
        if keepSize { return (width, height) }
        // The turned corners' bounding box; a hair below an integer is that integer, not one more.
        let radians = angle * .pi / 180
        let (c, s) = (abs(cos(radians)), abs(sin(radians)))
        return (
            Int((c * Double(width) + s * Double(height) - 1e-6).rounded(.up)),
            Int((s * Double(width) + c * Double(height) - 1e-6).rounded(.up))
        )
    }

    func run() throws -> NodeOutputs {
        let (width, height) = (input.width, input.height)
        let (outWidth, outHeight) = outputSize(width: width, height: height)
        if let quarter = quarterTurns(width: width, height: height) {
            if quarter == 0 { return NodeOutputs(.image(input)) }
            return NodeOutputs(
                .image(
                    Image(
                        width: outWidth, height: outHeight, layout: input.layout, depth: input.depth,
                        kernel: QuarterTurn(width: width, height: height, quarter: quarter),
                        inputs: [KernelInput(input)])))
        }
        let radians = angle * .pi / 180
        let (c, s) = (cos(radians), sin(radians))
        let color = Background.color(background)
        let layout = Background.layout(of: input.layout, over: color)
        let kernel = Kernel(
            width: width, height: height, cos: c, sin: s,
            inputCenter: (Double(width - 1) / 2, Double(height - 1) / 2),
            outputCenter: (Double(outWidth - 1) / 2, Double(outHeight - 1) / 2), interpolation: interpolation,
            background: color, premultiplied: layout.hasAlpha, inputHasAlpha: input.layout.hasAlpha)
        return NodeOutputs(
            .image(
                Image(
                    width: outWidth, height: outHeight, layout: layout, depth: input.depth, kernel: kernel,
                    inputs: [KernelInput(input)])))
    }

    /// A turn by `quarter` times 90 degrees counter-clockwise, by copying.
    struct QuarterTurn: MoveKernel {
        var width: Int
        var height: Int
        var quarter: Int

        /// One output pixel right: one input row up (a quarter turn), one column left (a half turn) or
        /// one row down (three quarters).
        var rowStep: (dx: Int, dy: Int) {
            switch quarter {
            case 1: (0, 1)
            case 2: (-1, 0)
            default: (0, -1)
            }
        }

        /// The input pixel output pixel (x, y) copies.
        @inline(__always)
        func source(x: Int, y: Int) -> (x: Int, y: Int) {
            switch quarter {
            case 1: (width - 1 - y, x)
            case 2: (width - 1 - x, height - 1 - y)
            default: (y, height - 1 - x)
            }
        }

        func inputRegion(for output: Rect, input index: Int) -> Rect {
            let a = source(x: output.minX, y: output.minY)
            let b = source(x: output.maxX - 1, y: output.maxY - 1)
            return Rect(
                x: Swift.min(a.x, b.x), y: Swift.min(a.y, b.y), width: abs(a.x - b.x) + 1, height: abs(a.y - b.y) + 1)
        }

        func render(into output: inout PixelBuffer, from inputs: [PixelBuffer]) {
            let input = inputs[0]
            let region = output.region
            let channels = output.channels
            let outRow = output.rowLength
            input.samples.withUnsafeBufferPointer { source in
                output.samples.withUnsafeMutableBufferPointer { target in
                    guard let from = source.baseAddress, let to = target.baseAddress else { return }
                    for row in 0..<region.height {
                        let o = to + row &* outRow
                        for column in 0..<region.width {
                            let p = self.source(x: region.minX + column, y: region.minY + row)
                            (o + column &* channels).update(from: from + input.index(x: p.x, y: p.y), count: channels)
                        }
                    }
                }
            }
        }
    }

    /// Resampling through the inverse rotation.
    struct Kernel: ImageKernel {
        var width: Int
        var height: Int
        var cos: Double
        var sin: Double
        var inputCenter: (x: Double, y: Double)
        var outputCenter: (x: Double, y: Double)
        var interpolation: Interpolation
        var background: SIMD4<Float>
        /// Weigh colors by alpha (the output has alpha).
        var premultiplied: Bool
        /// Whether the input has alpha; without, its alpha is 1 everywhere and weighing changes nothing.
        var inputHasAlpha = true

        /// Where output pixel (x, y)'s center falls in the input, in pixel coordinates.
        @inline(__always)
        func source(x: Int, y: Int) -> (x: Double, y: Double) {
            let dx = Double(x) - outputCenter.x
            let dy = Double(y) - outputCenter.y
            return (cos * dx - sin * dy + inputCenter.x, sin * dx + cos * dy + inputCenter.y)
        }

        /// Input pixels the filter reaches on each side of a sample's floor.
        var reach: (before: Int, after: Int) {
            switch interpolation {
            case .nearest: (0, 1)
            case .bilinear: (0, 1)
            case .bicubic: (1, 2)
            }
        }

        func inputRegion(for output: Rect, input index: Int) -> Rect {
            var low = (x: Double.infinity, y: Double.infinity)
            var high = (x: -Double.infinity, y: -Double.infinity)
            for (x, y) in [
                (output.minX, output.minY), (output.maxX - 1, output.minY), (output.minX, output.maxY - 1),
                (output.maxX - 1, output.maxY - 1),
            ] {
                let p = source(x: x, y: y)
                low = (Swift.min(low.x, p.x), Swift.min(low.y, p.y))
                high = (Swift.max(high.x, p.x), Swift.max(high.y, p.y))
            }
            // One pixel more each side than the filter reaches: rounding never leaves a tap outside.
            let x0 = Int(low.x.rounded(.down)) - reach.before - 1
            let x1 = Int(high.x.rounded(.down)) + reach.after + 1
            let y0 = Int(low.y.rounded(.down)) - reach.before - 1
            let y1 = Int(high.y.rounded(.down)) + reach.after + 1
            let region = Rect(x: x0, y: y0, width: x1 - x0 + 1, height: y1 - y0 + 1)
                .intersection(Rect(width: width, height: height))
            return region.isEmpty ? .empty : region
        }

        /// Keys' cubic convolution weights with a = -0.75 (OpenCV's) for offsets -1, 0, 1, 2 from the floor.
        @inline(__always)
        static func cubicWeights(_ t: Float) -> SIMD4<Float> {
            let a: Float = -0.75
            let w0 = ((a * (t + 1) - 5 * a) * (t + 1) + 8 * a) * (t + 1) - 4 * a
            let w1 = ((a + 2) * t - (a + 3)) * t * t + 1
            let w2 = ((a + 2) * (1 - t) - (a + 3)) * (1 - t) * (1 - t) + 1
            return SIMD4(w0, w1, w2, 1 - w0 - w1 - w2)
        }

        func render(into output: inout PixelBuffer, from inputs: [PixelBuffer]) {
            let input = inputs[0]
            let region = output.region
            let channels = output.channels
            let inChannels = input.channels
            let outRow = output.rowLength
            let interpolation = self.interpolation
            let available = input.region
            // Nearest copies pixels: nothing to weigh.
            let premultiplied = self.premultiplied && interpolation != .nearest
            let hasAlpha = self.premultiplied
            let background = premultiplied ? Self.weighed(self.background) : self.background
            input.samples.withUnsafeBufferPointer { source in
                output.samples.withUnsafeMutableBufferPointer { target in
                    guard let to = target.baseAddress else { return }
                    let from = source.baseAddress
                    /// The input pixel at (x, y), alpha-weighed when the output has alpha; the background
                    /// outside the image.
                    @inline(__always)
                    func pixel(_ x: Int, _ y: Int) -> SIMD4<Float> {
                        guard x >= 0, y >= 0, x < width, y < height, let from else { return background }
                        assert(available.contains(x: x, y: y))
                        let value = PointLoop.load(from + input.index(x: x, y: y), channels: inChannels)
                        return premultiplied ? Self.weighed(value) : value
                    }
                    // Whether the input is opaque: weighing its pixels by alpha changes nothing then.
                    let opaque = inChannels == 1 || !inputHasAlpha
                    let inRow = input.rowLength
                    for row in 0..<region.height {
                        let o = to + row &* outRow
                        for column in 0..<region.width {
                            let (sx, sy) = self.source(x: region.minX + column, y: region.minY + row)
                            var value: SIMD4<Float>
                            if interpolation == .bilinear, inChannels == 4, let from {
                                // Inside, the four taps are loaded straight; the arithmetic is the one below.
                                let x0 = Self.floor(sx)
                                let y0 = Self.floor(sy)
                                if x0 >= 0, y0 >= 0, x0 &+ 1 < width, y0 &+ 1 < height {
                                    let (tx, ty) = (Float(sx - Double(x0)), Float(sy - Double(y0)))
                                    let p = UnsafeRawPointer(
                                        from + ((y0 &- available.minY) &* inRow &+ (x0 &- available.minX) &* 4))
                                    var p00 = p.loadUnaligned(as: SIMD4<Float>.self)
                                    var p10 = p.loadUnaligned(fromByteOffset: 16, as: SIMD4<Float>.self)
                                    var p01 = p.loadUnaligned(fromByteOffset: inRow &* 4, as: SIMD4<Float>.self)
                                    var p11 = p.loadUnaligned(fromByteOffset: inRow &* 4 &+ 16, as: SIMD4<Float>.self)
                                    if premultiplied && !opaque {
                                        (p00, p10) = (Self.weighed(p00), Self.weighed(p10))
                                        (p01, p11) = (Self.weighed(p01), Self.weighed(p11))
                                    }
                                    let top = p00 * (1 - tx) + p10 * tx
                                    let bottom = p01 * (1 - tx) + p11 * tx
                                    value = Self.straight(
                                        top * (1 - ty) + bottom * ty, premultiplied: premultiplied, hasAlpha: hasAlpha)
                                    UnsafeMutableRawPointer(o + column &* 4).storeBytes(
                                        of: value, as: SIMD4<Float>.self)
                                    continue
                                }
                            }
                            switch interpolation {
                            case .nearest:
                                value = pixel(Int((sx + 0.5).rounded(.down)), Int((sy + 0.5).rounded(.down)))
                            case .bilinear:
                                let fx = sx.rounded(.down)
                                let fy = sy.rounded(.down)
                                let (x0, y0) = (Int(fx), Int(fy))
                                let (tx, ty) = (Float(sx - fx), Float(sy - fy))
                                let top = pixel(x0, y0) * (1 - tx) + pixel(x0 + 1, y0) * tx
                                let bottom = pixel(x0, y0 + 1) * (1 - tx) + pixel(x0 + 1, y0 + 1) * tx
                                value = top * (1 - ty) + bottom * ty
                            case .bicubic:
                                let fx = sx.rounded(.down)
                                let fy = sy.rounded(.down)
                                let (x0, y0) = (Int(fx), Int(fy))
                                let wx = Self.cubicWeights(Float(sx - fx))
                                let wy = Self.cubicWeights(Float(sy - fy))
                                value = .zero
                                for j in 0..<4 {
                                    let y = y0 - 1 + j
                                    var line: SIMD4<Float> = pixel(x0 - 1, y) * wx[0]
                                    line += pixel(x0, y) * wx[1]
                                    line += pixel(x0 + 1, y) * wx[2]
                                    line += pixel(x0 + 2, y) * wx[3]
                                    value += line * wy[j]
                                }
                            }
                            value = Self.straight(value, premultiplied: premultiplied, hasAlpha: hasAlpha)
                            PointLoop.store(value, o + column &* channels, channels: channels)
                        }
                    }
                }
            }
        }

        /// An interpolated pixel made straight again: divided by its alpha where the taps were
        /// premultiplied, or made opaque where the image has no alpha.
        @inline(__always)
        static func straight(_ value: SIMD4<Float>, premultiplied: Bool, hasAlpha: Bool) -> SIMD4<Float> {
            if premultiplied {
                let alpha = value.w
                var result = alpha > 0 ? value / alpha : .zero
                result.w = Swift.min(Swift.max(alpha, 0), 1)
                return result
            }
            var result = value
            if !hasAlpha { result.w = 1 }
            return result
        }

        /// `value.rounded(.down)` as an integer, without the call to libm's floor that baseline x86-64 makes.
        @inline(__always)
        static func floor(_ value: Double) -> Int {
            let truncated = Int(value)
            return Double(truncated) > value ? truncated &- 1 : truncated
        }

        /// Color times alpha, and alpha.
        @inline(__always)
        static func weighed(_ p: SIMD4<Float>) -> SIMD4<Float> {
            SIMD4(p.x * p.w, p.y * p.w, p.z * p.w, p.w)
        }
    }
}
