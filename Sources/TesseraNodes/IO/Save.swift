import TesseraCore
import TesseraIO

/// `save`: writes an image file, with the same options as `tessera convert`, or contours as SVG or JSON
/// (``ContourFile``; the JSON is described in the README).
struct Save: Node {
    static let info = NodeInfo(
        op: "save",
        summary:
            "Writes an image as PNG, TIFF or JPEG, or contours as SVG or JSON (the path's extension names the "
            + "format), atomically.",
        access: .sink,
        outputs: [],
        example: """
            photo: { op: load, path: photo.png }
            archive: { op: save, input: photo, path: photo.tif, depth: 16, compression: deflate, tile: 256 }
            edges: { op: detectContours, input: photo }
            drawing: { op: save, input: edges, path: edges.svg, strokeWidth: 2, colorByDepth: true }
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

    @Input(doc: "The image to write, or contours (to .svg or .json).")
    var input: SavableValue

    @Parameter(
        doc: "The file to write: .png, .tif, .tiff, .jpg or .jpeg for images, .svg or .json for contours; "
            + "relative to the graph file's folder.")
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

    @Parameter(doc: "SVG: the contours' stroke color, red, green, blue and alpha in 0...1.", range: 0...1)
    var stroke = [0.0, 0, 0, 1]

    @Parameter(doc: "SVG: the contours' stroke width in image pixels.", range: 0...1000, suggested: 0.5...8, unit: "px")
    var strokeWidth = 1.0

    @Parameter(doc: "SVG: color each contour by its depth in the hierarchy (a fixed palette) instead of stroke.")
    var colorByDepth = false

    func validate() throws(NodeProblem) {
        if ContourFile.Format(path: path.resolved) != nil {
            let imageOptions = [
                ("depth", depth != .auto), ("quality", quality != EncodeOptions().quality),
                ("compression", compression != .auto), ("tile", tile != 0), ("progressive", progressive),
            ]
            if let (name, _) = imageOptions.first(where: \.1) {
                throw NodeProblem(parameter: name, "is an image option; contours (.svg, .json) do not take it")
            }
            return
        }
        _ = try encoding(imageDepth: nil)
    }

    func run() throws -> NodeOutputs {
        let format = ContourFile.Format(path: path.resolved)
        switch input {
        case .image(let image):
            guard format == nil else {
                throw NodeProblem(
                    parameter: "path",
                    "an image cannot be written as .\(format?.rawValue ?? ""); use .png, .tif or .jpg")
            }
            let options = try encoding(imageDepth: image.depth)
            try ImageFile.save(image, to: path.resolved, options: options)
        case .contours(let contours):
            guard format != nil else {
                throw NodeProblem(parameter: "path", "contours are written as .svg or .json")
            }
            var style = ContourFile.Style()
            style.stroke = SIMD4(stroke)
            style.strokeWidth = strokeWidth
            style.colorByDepth = colorByDepth
            try ContourFile.save(contours, to: path.resolved, style: style)
        }
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
