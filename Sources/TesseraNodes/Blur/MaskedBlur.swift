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
/// - Cost: a tile renders only the levels its pixels mix, each over the bounding box of those pixels,
///   at a gaussianBlur's cost (constant per pixel from sigma 4.5 on): about two blurs per pixel where
///   the mask changes smoothly (a tilt-shift's levels are bands of rows), up to 3 log₂(radius / 0.3) + 2
///   over a whole tile where it is noise. Every tile reads the margin of the largest level, 3.5 radius.
///   (Graphs/tilt-shift.yaml, 600x400 at radius 14, in a debug build: 27 s with every level over
///   whole tiles, 6.5 s with the boxes.)
struct MaskedBlur: Node {
    static let info = NodeInfo(
        op: "maskedBlur",
        summary:
            "Blurs each pixel by radius times the mask there: 0 sharp, 1 a Gaussian of sigma radius (Core Image's "
            + "CIMaskedVariableBlur).",
        access: .area,
        outputs: [
            .init(
                "output", .image,
                doc: "The blurred image, with the input's size, layout and depth. Each pixel mixes the two levels "
                    + "around its sigma from a stack of Gaussians (0, then three per doubling from 0.3 px, then "
                    + "radius): within 1.5/255 of a Gaussian per pixel; a mask of 0 gives the input exactly, 1 "
                    + "gives gaussianBlur's output.")
        ],
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
        let kernel = Kernel(
            levels: Self.levels(radius: radius), layout: input.layout, depth: input.depth, radius: Float(radius),
            weights: maskChannel.weights)
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

        /// The levels are gaussianBlur's for the image's layout and depth, so a mask of 1 is its blur.
        init(levels: [Double], layout: PixelLayout, depth: SampleDepth, radius: Float, weights: SIMD4<Float>) {
            sigmas = levels.map(Float.init)
            blurs = levels.map { GaussianBlur.Kernel(sigma: $0, layout: layout, depth: depth) }
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
        /// pixel of the tile mixes is rendered by gaussianBlur's kernel, over the bounding box of the
        /// pixels that mix it (a tilt-shift's levels are bands of rows), and added to those pixels,
        /// lower level first, so a pixel's value never depends on the tile. A pixel on a level (a mask of
        /// 0 or 1) takes that level's value as it is.
        func render(into output: inout PixelBuffer, from inputs: [PixelBuffer]) {
            let region = output.region
            guard !region.isEmpty else { return }
            let count = region.area
            var lower = [Float].scratch(count: count)
            var upper = [Float].scratch(count: count)
            defer {
                lower.recycleScratch()
                upper.recycleScratch()
            }
            var boxes = [Rect](repeating: .empty, count: sigmas.count)
            place(from: inputs[1], region: region, lower: &lower, upper: &upper, boxes: &boxes)
            let channels = output.channels
            let premultiplies = self.premultiplies
            let opaque = channels == 4 && !premultiplies
            let width = region.width
            output.samples.withUnsafeMutableBufferPointer { $0.update(repeating: 0) }
            for level in boxes.indices where !boxes[level].isEmpty {
                let box = boxes[level]
                var layer = PixelBuffer.scratch(region: box, channels: channels)
                defer { layer.recycle() }
                blurs[level].render(into: &layer, from: inputs)
                let value = Float(level)
                lower.withUnsafeBufferPointer { lower in
                    upper.withUnsafeBufferPointer { upper in
                        layer.samples.withUnsafeBufferPointer { layer in
                            output.samples.withUnsafeMutableBufferPointer { out in
                                guard let from = layer.baseAddress, let to = out.baseAddress else { return }
                                for row in 0..<box.height {
                                    let first = (box.minY - region.minY + row) &* width &+ (box.minX - region.minX)
                                    let source = from + row &* box.width &* channels
                                    for column in 0..<box.width {
                                        let i = first &+ column
                                        let w = upper[i]
                                        let factor: Float =
                                            lower[i] == value ? 1 - w : lower[i] + 1 == value ? w : 0
                                        guard factor != 0 else { continue }
                                        let pixel = PointLoop.load(source + column &* channels, channels: channels)
                                        if w == 0 {
                                            PointLoop.store(pixel, to + i &* channels, channels: channels)
                                            continue
                                        }
                                        let mixed =
                                            premultiplies ? pixel * SIMD4(pixel.w, pixel.w, pixel.w, 1) : pixel
                                        let sum =
                                            PointLoop.load(to + i &* channels, channels: channels) + mixed * factor
                                        PointLoop.store(sum, to + i &* channels, channels: channels)
                                    }
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
        /// mask; `boxes` gets, for each level, the bounding box of the pixels that mix it.
        private func place(
            from mask: PixelBuffer, region: Rect, lower: inout [Float], upper: inout [Float], boxes: inout [Rect]
        ) {
            // Per level, the smallest and largest x and y of its pixels.
            var bounds = [SIMD4<Int>](repeating: SIMD4(.max, .max, .min, .min), count: boxes.count)
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
                        let point = SIMD4(region.minX + column, region.minY + row, 0, 0)
                        for used in level...(weight > 0 ? level + 1 : level) {
                            let b = bounds[used]
                            bounds[used] = SIMD4(
                                Swift.min(b.x, point.x), Swift.min(b.y, point.y), Swift.max(b.z, point.x),
                                Swift.max(b.w, point.y))
                        }
                    }
                }
            }
            for level in boxes.indices where bounds[level].x <= bounds[level].z {
                let b = bounds[level]
                boxes[level] = Rect(x: b.x, y: b.y, width: b.z - b.x + 1, height: b.w - b.y + 1)
            }
        }
    }
}
