import Foundation
import TesseraCore

/// `maskedBlur`: Core Image's `CIMaskedVariableBlur`, a Gaussian blur whose sigma at each pixel is
/// `radius` times the mask there: sharp where the mask is 0, blurred by `radius` where it is 1.
///
/// Blurring every pixel with its own Gaussian costs the whole kernel per pixel, so, as Core Image
/// approximates it, the image is blurred at a fixed stack of sigmas (levels) and each pixel mixes the
/// two levels around its sigma: level 0 is the image itself, then `0.3 · 2^(k/3)` px (three levels per
/// doubling) below `radius`, then `radius`. Between levels `a < b` the mix is `(1 - w) G_a + w G_b`
/// with `w = (σ² - a²) / (b² - a²)`, the mix whose spread (variance) is exactly `σ²`. On photos this
/// lands within 1.5/255 of the exact per-pixel Gaussian (mean 0.2/255; Scripts/make-blur-fixtures.py
/// computes the exact one), a mask of 0 gives the input exactly and a mask of 1 gives gaussianBlur's
/// output with `sigma: radius`. Each level is gaussianBlur's own kernel; colors are mixed
/// premultiplied, so transparent pixels never darken their neighbours.
///
/// - Cost: a tile renders only the levels its pixels mix, each costing a gaussianBlur (constant per
///   pixel from sigma 4.5 on): up to 3 log₂(radius / 0.3) + 2 blurs where the mask spans 0...1 within
///   one tile. Every tile reads the margin of the largest level, 3.5 radius.
struct MaskedBlur: Node {
    static let info = NodeInfo(
        op: "maskedBlur",
        summary:
            "Blurs each pixel by radius times the mask there: 0 sharp, 1 a Gaussian of sigma radius (Core Image's "
            + "CIMaskedVariableBlur).",
        access: .area,
        outputs: [.init("output", .image, doc: "The blurred image, with the input's size, layout and depth.")],
        example: """
            photo: { op: load, path: photo.png }
            band: { op: linearGradient, like: photo, units: relative, point0: [0.5, 0.5], point1: [0.5, 0], spread: reflect }
            soft: { op: maskedBlur, input: photo, mask: band, radius: 12 }
            out: { op: save, input: soft, path: soft.png }
            """)

    /// The smallest sigma of the stack above 0; below it a pixel mixes the image with this level.
    static let firstLevel = 0.3
    /// Levels per doubling of sigma.
    static let levelsPerOctave = 3.0

    @Input(doc: "The image to blur; where it has alpha, transparent pixels do not darken their neighbours.")
    var input: Image

    @Input(doc: "How much to blur each pixel, read from one channel and clamped to 0...1; 0 outside its extent.")
    var mask: Image

    @Parameter(
        doc: "Sigma of the Gaussian where the mask is 1 (Core Image's radius is the Gaussian's sigma too).",
        range: 0...1000, suggested: 0...100, unit: "px")
    var radius = 5.0

    @Parameter(doc: "The mask's channel to read: luminance (Rec. 709 weights), red, green, blue or alpha.")
    var maskChannel = BlendWithMask.MaskChannel.luminance

    @Parameter(
        doc: "Outside the image: clamp repeats the edge pixels; transparent is transparent black (black without alpha)."
    )
    var edge = GaussianBlur.Edge.clamp

    /// The stack's sigmas for `radius`: 0, then `firstLevel · 2^(k / levelsPerOctave)` below radius, then radius.
    static func levels(radius: Double) -> [Double] {
        var levels = [0.0]
        var k = 0.0
        while radius > 0 {
            let sigma = firstLevel * pow(2, k / levelsPerOctave)
            guard sigma < radius else { break }
            levels.append(sigma)
            k += 1
        }
        if radius > 0 { levels.append(radius) }
        return levels
    }

    func run() throws -> NodeOutputs {
        let weights: SIMD4<Float> =
            switch maskChannel {
            case .luminance: Luma.rec709
            case .red: SIMD4(1, 0, 0, 0)
            case .green: SIMD4(0, 1, 0, 0)
            case .blue: SIMD4(0, 0, 1, 0)
            case .alpha: SIMD4(0, 0, 0, 1)
            }
        let kernel = Kernel(
            levels: Self.levels(radius: radius), layout: input.layout, radius: Float(radius), weights: weights)
        return NodeOutputs(
            .image(
                Image(
                    width: input.width, height: input.height, layout: input.layout, depth: input.depth,
                    kernel: kernel,
                    inputs: [
                        KernelInput(input, edge: edge == .clamp ? .clamp : .transparent),
                        KernelInput(mask, edge: .transparent),
                    ])))
    }

    struct Kernel: ImageKernel {
        /// The stack's sigmas, increasing from 0.
        let sigmas: [Float]
        /// gaussianBlur's kernel for each level (level 0 is a copy).
        let blurs: [GaussianBlur.Kernel]
        let radius: Float
        let weights: SIMD4<Float>
        /// Whether colors are mixed premultiplied (the layout has alpha).
        let premultiplies: Bool
        /// The largest level's margin.
        let margin: Int

        init(levels: [Double], layout: PixelLayout, radius: Float, weights: SIMD4<Float>) {
            sigmas = levels.map(Float.init)
            blurs = levels.map { GaussianBlur.Kernel(sigma: $0, layout: layout) }
            self.radius = radius
            self.weights = weights
            premultiplies = layout.hasAlpha
            margin = blurs.map(\.margin).max() ?? 0
        }

        func inputRegion(for output: Rect, input index: Int) -> Rect {
            index == 0 ? output.insetBy(dx: -margin, dy: -margin) : output
        }

        /// The lower level a sigma mixes and the weight of the level above it (0 ..< 1): for sigma in
        /// (levels[i], levels[i + 1]], `(i, w)`; a sigma on a level is that level alone, weight 0.
        @inline(__always)
        func place(_ sigma: Float) -> (level: Int, weight: Float) {
            var low = 0
            var high = sigmas.count - 1
            // The last level whose sigma is <= sigma.
            while low < high {
                let middle = (low + high + 1) / 2
                if sigmas[middle] <= sigma { low = middle } else { high = middle - 1 }
            }
            guard low + 1 < sigmas.count, sigma > sigmas[low] else { return (low, 0) }
            let (a, b) = (sigmas[low], sigmas[low + 1])
            return (low, (sigma * sigma - a * a) / (b * b - a * a))
        }

        /// The mask gives each pixel its sigma, hence its two levels and their weights; then each level some
        /// pixel of the tile mixes is rendered by gaussianBlur's kernel and added to those pixels, lower
        /// level first, so a pixel's value never depends on the tile. A pixel on a level (a mask of 0 or 1)
        /// takes that level's value as it is.
        func render(into output: inout PixelBuffer, from inputs: [PixelBuffer]) {
            let region = output.region
            guard !region.isEmpty else { return }
            let count = region.area
            var lower = [Float].scratch(count: count)
            var upper = [Float].scratch(count: count)
            var layer = PixelBuffer.scratch(region: region, channels: output.channels)
            defer {
                lower.recycleScratch()
                upper.recycleScratch()
                layer.recycle()
            }
            var used = [Bool](repeating: false, count: sigmas.count)
            place(from: inputs[1], region: region, lower: &lower, upper: &upper, used: &used)
            let channels = output.channels
            let premultiplies = self.premultiplies
            let opaque = channels == 4 && !premultiplies
            output.samples.withUnsafeMutableBufferPointer { $0.update(repeating: 0) }
            for level in used.indices where used[level] {
                blurs[level].render(into: &layer, from: inputs)
                let value = Float(level)
                lower.withUnsafeBufferPointer { lower in
                    upper.withUnsafeBufferPointer { upper in
                        layer.samples.withUnsafeBufferPointer { layer in
                            output.samples.withUnsafeMutableBufferPointer { out in
                                guard let from = layer.baseAddress, let to = out.baseAddress else { return }
                                for i in 0..<count {
                                    let w = upper[i]
                                    let factor: Float =
                                        lower[i] == value ? 1 - w : lower[i] + 1 == value ? w : 0
                                    guard factor != 0 else { continue }
                                    let pixel = PointLoop.load(from + i &* channels, channels: channels)
                                    if w == 0 {
                                        PointLoop.store(pixel, to + i &* channels, channels: channels)
                                        continue
                                    }
                                    let mixed =
                                        premultiplies ? pixel * SIMD4(pixel.w, pixel.w, pixel.w, 1) : pixel
                                    let sum = PointLoop.load(to + i &* channels, channels: channels) + mixed * factor
                                    PointLoop.store(sum, to + i &* channels, channels: channels)
                                }
                            }
                        }
                    }
                }
            }
            guard premultiplies || opaque else { return }
            // The mixed pixels back to straight colors (alpha exactly 1 without alpha).
            let floor = GaussianBlur.Kernel.transparentBelow
            upper.withUnsafeBufferPointer { upper in
                output.samples.withUnsafeMutableBufferPointer { out in
                    guard let to = out.baseAddress else { return }
                    for i in 0..<count where upper[i] != 0 {
                        var pixel = PointLoop.load(to + i &* 4, channels: 4)
                        if opaque {
                            pixel.w = 1
                        } else {
                            let alpha = pixel.w
                            pixel = alpha >= floor ? pixel / SIMD4(alpha, alpha, alpha, 1) : SIMD4()
                        }
                        PointLoop.store(pixel, to + i &* 4, channels: 4)
                    }
                }
            }
        }

        /// Each pixel's lower level (`lower`, as a Float) and the upper level's weight (`upper`), from the
        /// mask; `used` marks the levels some pixel mixes.
        private func place(
            from mask: PixelBuffer, region: Rect, lower: inout [Float], upper: inout [Float], used: inout [Bool]
        ) {
            let channels = mask.channels
            // A gray mask is read as it is (its luminance weights would sum to 1 only up to rounding).
            let weights = channels == 4 ? self.weights : self.weights.w > 0 ? SIMD4(0, 0, 0, 1) : SIMD4(1, 0, 0, 0)
            let radius = self.radius
            let rowLength = mask.rowLength
            let start = mask.index(x: region.minX, y: region.minY)
            mask.samples.withUnsafeBufferPointer { samples in
                guard let base = samples.baseAddress else { return }
                for row in 0..<region.height {
                    let line = base + (start &+ row &* rowLength)
                    for column in 0..<region.width {
                        let pixel = PointLoop.load(line + column &* channels, channels: channels)
                        let m = Swift.min(Swift.max((pixel * weights).sum(), 0), 1)
                        let (level, weight) = place(radius * m)
                        let i = row &* region.width &+ column
                        lower[i] = Float(level)
                        upper[i] = weight
                        used[level] = true
                        if weight > 0 { used[level + 1] = true }
                    }
                }
            }
        }
    }
}
