import TesseraPluginSDK

/// Vision's person segmentation: a soft mask of the people in a photo, from MediaPipe's selfie
/// segmentation models (their one custom layer rewritten into a standard transposed convolution when
/// `make` unpacks them).
struct SegmentPeople: Node {
    enum QualityLevel: String, ParameterChoice, Sendable {
        /// The landscape model (144 x 256), MediaPipe's model_selection 1.
        case fast
        /// The general model (256 x 256), MediaPipe's model_selection 0, upsampled bilinearly.
        case balanced
        /// The general model, its edges then refined on the photo by a guided filter, so the mask follows
        /// hair and shoulders at the photo's own resolution.
        case accurate
    }

    static let info = NodeInfo(
        op: "segmentPeople",
        summary: "Makes a soft mask of the people in a photo: 1 on a person, 0 on the background (MediaPipe's "
            + "selfie segmentation on OpenVINO).",
        access: .global,
        outputs: [.init("mask", .image, doc: "Gray, the photo's size: how surely each pixel shows a person, 0...1.")],
        example: """
            photo: { op: load, path: photo.jpg }
            people: { op: segmentPeople, input: photo }
            white: { op: constant, like: photo, color: [1, 1, 1, 1] }
            cut: { op: blendWithMask, input: photo, background: white, mask: people }
            out: { op: save, input: cut, path: white-background.png }
            """)

    @Input(doc: "The photo, as stored (sRGB values); alpha is ignored.") var input: Image
    @Parameter(
        doc: "fast (the landscape model), balanced (the general model) or accurate (the general model with its "
            + "edges refined on the photo), as Vision's quality levels.")
    var qualityLevel = QualityLevel.accurate
    @Parameter(doc: DetectFaces.modelsDoc) var models: FilePath? = nil

    func run() throws -> NodeOutputs {
        let (width, height) = (input.width, input.height)
        let landscape = qualityLevel == .fast
        let model = try Model.named(
            landscape ? "selfie_segmentation_landscape.tflite" : "selfie_segmentation.tflite",
            in: ModelFolder.resolve(models?.resolved))
        let (tensorWidth, tensorHeight) = (256, landscape ? 144 : 256)
        let cut = TensorCut.stretch(width, height, width: tensorWidth, height: tensorHeight)
        var scratch = PixelBuffer(region: .empty, channels: input.channels)
        let outputs = try model.infer(
            try cut.tensor(from: input, low: 0, high: 1, reusing: &scratch),
            shape: [1, Int64(tensorHeight), Int64(tensorWidth), 3])
        guard outputs.count == 1, outputs[0].count == tensorWidth * tensorHeight else {
            throw VisionError("the segmentation model's output is not the shape expected")
        }
        // The model's mask at the photo's size, rendered where it is read.
        let resized = BilinearResize(
            source: outputs[0], sourceWidth: tensorWidth, sourceHeight: tensorHeight, width: width, height: height)
        let mask = Image(width: width, height: height, layout: .gray, depth: .uint8, kernel: resized, inputs: [])
        guard qualityLevel == .accurate else { return NodeOutputs(["mask": .image(mask)]) }
        // A radius of about a third of the model's own pixel, on the photo's scale.
        let filter = GuidedFilter(
            mask: resized, width: width, height: height, radius: max(1, max(width, height) / 768), epsilon: 1e-3)
        let refined = Image(
            width: width, height: height, layout: .gray, depth: .uint8, kernel: filter, inputs: [KernelInput(input)])
        return NodeOutputs(["mask": .image(refined)])
    }
}

/// He, Sun and Tang's guided filter: the mask made locally a linear function of the photo's luma, so its
/// edges snap to the photo's, clamped to 0...1. Windows of (2r+1)^2 pixels are cut at the image's
/// edges. A kernel: a tile reads the photo 2r pixels around it, and every window sum adds its samples in
/// one fixed order (pixels outside the image count as 0 and are not counted), so a pixel's value is the
/// same whatever tile it is rendered in.
struct GuidedFilter: ImageKernel {
    /// The model's mask at the photo's size.
    let mask: BilinearResize
    let width: Int
    let height: Int
    let radius: Int
    let epsilon: Float

    func inputRegion(for output: Rect, input index: Int) -> Rect { output.insetBy(dx: -2 * radius, dy: -2 * radius) }

    func render(into output: inout PixelBuffer, from inputs: [PixelBuffer]) throws {
        let photo = inputs[0]
        let tile = output.region
        let image = Rect(width: width, height: height)
        // The guide, the mask and their products on the tile and 2r around it; 0 outside the image.
        let outer = tile.insetBy(dx: -2 * radius, dy: -2 * radius)
        var inside = PixelBuffer(region: outer.intersection(image), channels: 1)
        try mask.render(into: &inside, from: [])
        var guide = [Float](repeating: 0, count: outer.area)
        var p = guide
        let channels = photo.channels
        let span = inside.region
        guide.withUnsafeMutableBufferPointer { guide in
            p.withUnsafeMutableBufferPointer { p in
                photo.samples.withUnsafeBufferPointer { samples in
                    inside.samples.withUnsafeBufferPointer { mask in
                        for y in span.minY..<span.maxY {
                            let from = ((y - photo.region.minY) * photo.region.width - photo.region.minX) * channels
                            let to = (y - outer.minY) * outer.width - outer.minX
                            let row = (y - span.minY) * span.width - span.minX
                            for x in span.minX..<span.maxX {
                                let at = from + x * channels
                                guide[to + x] =
                                    channels == 1
                                    ? samples[at]
                                    : 0.299 * samples[at] + 0.587 * samples[at + 1] + 0.114 * samples[at + 2]
                                p[to + x] = mask[row + x]
                            }
                        }
                    }
                }
            }
        }
        var guideSquared = guide
        var guideTimesP = guide
        for index in guide.indices {
            guideSquared[index] = guide[index] * guide[index]
            guideTimesP[index] = guide[index] * p[index]
        }
        // Means on the tile and r around it, then each pixel's linear coefficients there.
        let middle = tile.insetBy(dx: -radius, dy: -radius)
        let meanI = boxMean(guide, over: outer, at: middle)
        let meanP = boxMean(p, over: outer, at: middle)
        let meanII = boxMean(guideSquared, over: outer, at: middle)
        let meanIP = boxMean(guideTimesP, over: outer, at: middle)
        var a = [Float](repeating: 0, count: middle.area)
        var b = a
        let rows = max(middle.minY, 0)..<min(middle.maxY, height)
        let columns = max(middle.minX, 0)..<min(middle.maxX, width)
        for y in rows {
            let row = (y - middle.minY) * middle.width - middle.minX
            for x in columns {
                let index = row + x
                let variance = meanII[index] - meanI[index] * meanI[index]
                let covariance = meanIP[index] - meanI[index] * meanP[index]
                a[index] = covariance / (variance + epsilon)
                b[index] = meanP[index] - a[index] * meanI[index]
            }
        }
        let meanA = boxMean(a, over: middle, at: tile)
        let meanB = boxMean(b, over: middle, at: tile)
        output.samples.withUnsafeMutableBufferPointer { out in
            guide.withUnsafeBufferPointer { guide in
                for y in 0..<tile.height {
                    let from = (y + tile.minY - outer.minY) * outer.width + tile.minX - outer.minX
                    for x in 0..<tile.width {
                        let index = y * tile.width + x
                        out[index] = min(max(meanA[index] * guide[from + x] + meanB[index], 0), 1)
                    }
                }
            }
        }
    }

    /// The mean of `values` (laid out over `grid`, 0 outside the image) over each pixel's window of
    /// `region` (which lies `radius` inside `grid`), the window cut at the image's edges: summed along
    /// rows, then along columns, each sum adding its terms from the lowest offset up.
    private func boxMean(_ values: [Float], over grid: Rect, at region: Rect) -> [Float] {
        let span = 2 * radius + 1
        let columns = region.width
        var rows = [Float](repeating: 0, count: grid.height * columns)
        var out = [Float](repeating: 0, count: region.area)
        values.withUnsafeBufferPointer { values in
            rows.withUnsafeMutableBufferPointer { rows in
                guard let values = values.baseAddress, let rows = rows.baseAddress else { return }
                for y in 0..<grid.height {
                    Self.windowSums(
                        values + y * grid.width + region.minX - grid.minX - radius, step: 1, taps: span,
                        count: columns, into: rows + y * columns)
                }
            }
            out.withUnsafeMutableBufferPointer { out in
                rows.withUnsafeBufferPointer { rows in
                    guard let out = out.baseAddress, let rows = rows.baseAddress else { return }
                    for y in 0..<region.height {
                        Self.windowSums(
                            rows + (y + region.minY - grid.minY - radius) * columns, step: columns, taps: span,
                            count: columns, into: out + y * columns)
                    }
                }
            }
        }
        // Divided by the number of the window's pixels inside the image.
        func count(_ center: Int, _ size: Int) -> Float {
            Float(min(center + radius, size - 1) - max(center - radius, 0) + 1)
        }
        let columnsInside = (0..<columns).map { count(region.minX + $0, width) }
        out.withUnsafeMutableBufferPointer { out in
            for y in 0..<region.height {
                let rowsInside = count(region.minY + y, height)
                for x in 0..<columns { out[y * columns + x] /= max(rowsInside * columnsInside[x], 1) }
            }
        }
        return out
    }

    /// `into[x] = source[x] + source[x + step] + ... + source[x + (taps - 1) * step]` for x in 0..<count,
    /// added in that order from 0, sixteen x at a time.
    private static func windowSums(
        _ source: UnsafePointer<Float>, step: Int, taps: Int, count: Int, into target: UnsafeMutablePointer<Float>
    ) {
        let raw = UnsafeRawPointer(source)
        var x = 0
        while x + 16 <= count {
            var sum = SIMD16<Float>()
            for tap in 0..<taps {
                sum += raw.loadUnaligned(fromByteOffset: (x + tap * step) * 4, as: SIMD16<Float>.self)
            }
            UnsafeMutableRawPointer(target + x).storeBytes(of: sum, as: SIMD16<Float>.self)
            x += 16
        }
        while x < count {
            var sum: Float = 0
            for tap in 0..<taps { sum += source[x + tap * step] }
            target[x] = sum
            x += 1
        }
    }
}
