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
        let pixels = try input.pixels()
        let (width, height) = (pixels.region.width, pixels.region.height)
        let landscape = qualityLevel == .fast
        let model = try Model.named(
            landscape ? "selfie_segmentation_landscape.tflite" : "selfie_segmentation.tflite",
            in: ModelFolder.resolve(models?.resolved))
        let (tensorWidth, tensorHeight) = (256, landscape ? 144 : 256)
        let cut = TensorCut.stretch(width, height, width: tensorWidth, height: tensorHeight)
        let outputs = try model.infer(
            cut.tensor(from: pixels, low: 0, high: 1), shape: [1, Int64(tensorHeight), Int64(tensorWidth), 3])
        guard outputs.count == 1, outputs[0].count == tensorWidth * tensorHeight else {
            throw VisionError("the segmentation model's output is not the shape expected")
        }
        var mask = resizeBilinear(
            outputs[0], sourceWidth: tensorWidth, sourceHeight: tensorHeight, width: width, height: height)
        if qualityLevel == .accurate {
            // A radius of about a third of the model's own pixel, on the photo's scale.
            let radius = max(1, max(width, height) / 768)
            mask = GuidedFilter.refine(mask, guide: pixels, radius: radius, epsilon: 1e-3)
        }
        return NodeOutputs(["mask": .image(Image(buffer: mask, layout: .gray, depth: .uint8))])
    }
}

/// He, Sun and Tang's guided filter: the mask made locally a linear function of the photo's luma, so its
/// edges snap to the photo's, clamped to 0...1.
enum GuidedFilter {
    static func refine(_ mask: PixelBuffer, guide pixels: PixelBuffer, radius: Int, epsilon: Float) -> PixelBuffer {
        let (width, height) = (mask.region.width, mask.region.height)
        let count = width * height
        let channels = pixels.channels
        var guide = [Float](repeating: 0, count: count)
        for index in 0..<count {
            let at = index * channels
            guide[index] =
                channels == 1
                ? pixels.samples[at]
                : 0.299 * pixels.samples[at] + 0.587 * pixels.samples[at + 1] + 0.114 * pixels.samples[at + 2]
        }
        let p = mask.samples
        let meanI = boxMean(guide, width, height, radius)
        let meanP = boxMean(p, width, height, radius)
        let meanII = boxMean(zip(guide, guide).map(*), width, height, radius)
        let meanIP = boxMean(zip(guide, p).map(*), width, height, radius)
        var a = [Float](repeating: 0, count: count)
        var b = [Float](repeating: 0, count: count)
        for index in 0..<count {
            let variance = meanII[index] - meanI[index] * meanI[index]
            let covariance = meanIP[index] - meanI[index] * meanP[index]
            a[index] = covariance / (variance + epsilon)
            b[index] = meanP[index] - a[index] * meanI[index]
        }
        let meanA = boxMean(a, width, height, radius)
        let meanB = boxMean(b, width, height, radius)
        var out = mask
        for index in 0..<count { out.samples[index] = min(max(meanA[index] * guide[index] + meanB[index], 0), 1) }
        return out
    }

    /// The mean over the (2r+1)^2 window around each pixel, the window cut at the image's edges: running
    /// sums along rows, then along columns.
    static func boxMean(_ values: [Float], _ width: Int, _ height: Int, _ radius: Int) -> [Float] {
        var rows = [Float](repeating: 0, count: values.count)
        var prefix = [Double](repeating: 0, count: max(width, height) + 1)
        for y in 0..<height {
            for x in 0..<width { prefix[x + 1] = prefix[x] + Double(values[y * width + x]) }
            for x in 0..<width {
                let (low, high) = (max(x - radius, 0), min(x + radius + 1, width))
                rows[y * width + x] = Float((prefix[high] - prefix[low]) / Double(high - low))
            }
        }
        var out = [Float](repeating: 0, count: values.count)
        for x in 0..<width {
            for y in 0..<height { prefix[y + 1] = prefix[y] + Double(rows[y * width + x]) }
            for y in 0..<height {
                let (low, high) = (max(y - radius, 0), min(y + radius + 1, height))
                out[y * width + x] = Float((prefix[high] - prefix[low]) / Double(high - low))
            }
        }
        return out
    }
}
