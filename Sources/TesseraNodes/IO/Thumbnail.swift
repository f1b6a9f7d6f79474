import TesseraCore
import TesseraIO

/// `thumbnail`: reads an image file scaled to fit a box, keeping its aspect ratio, as libvips'
/// `vips thumbnail` does.
///
///     thumb: { op: thumbnail, path: big.jpg, size: 320 }            # 6400x4270 -> 320x214
///     wide:  { op: thumbnail, path: big.jpg, width: 640 }           # any height
///     card:  { op: thumbnail, path: big.jpg, width: 400, height: 300, fit: both }
///
/// The box is `size` x `size`, or `width` x `height` (a side not given is free). The image is turned
/// upright by its EXIF orientation first (the box applies to the upright image), then scaled by the
/// ratio that makes it fit, the side that decides taking the box's side exactly and the other rounding
/// to the nearest pixel. `fit` says when: `down` (the default) only shrinks, so an image already inside
/// the box keeps its size; `both` also enlarges; `up` only enlarges; `force` makes exactly the box,
/// aspect ratio not kept.
///
/// A JPEG is first decoded smaller by libjpeg's DCT scaling (shrink-on-load), 1/2, 1/4 or 1/8, the
/// largest that leaves at least a factor 2 for the resize (as libvips chooses: a DCT-scaled block is
/// sharper than a filtered shrink, and the resize's antialiasing filter smooths what it adds). The rest
/// is the `resize` node's kernels (`interpolation`), streamed row by row. A thumbnail is then within a
/// few levels of a full decode and resize (Docs/HowItWorks.md gives the figures); `shrinkOnLoad: false`
/// decodes the whole file instead. Other formats shrink by the same factors as they decode (a still WebP
/// by libwebp's rescaler, others averaged over blocks), row by row (as libvips' resize shrinks by boxes before its lanczos3, leaving it a factor of 2:
/// its `gap`).
///
/// - Cost: a 6400x4270 JPEG to 320 px decodes 800x534 pixels (1/64 of them) and holds a few rows of
///   them; memory does not grow with the image.
struct Thumbnail: Node {
    static let info = NodeInfo(
        op: "thumbnail",
        summary:
            "Reads an image file scaled to fit a box, keeping its aspect ratio and turned upright, as vips "
            + "thumbnail: decoded at 1/2, 1/4 or 1/8 first (shrink-on-load), then resized.",
        access: .source,
        outputs: [.init("output", .image, doc: "The thumbnail, with samples scaled to 0...1.")],
        example: """
            thumb: { op: thumbnail, path: photo.jpg, size: 320 }
            out: { op: save, input: thumb, path: thumb.jpg, quality: 85 }
            """)

    /// When the image is scaled to the box, as libvips' `size` option.
    enum Fit: String, ParameterChoice {
        /// Only shrink: an image inside the box keeps its size.
        case down
        /// Shrink or enlarge to fit.
        case both
        /// Only enlarge: an image larger than the box keeps its size.
        case up
        /// Exactly the box, aspect ratio not kept.
        case force
    }

    @Parameter(doc: "The image file to read; a relative path is relative to the graph file's folder.")
    var path: FilePath

    @Parameter(
        doc: "The side of a square box to fit in: 320 makes a 6400x4270 photo 320x214.",
        range: 1...Double(Resize.maximumSide), suggested: 16...2048, unit: "px")
    var size: Int? = nil

    @Parameter(
        doc: "The box's width; alone, the height is free.", range: 1...Double(Resize.maximumSide),
        suggested: 16...2048, unit: "px")
    var width: Int? = nil

    @Parameter(
        doc: "The box's height; alone, the width is free.", range: 1...Double(Resize.maximumSide),
        suggested: 16...2048, unit: "px")
    var height: Int? = nil

    @Parameter(
        doc: "down only shrinks (an image inside the box keeps its size), both also enlarges, up only enlarges, "
            + "force makes exactly the box (aspect ratio not kept).")
    var fit = Fit.down

    @Parameter(doc: "The resize filter (the resize node's); lanczos3 is libvips' thumbnail default.")
    var interpolation = Resize.Interpolation.lanczos3

    @Parameter(
        doc: "Decode at 1/2, 1/4 or 1/8 of the size (a JPEG by DCT scaling, a WebP by libwebp's scaling, "
            + "others by block averages) when the thumbnail is at least twice smaller again (faster); false "
            + "resizes the whole image.")
    var shrinkOnLoad = true

    @Parameter(doc: Load.keepOrientationDoc)
    var keepOrientation = false

    @Parameter(doc: Load.maxPixelsDoc, range: 1...Double.infinity, unit: "pixels")
    var maxPixels = DecodeOptions().maxPixels

    @Parameter(doc: Load.maxMemoryDoc, range: 0...Double.infinity, unit: "bytes")
    var maxMemory = 0

    @Parameter(doc: Load.failOnDoc)
    var failOn = FailOn.none

    func validate() throws(NodeProblem) {
        if size != nil, width != nil || height != nil {
            throw NodeProblem(
                parameter: "size", "give either size or width/height, not both: they set the box two ways")
        }
        if size == nil, width == nil, height == nil {
            throw NodeProblem(parameter: "size", "the box is missing: give size, or width and/or height")
        }
    }

    func run() throws -> NodeOutputs {
        try validate()
        let file = path.resolved
        // The header, checked for the least memory any shrink needs: the load below checks again, at the
        // shrink it decodes with.
        let header = try ImageFile.info(path: file, options: decodeOptions(shrink: 8))
        let full = (width: header.fullWidth, height: header.fullHeight)
        let box = size.map { (width: Optional($0), height: Optional($0)) } ?? (width, height)
        let target = Self.fitted(full, in: box, fit: fit)
        let shrink = shrinkOnLoad ? Self.loadShrink(from: full, to: target) : 1
        let (info, decoded) = try ImageFile.load(path: file, options: decodeOptions(shrink: shrink))
        if decoded.width == target.width && decoded.height == target.height { return NodeOutputs(.image(decoded)) }
        // The file's own pixels, not the partial blocks' padding, map onto the thumbnail. It keeps the
        // file's profile, EXIF and XMP, as a load does: `save` writes them (or converts, or strips them).
        let resized = Resize.streamed(
            decoded, to: target, interpolation: interpolation, part: shrink > 1 ? info.content : nil)
        return NodeOutputs(.image(resized.withMetadata(decoded.metadata)))
    }

    private func decodeOptions(shrink: Int) -> DecodeOptions {
        DecodeOptions(
            maxPixels: maxPixels, maxMemory: maxMemory, appliesOrientation: !keepOrientation, shrink: shrink,
            failOn: failOn)
    }

    /// The thumbnail's size for an upright image of `full` pixels and a box whose sides may be free (nil).
    static func fitted(
        _ full: (width: Int, height: Int), in box: (width: Int?, height: Int?), fit: Fit
    ) -> (width: Int, height: Int) {
        if fit == .force { return (box.width ?? full.width, box.height ?? full.height) }
        let across = box.width.map { Double($0) / Double(full.width) } ?? .infinity
        let down = box.height.map { Double($0) / Double(full.height) } ?? .infinity
        let ratio = Swift.min(across, down)
        switch fit {
        case .down where ratio >= 1, .up where ratio <= 1: return full
        default: break
        }
        // The side that decides takes the box's side exactly; the other rounds.
        if let width = box.width, ratio == across {
            return (width, Resize.scaled(full.height, by: Double(width) / Double(full.width)))
        }
        if let height = box.height {
            return (Resize.scaled(full.width, by: Double(height) / Double(full.height)), height)
        }
        return full
    }

    /// The shrink to decode a file of `full` pixels at, for a thumbnail of `target` pixels: the largest
    /// of 8, 4 and 2 that leaves the resize a factor of at least 2 on both sides, else 1. A JPEG takes it
    /// by DCT scaling, a still WebP by libwebp's rescaler, other formats by block averages.
    ///
    /// libvips' thumbnail chooses the same way: a DCT-scaled image is a block shrink, sharper (and more
    /// aliased) than a filtered one, and a resize of 2 or more smooths what it adds. Measured on photos
    /// against a full decode and the same resize: leaving a factor of 1 instead (the largest shrink that
    /// still decodes at least the target size) gave differences up to 40/255, leaving 2 up to 12/255
    /// (mean 1.2/255) on the sharpest 512-pixel photo, 3 to 6/255 on softer ones.
    static func loadShrink(from full: (width: Int, height: Int), to target: (width: Int, height: Int)) -> Int {
        let factor = Swift.min(
            Double(full.width) / Double(target.width), Double(full.height) / Double(target.height))
        return [8, 4, 2].first { factor >= Double(2 * $0) } ?? 1
    }
}
