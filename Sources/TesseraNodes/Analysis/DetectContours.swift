import TesseraCore

/// `detectContours`: Vision's `VNDetectContoursRequest` on Linux, with the contour-art tutorial's sweep
/// and near-duplicate removal built in.
///
///     edges: { op: detectContours, input: photo, contrastAdjustment: 2.5, epsilon: 0.005 }
///     art:   { op: detectContours, input: photo, contrastPivotSweep: [0.2, 0.7, 0.1],
///              contrastAdjustmentSweep: [0.5, 3.0, 0.2], iouThreshold: 0.9, epsilon: 0.01 }
///
/// The steps, in order:
///
/// 1. luminance: Rec. 709 weights on the stored values (the `grayscale` node's); alpha is ignored;
/// 2. downscale (the `resize` node's bilinear filter, antialiased) so the longer side is at most
///    `maximumImageDimension`; never upscaled. This is the traced grid;
/// 3. contrast: `contrast`'s formula, `clamp((v - pivot) * adjustment + pivot, 0, 1)`; an `auto` pivot is
///    Otsu's threshold of the traced luminance (256 bins);
/// 4. binarize: foreground where the adjusted value is below 0.5 (`detectsDarkOnLight`) or above 0.5.
///    So the cut lies at `pivot + (0.5 - pivot) / adjustment` in the original luminance: the adjustment
///    moves it whenever the pivot is not 0.5 (that is what makes sweeping it find new contours);
/// 5. Suzuki-Abe border following with the full hierarchy, exactly as OpenCV's
///    `findContours(mask, RETR_TREE, CHAIN_APPROX_NONE)` on the same mask (``BorderFollowing``);
/// 6. with `minimumLength` or `minimumArea` above 0, contours whose traced border is shorter (OpenCV's
///    `arcLength(contour, closed: true)`) or encloses less (OpenCV's `contourArea`), in traced pixels, are
///    dropped. They are measured on the traced border, before simplification, so the filter does not
///    move with `epsilon`;
/// 7. with `epsilon` above 0, each contour is simplified as OpenCV's `approxPolyDP(contour, epsilon *
///    longer traced side, closed: true)` (``PolygonApproximation``); points stay traced pixels.
///
/// A sweep runs steps 3 to 7 for every pair of pivot and adjustment (pivots outer, adjustments inner;
/// each range `[from, to, step]` includes `to` when a step lands on it) and concatenates the contours
/// in that order. `iouThreshold` then drops, in order, every contour whose bounding box has an IoU of at
/// least the threshold with a contour kept before it (``BoxDeduplication``). The length and area filter
/// comes first, so a speck it drops never suppresses a larger contour of another setting.
///
/// Whatever drops a contour keeps the tree whole: a kept contour whose parent was dropped hangs from its
/// nearest kept ancestor (-1 if none), and children lists are renumbered. A one-pixel speck has length
/// and area 0 and a one-pixel-wide line area 0, so any `minimumArea` drops them; blobs a few pixels
/// across, which `epsilon` collapses to a point or a short line, take a `minimumLength` of a few tens
/// of pixels (`Graphs/contour-art.yaml` uses 40 and an area of 20: about a fourteenth of the contours
/// stay, and the drawing loses its dust, not its subject).
///
/// Pixels outside the image count as background, as OpenCV 4's `findContours` has them: a foreground
/// region that touches the image's edge is traced through its edge pixels, so part of its border runs
/// along the frame, and an image that is foreground everywhere (white on black with `detectsDarkOnLight:
/// false`, say) gives one top-level contour around the whole frame. No parameter drops these: the frame
/// contour is the longest and largest, and an edge run is part of a closed border (padding the input
/// with background only moves the run inward). To keep frame lines out of a drawing, cover its outer
/// ring: `crop` the drawing with `margin: -1` and `composite` that at `x: 1, y: 1` over a `constant`
/// `like` it (for a downscaled trace, a margin of half the scale factor plus half the line width).
///
/// Points are pixel coordinates in the traced grid, origin top-left (Vision's are normalized with the
/// origin bottom-left). `epsilon` is in units of the traced grid's longer side, which equals Vision's
/// normalized units on a square image (Vision normalizes x and y by their own sides).
///
/// - Cost: the input is read once (a band at a time) and downscaled; tracing is linear in the traced
///   pixels plus the border pixels. A sweep's settings are independent ``Jobs``: the engine runs them
///   on its workers (`--threads`), and the result is the same for any thread count.
struct DetectContours: Node {
    static let info = NodeInfo(
        op: "detectContours",
        summary:
            "Finds the contours of dark (or light) regions with their hierarchy, as Vision's VNDetectContoursRequest "
            + "and OpenCV's findContours.",
        access: .global,
        outputs: [
            .init(
                "contours", .contours,
                doc: "Closed polylines in traced-grid pixel coordinates with parent, children and hole flags; a "
                    + "region touching the image's edge is traced through its edge pixels, as OpenCV 4 does."),
            .init(
                "mask", .image,
                doc: "The binary image that was traced (of the first sweep setting): foreground 1, background 0."),
        ],
        example: """
            photo: { op: load, path: photo.png }
            edges: { op: detectContours, input: photo, contrastAdjustment: 2, epsilon: 0.005 }
            svg: { op: save, input: edges, path: edges.svg }
            """)

    @Input(doc: "The image; its luminance is read once, whole, and downscaled.")
    var input: Image

    @Parameter(
        doc: "How much the luminance's distance from the pivot is multiplied before binarizing (Vision's).",
        range: 0...3)
    var contrastAdjustment = 2.0

    @Parameter(
        doc: "The luminance the contrast adjustment pivots around, or auto: Otsu's threshold of the image's histogram.",
        range: 0...1)
    var contrastPivot = NumberOrAuto.number(0.5)

    @Parameter(doc: "Trace dark regions on a light background (true) or light regions on a dark one (false).")
    var detectsDarkOnLight = true

    @Parameter(
        doc: "The traced grid's longer side at most: larger images are downscaled to it, smaller ones kept "
            + "(never upscaled). At most 8192, which bounds the trace's buffers to about 1 GB.",
        range: 64...8192, suggested: 64...4096, unit: "px")
    var maximumImageDimension = 512

    @Parameter(
        doc: "Simplification tolerance (approxPolyDP) as a fraction of the traced grid's longer side; 0 keeps "
            + "every border pixel.",
        range: 0...1, suggested: 0...0.05)
    var epsilon = 0.0

    @Parameter(
        doc: "Sweep the pivot: [from, to, step]; replaces contrastPivot. The tutorial's is [0.2, 0.7, 0.1].",
        range: 0...1)
    var contrastPivotSweep: [Double]? = nil

    @Parameter(
        doc: "Sweep the adjustment: [from, to, step]; replaces contrastAdjustment. The tutorial's is [0.5, 3, 0.2].",
        range: 0...3)
    var contrastAdjustmentSweep: [Double]? = nil

    @Parameter(
        doc: "Drop each contour whose bounding box has at least this IoU with one kept before it; unset keeps all.",
        range: 0...1, suggested: 0.5...1)
    var iouThreshold: Double? = nil

    @Parameter(
        doc: "Drop contours shorter than this, in traced pixels: the traced border's closed length (OpenCV's "
            + "arcLength), measured before epsilon; 0 keeps all.",
        range: 0...Double.infinity, suggested: 0...100, unit: "px")
    var minimumLength = 0.0

    @Parameter(
        doc: "Drop contours enclosing less than this, in square traced pixels: the traced border's area (OpenCV's "
            + "contourArea), measured before epsilon; 0 keeps all.",
        range: 0...Double.infinity, suggested: 0...1000, unit: "px²")
    var minimumArea = 0.0

    /// More settings than this in one sweep is surely a mistake (each traces the whole grid).
    static let maximumSettings = 10_000

    func validate() throws(NodeProblem) {
        var counts: [Int] = []
        for (name, sweep) in [
            ("contrastPivotSweep", contrastPivotSweep), ("contrastAdjustmentSweep", contrastAdjustmentSweep),
        ] {
            guard let sweep else { continue }
            guard sweep.count == 3 else {
                throw NodeProblem(parameter: name, "expected [from, to, step], found \(sweep.count) numbers")
            }
            guard sweep[2] > 0 else { throw NodeProblem(parameter: name, "the step must be above 0") }
            guard sweep[0] <= sweep[1] else {
                throw NodeProblem(parameter: name, "from (\(sweep[0])) must not be above to (\(sweep[1]))")
            }
            counts.append(Self.values(sweep).count)
        }
        if counts.reduce(1, *) > Self.maximumSettings {
            throw NodeProblem(
                parameter: contrastPivotSweep == nil ? "contrastAdjustmentSweep" : "contrastPivotSweep",
                "the sweep has \(counts.reduce(1, *)) settings; at most \(Self.maximumSettings)")
        }
    }

    /// The values of a validated `[from, to, step]` range: `from + i * step` up to `to` (a value within a
    /// millionth of a step past `to` counts as `to`).
    static func values(_ sweep: [Double]) -> [Double] {
        let count = Int(((sweep[1] - sweep[0]) / sweep[2] + 1e-6).rounded(.down)) + 1
        return (0..<Swift.min(count, maximumSettings + 1)).map { Swift.min(sweep[0] + Double($0) * sweep[2], sweep[1]) }
    }

    func run() throws -> NodeOutputs {
        try validate()
        let size = tracedSize
        let luminance = try tracedLuminance(size: size)
        let pivots: [Double]
        if let contrastPivotSweep {
            pivots = Self.values(contrastPivotSweep)
        } else if case .number(let pivot) = contrastPivot {
            pivots = [pivot]
        } else {
            pivots = [Self.otsuThreshold(luminance)]
        }
        let adjustments = contrastAdjustmentSweep.map(Self.values) ?? [contrastAdjustment]
        let pixelEpsilon = epsilon * Double(Swift.max(size.width, size.height))
        let settings = pivots.flatMap { pivot in adjustments.map { (pivot: pivot, adjustment: $0) } }
        let darkOnLight = detectsDarkOnLight
        let (minimumLength, minimumArea) = (self.minimumLength, self.minimumArea)
        // Each setting is an independent job: the engine may run them at once; results come in order.
        let traced = try Jobs.current.map(settings.count) { index in
            var mask = [UInt8](repeating: 0, count: luminance.count)
            Self.binarize(
                luminance, into: &mask, pivot: Float(settings[index].pivot),
                adjustment: Float(settings[index].adjustment), darkOnLight: darkOnLight)
            var contours = BorderFollowing.trace(mask: mask, width: size.width, height: size.height)
            if minimumLength > 0 || minimumArea > 0 {
                contours = Self.filtered(contours, minimumLength: minimumLength, minimumArea: minimumArea)
            }
            if pixelEpsilon > 0 {
                for i in contours.indices {
                    contours[i].points = PolygonApproximation.closed(contours[i].points, epsilon: pixelEpsilon)
                }
            }
            return (contours: contours, mask: index == 0 ? mask : nil)
        }
        var all: [Contours.Contour] = []
        for (contours, _) in traced {
            let offset = all.count
            for var contour in contours {
                if contour.parent >= 0 { contour.parent += offset }
                contour.children = contour.children.map { $0 + offset }
                all.append(contour)
            }
        }
        if let iouThreshold { all = Self.deduplicated(all, threshold: iouThreshold) }
        let maskBuffer = PixelBuffer(
            region: Rect(width: size.width, height: size.height), channels: 1,
            samples: (traced.first?.mask ?? []).map { Float($0) })
        return NodeOutputs([
            "contours": .contours(
                Contours(
                    contours: all, width: size.width, height: size.height, imageWidth: input.width,
                    imageHeight: input.height)),
            "mask": .image(Image(buffer: maskBuffer, layout: .gray, depth: .uint8)),
        ])
    }

    /// The input's size, downscaled so the longer side is at most `maximumImageDimension`.
    var tracedSize: (width: Int, height: Int) {
        let longer = Swift.max(input.width, input.height)
        guard longer > maximumImageDimension else { return (input.width, input.height) }
        let ratio = Double(maximumImageDimension) / Double(longer)
        return (
            Swift.min(Resize.scaled(input.width, by: ratio), maximumImageDimension),
            Swift.min(Resize.scaled(input.height, by: ratio), maximumImageDimension)
        )
    }

    /// The luminance of the traced grid, row by row: the `grayscale` node's kernel, then the `resize`
    /// node's (bilinear) when the grid is smaller, rendered a band of rows at a time.
    func tracedLuminance(size: (width: Int, height: Int)) throws -> [Float] {
        var image = Image(
            width: input.width, height: input.height, layout: .gray, depth: .float32,
            kernel: Grayscale.Kernel(weights: Luma.rec709), inputs: [KernelInput(input)])
        if size != (input.width, input.height) {
            image = Image(
                width: size.width, height: size.height, layout: .gray, depth: .float32,
                kernel: Resize.Kernel(
                    input: (input.width, input.height), output: size, layout: .gray, interpolation: .bilinear),
                inputs: [KernelInput(image)])
        }
        var luminance = [Float](repeating: 0, count: size.width * size.height)
        var band = PixelBuffer(region: .empty, channels: 1)
        for rows in image.extent.tiles(width: image.width, height: 64) {
            band.reshape(to: rows)
            try image.render(into: &band)
            let start = rows.minY * size.width
            luminance.replaceSubrange(start..<(start + band.samples.count), with: band.samples)
        }
        return luminance
    }

    /// Foreground (1) where the contrast-adjusted value is below 0.5 (dark on light) or above it.
    static func binarize(
        _ luminance: [Float], into mask: inout [UInt8], pivot: Float, adjustment: Float, darkOnLight: Bool
    ) {
        for i in luminance.indices {
            let value = Contrast.apply(luminance[i], amount: adjustment, pivot: pivot)
            mask[i] = (darkOnLight ? value < 0.5 : value > 0.5) ? 1 : 0
        }
    }

    /// Otsu's threshold over 256 bins of 0...1 (values outside clamp to the ends; NaN is skipped): the
    /// upper edge of the bin that best splits the histogram in two.
    static func otsuThreshold(_ values: [Float]) -> Double {
        var histogram = [Double](repeating: 0, count: 256)
        for value in values where !value.isNaN {
            histogram[Int(Swift.min(Swift.max(value, 0), 1) * 255.999)] += 1
        }
        let total = histogram.reduce(0, +)
        guard total > 0 else { return 0.5 }
        let sum = histogram.enumerated().reduce(0) { $0 + Double($1.offset) * $1.element }
        var below = 0.0
        var belowSum = 0.0
        var best = -1.0
        var threshold = 127
        for bin in 0..<255 {
            below += histogram[bin]
            belowSum += Double(bin) * histogram[bin]
            let above = total - below
            guard below > 0, above > 0 else { continue }
            let difference = belowSum / below - (sum - belowSum) / above
            let between = below * above * difference * difference
            if between > best {
                best = between
                threshold = bin
            }
        }
        return Double(threshold + 1) / 256
    }

    /// The contours at least `minimumLength` long and enclosing at least `minimumArea` (``Contours/Contour/length``
    /// and ``Contours/Contour/area``, in traced pixels), the tree kept whole as ``keeping(_:of:)`` keeps it.
    static func filtered(
        _ contours: [Contours.Contour], minimumLength: Double, minimumArea: Double
    ) -> [Contours.Contour] {
        keeping(
            contours.indices.filter { contours[$0].length >= minimumLength && contours[$0].area >= minimumArea },
            of: contours)
    }

    /// `contours` without the near-duplicates ``BoxDeduplication`` finds; parents and children are
    /// renumbered, and a dropped contour's children hang from its nearest kept ancestor.
    static func deduplicated(_ contours: [Contours.Contour], threshold: Double) -> [Contours.Contour] {
        keeping(BoxDeduplication.keep(contours.map(\.boundingBox), threshold: threshold), of: contours)
    }

    /// The contours at the indices `keep` (increasing), renumbered: a kept contour whose parent was dropped
    /// hangs from its nearest kept ancestor (or none: -1), and each kept contour's children are the kept
    /// contours that now name it, in order. Hole flags stay: they say which side of a region a border is.
    static func keeping(_ keep: [Int], of contours: [Contours.Contour]) -> [Contours.Contour] {
        var position = [Int](repeating: -1, count: contours.count)
        for (new, old) in keep.enumerated() { position[old] = new }
        var result = keep.map { contours[$0] }
        for index in result.indices {
            var parent = result[index].parent
            while parent >= 0 && position[parent] < 0 { parent = contours[parent].parent }
            result[index].parent = parent >= 0 ? position[parent] : -1
            result[index].children = []
        }
        for index in result.indices where result[index].parent >= 0 {
            result[result[index].parent].children.append(index)
        }
        return result
    }
}
