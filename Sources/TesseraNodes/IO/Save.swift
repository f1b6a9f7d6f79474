import TesseraCore
import TesseraIO

/// `save`: writes an image file, with the same options as `tessera convert`.
struct Save: Node {
    static let info = NodeInfo(
        op: "save",
        summary: "Writes an image as PNG, TIFF or JPEG (the path's extension names the format), atomically.",
        access: .sink,
        outputs: [],
        example: """
            photo: { op: load, path: photo.png }
            archive: { op: save, input: photo, path: photo.tif, depth: 16, compression: deflate, tile: 256 }
            """)

    enum Depth: String, ParameterChoice {
        case auto
        case eight = "8"
        case sixteen = "16"
        case float
    }

    enum Compression: String, ParameterChoice {
        case auto, none, lzw, deflate, packbits, jpeg
        case level0 = "0", level1 = "1", level2 = "2", level3 = "3", level4 = "4"
        case level5 = "5", level6 = "6", level7 = "7", level8 = "8", level9 = "9"
    }

    @Input(doc: "The image to write.")
    var input: Image

    @Parameter(doc: "The file to write: .png, .tif, .tiff, .jpg or .jpeg; relative to the graph file's folder.")
    var path: OutputPath

    @Parameter(doc: "Sample depth: 8, 16 or float (TIFF only); auto keeps the input's, as far as the format allows.")
    var depth = Depth.auto

    @Parameter(doc: "JPEG quality, also for JPEG-compressed TIFF.", range: 1...100, suggested: 50...95)
    var quality = EncodeOptions().quality

    @Parameter(doc: "PNG: a zlib level 0 to 9 (auto: 6). TIFF: none, lzw, deflate, packbits or jpeg (auto: none).")
    var compression = Compression.auto

    @Parameter(
        doc: "Write a tiled TIFF with square tiles of this side, a multiple of 16; 0 writes strips.",
        range: 0...65536, unit: "px")
    var tile = 0

    @Parameter(doc: "Write a progressive JPEG.")
    var progressive = false

    func validate() throws(NodeProblem) {
        _ = try encoding(imageDepth: nil)
    }

    func run() throws -> NodeOutputs {
        let options = try encoding(imageDepth: input.depth)
        try ImageFile.save(input, to: path.resolved, options: options)
        return .none
    }

    /// The format and encoder options the parameters ask for, or the first problem with them.
    private func encoding(imageDepth: SampleDepth?) throws(NodeProblem) -> EncodeOptions {
        let format: ImageFormat
        do {
            format = try ImageFormat.forWriting(path: path.resolved)
        } catch {
            throw NodeProblem(parameter: "path", (error as? ImageError)?.message ?? "\(error)")
        }
        var options = EncodeOptions()
        switch depth {
        case .auto: options.depth = nil
        case .eight: options.depth = .uint8
        case .sixteen: options.depth = .uint16
        case .float: options.depth = .float32
        }
        options.quality = quality
        options.tileSize = tile == 0 ? nil : tile
        options.progressive = progressive
        if compression != .auto {
            do {
                try options.setCompression(compression.rawValue, for: format)
            } catch {
                throw NodeProblem(parameter: "compression", (error as? ImageError)?.message ?? "\(error)")
            }
        }
        if let problem = options.problems(for: format, imageDepth: imageDepth).first {
            let names: [EncodeOptions.Option: String] = [
                .depth: "depth", .quality: "quality", .tileSize: "tile", .compression: "compression",
            ]
            throw NodeProblem(parameter: names[problem.option] ?? "path", problem.message)
        }
        return options
    }
}
