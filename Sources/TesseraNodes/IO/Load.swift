import TesseraCore
import TesseraIO

/// `load`: reads an image file. The header is read when the node runs; pixels are decoded as regions
/// of them are asked for.
struct Load: Node {
    static let info = NodeInfo(
        op: "load",
        summary: "Reads a PNG, TIFF or JPEG image; the format is recognized from the file's content.",
        access: .source,
        outputs: [.init("output", .image, doc: "The image, with samples scaled to 0...1.")],
        example: """
            photo: { op: load, path: photo.jpg }
            copy: { op: save, input: photo, path: photo.png }
            """)

    @Parameter(doc: "The image file to read; a relative path is relative to the graph file's folder.")
    var path: FilePath

    @Parameter(
        doc: "Refuse an image with more pixels than this, before allocating anything (decompression bombs).",
        range: 1...Double.infinity, unit: "pixels")
    var maxPixels = DecodeOptions().maxPixels

    @Parameter(
        doc:
            "Refuse an image whose decoding needs more memory than this at once, before allocating it; 0 takes the default, a quarter of the physical memory.",
        range: 0...Double.infinity, unit: "bytes")
    var maxMemory = 0

    @Parameter(doc: "Keep a JPEG's pixels as stored instead of turning them upright by their EXIF orientation.")
    var keepOrientation = false

    func run() throws -> NodeOutputs {
        let options = DecodeOptions(maxPixels: maxPixels, maxMemory: maxMemory, appliesOrientation: !keepOrientation)
        let (_, image) = try ImageFile.load(path: path.resolved, options: options)
        return NodeOutputs(.image(image))
    }
}
