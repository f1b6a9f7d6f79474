import TesseraCore
import TesseraIO

/// `load`: reads an image file. The header is read when the node runs; pixels are decoded as regions
/// of them are asked for.
///
///     photo: { op: load, path: big.jpg, shrink: 8 }     # a 6400x4270 JPEG as 800x534, DCT-scaled
///
/// `shrink` (libvips' `jpegload shrink`) loads the image that many times smaller on each side, rounded
/// up: a JPEG by libjpeg's DCT scaling, any other file by averaging blocks of its pixels, so a graph
/// gives the same size whatever the file type (`DecodeOptions.shrink`).
///
/// Left unset, the run may decode a JPEG smaller on its own (shrink-on-load): when every node that
/// reads its pixels is a `resize` shrinking it 32 times or more, it is decoded at 1/4 or 1/8 and
/// the resize does the rest, with the output's size unchanged and its pixels within 2/255 of a
/// full decode's (`tessera run --plan` says when; `RenderPlan.shrinkOnLoad`). The image the graph sees
/// keeps the full size. `shrink: 1` always decodes the whole file, as libvips' `jpegload` does.
struct Load: Node {
    static let info = NodeInfo(
        op: "load",
        summary:
            "Reads a PNG, TIFF, JPEG, WebP, GIF, HEIC or AVIF image with its profile and metadata; the format is recognized from the content.",
        access: .source,
        outputs: [.init("output", .image, doc: "The image, with samples scaled to 0...1.")],
        example: """
            photo: { op: load, path: photo.jpg }
            copy: { op: save, input: photo, path: photo.png }
            """)

    @Parameter(doc: "The image file to read; a relative path is relative to the graph file's folder.")
    var path: FilePath

    @Parameter(doc: Self.maxPixelsDoc, range: 1...Double.infinity, unit: "pixels")
    var maxPixels = DecodeOptions().maxPixels

    @Parameter(doc: Self.maxMemoryDoc, range: 0...Double.infinity, unit: "bytes")
    var maxMemory = 0

    @Parameter(doc: Self.keepOrientationDoc)
    var keepOrientation = false

    @Parameter(doc: Self.failOnDoc)
    var failOn = FailOn.none

    @Parameter(
        doc: "GIF: the frame to read, counted from 0, as the animation shows it (the frames before it drawn "
            + "under it). Other formats have one image.",
        range: 0...Double(Int32.max))
    var frame = 0

    // The docs of the decoding parameters, which `thumbnail` declares too.
    static let maxPixelsDoc =
        "Refuse an image with more pixels than this, before allocating anything (decompression bombs)."
    static let maxMemoryDoc =
        "Refuse an image whose decoding needs more memory than this at once, before allocating it; 0 sizes the "
        + "limit to the file: 128 MiB, or 1032 bytes for each byte of the file where that is more, at most a "
        + "quarter of the physical memory."
    static let failOnDoc =
        "The damage that fails the read, as libvips' fail_on: none reads past what it can (the rest of a cut "
        + "file transparent black, or gray in a JPEG); truncated fails when the data ends early; error also on "
        + "damaged data (a bad Huffman code, a bad CRC in PNG image data); warning on anything (a bad CRC in an "
        + "ancillary chunk, a bad ICC marker, a GIF without colors). What is read past prints one warning line."
    static let keepOrientationDoc =
        "Keep a JPEG's, PNG's, WebP's or TIFF's pixels as stored instead of turning them upright by their EXIF or TIFF "
        + "orientation (HEIF files are turned by libheif, as their own boxes say)."

    /// The shrinks `load` takes, as words (a choice), so another number is a located error.
    enum Shrink: String, ParameterChoice {
        case one = "1", two = "2", four = "4", eight = "8"

        var factor: Int { Int(rawValue) ?? 1 }
    }

    @Parameter(
        doc: "Load at 1/shrink of the size, each side rounded up (ceil(width / shrink)): a JPEG decoded at that "
            + "size by libjpeg's DCT scaling (several times faster), any other file decoded whole and averaged "
            + "over shrink x shrink blocks (the last blocks over the pixels they have), so the size does not "
            + "depend on the file type. The orientation applies after the shrink. Unset, a JPEG that only "
            + "resizes shrink 32 times or more is decoded smaller for them, its size unchanged (shrink-on-load); "
            + "1 always decodes it whole.")
    var shrink: Shrink? = nil

    func run() throws -> NodeOutputs {
        let file = path.resolved
        let (info, image) = try ImageFile.load(path: file, options: decodeOptions(shrink: shrink?.factor ?? 1))
        guard shrink == nil, info.format == .jpeg else { return NodeOutputs(.image(image)) }
        // The run may read it smaller (shrink-on-load): offer the DCT-scaled decodes.
        let options = decodeOptions(shrink: 1)
        let source = ShrinkableSource(full: image, shrinks: [2, 4, 8]) { factor in
            var scaled = options
            scaled.shrink = factor
            let (info, smaller) = try ImageFile.load(path: file, options: scaled)
            return SmallerDecode(image: smaller, shrink: factor, part: info.content)
        }
        return NodeOutputs(.image(image.withSource(source)))
    }

    /// The decoding the limits and orientation parameters ask for, at `shrink`.
    func decodeOptions(shrink: Int) -> DecodeOptions {
        var options = DecodeOptions(
            maxPixels: maxPixels, maxMemory: maxMemory, appliesOrientation: !keepOrientation, shrink: shrink,
            failOn: failOn)
        options.frame = frame
        return options
    }
}
