import Foundation
import TesseraCore
import TesseraIO

/// `save`: writes an image file, with the same options as `tessera convert`, or any other value as JSON
/// (contours also as SVG), through ``ValueFile``; each value kind's JSON has a schema in `Docs/schemas/`.
///
/// Which options a file takes depends on its format, and the format on the path's extension and on what
/// the input carries; `tessera validate` checks all of it, with no pixels, and reports every problem.
struct Save: Node {
    static let info = NodeInfo(
        op: "save",
        summary:
            "Writes an image as PNG, TIFF, JPEG, WebP, HEIC or AVIF, or any other value (boxes, numbers, contours) as JSON, "
            + "contours also as SVG (the path's extension names the format), atomically.",
        access: .sink,
        outputs: [],
        example: """
            photo: { op: load, path: photo.png }
            archive: { op: save, input: photo, path: photo.tif, depth: 16, compression: deflate, tile: 256 }
            heat: { op: saliency, input: photo }
            boxes: { op: save, input: heat.boxes, path: boxes.json }
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

    @Input(doc: "The image to write, or any other value (to .json; contours also to .svg).")
    var input: NodeValue

    @Parameter(
        doc: "The file to write: .png, .tif, .tiff, .jpg, .jpeg, .webp, .heic or .avif for images, .json for other "
            + "values, .svg for contours; relative to the graph file's folder.")
    var path: OutputPath

    @Parameter(doc: "Sample depth: 8, 16 or float (TIFF only); auto keeps the input's, as far as the format allows.")
    var depth = Depth.auto

    @Parameter(
        doc:
            "JPEG, lossy WebP, HEIC and AVIF quality, also for JPEG-compressed TIFF; unset: 75, and 50 for HEIC "
            + "and AVIF, as libvips.", range: 1...100, suggested: 50...95)
    var quality: Int? = nil

    @Parameter(doc: "PNG: a zlib level 0 to 9 (auto: 3). TIFF: none, lzw, deflate, packbits or jpeg (auto: none).")
    var compression = Compression.auto

    @Parameter(
        doc: "Write a tiled TIFF with square tiles of this side, a multiple of 16; 0 writes strips. A tile larger "
            + "than the image is cut to the image's longer side, rounded up to 16.",
        range: 0...Double(EncodeOptions.largestTile), unit: "px")
    var tile = 0

    @Parameter(doc: "Write a progressive JPEG.")
    var progressive = false

    @Parameter(
        doc: "WebP: lossless (exact: the colors under transparent pixels are kept too) instead of lossy at quality.")
    var lossless = false

    @Parameter(
        doc: "JPEG: the color transparent pixels are laid over (red, green, blue in 0...1), as viewers show "
            + "transparency; JPEG has no alpha. PNG and TIFF keep alpha.",
        range: 0...1)
    var background = [1.0, 1, 1]

    @Parameter(
        doc: "The image's ICC profile (from the file it was loaded from): keep embeds it in every format, "
            + "where it fits the pixels (an RGB profile is not written with gray pixels); srgb converts the "
            + "pixels to sRGB (as colorSpace does) and embeds sRGB's profile; none writes no profile, and "
            + "viewers take the pixels as sRGB.")
    var profile = EncodeOptions.ProfilePolicy.keep

    @Parameter(
        doc: "The image's EXIF and XMP (camera, date, place, copyright): keep writes them (EXIF in PNG and "
            + "JPEG, WebP, HEIC and AVIF, XMP in all of them), EXIF's pixel dimensions set to the image's and its orientation 1 where "
            + "load turned the pixels upright; strip writes neither.")
    var metadata = EncodeOptions.MetadataPolicy.keep

    @Parameter(
        doc: "The print resolution (600: a 827x1063 photo prints at 35x45 mm), written as PNG's pHYs chunk, JPEG's "
            + "JFIF density and TIFF's XResolution and YResolution, and into the image's EXIF where it gives one; "
            + "WebP, HEIC and AVIF have no field of their own. Unset: none is added; a resolution the image's EXIF "
            + "gives is kept with it (metadata).",
        range: EncodeOptions.dpiRange, suggested: 72...1200, unit: "dpi")
    var dpi: Double? = nil

    @Parameter(doc: "SVG: the contours' stroke color, red, green, blue and alpha in 0...1.", range: 0...1)
    var stroke = [0.0, 0, 0, 1]

    @Parameter(doc: "SVG: the contours' stroke width in image pixels.", range: 0...1000, suggested: 0.5...8, unit: "px")
    var strokeWidth = 1.0

    @Parameter(doc: "SVG: color each contour by its depth in the hierarchy (a fixed palette) instead of stroke.")
    var colorByDepth = false

    /// The formats each option applies to, by the path's extension (as ``Save/format(of:)`` names them).
    static let optionFormats: [String: Set<String>] = [
        "depth": ["png", "tiff", "jpeg", "webp", "heic", "avif"],
        "dpi": ["png", "tiff", "jpeg", "webp", "heic", "avif"],
        "quality": ["jpeg", "tiff", "webp", "heic", "avif"],
        "compression": ["png", "tiff"], "tile": ["tiff"], "progressive": ["jpeg"], "background": ["jpeg"],
        "lossless": ["webp"],
        "stroke": ["svg"], "strokeWidth": ["svg"], "colorByDepth": ["svg"],
    ]

    /// What the file at `path` is, for ``optionFormats``: an image format's name, `json` or `svg`, or nil.
    /// The order formats are named in messages.
    static let formatOrder = ["png", "jpeg", "tiff", "webp", "heic", "avif", "json", "svg"]

    static func format(of path: String) -> String? {
        if let image = try? ImageFormat.forWriting(path: path) { return image.rawValue }
        return ValueFile.Format(path: path)?.rawValue
    }

    func validate(in context: ValidationContext) -> [NodeProblem] {
        // Unconnected (a node checked on its own), the input's type is unknown: the path decides.
        if let problem = pathProblem(for: context.inputTypes["input"]) { return [problem] }
        guard let format = Self.format(of: path.resolved) else {
            return [
                NodeProblem(
                    parameter: "path",
                    "cannot tell the format from the name: use .png, .tif, .jpg, .webp, .heic, .avif, .json or .svg")
            ]
        }
        let written = (path.resolved as NSString).pathExtension.lowercased()
        var problems: [NodeProblem] = []
        for name in context.setParameters.sorted() {
            guard let formats = Self.optionFormats[name], !formats.contains(format) else { continue }
            let names = Self.formatOrder.filter(formats.contains).map {
                ImageFormat(rawValue: $0)?.description ?? $0.uppercased()
            }
            let takes =
                names.count < 2
                ? names.joined() : names.dropLast().joined(separator: ", ") + " and " + names[names.count - 1]
            problems.append(NodeProblem(parameter: name, "for \(takes) files only; .\(written) files do not take it"))
        }
        if ValueFile.Format(rawValue: format) == nil { problems += encoder(imageDepth: nil).problems }
        return problems
    }

    func run() throws -> NodeOutputs {
        if let problem = pathProblem(for: input.type) { throw problem }
        switch input {
        case .image(let image):
            let options = try encoding(imageDepth: image.depth)
            try ImageFile.save(image, to: path.resolved, options: options)
        default:
            var style = ValueFile.Style()
            style.stroke = SIMD4(stroke)
            style.strokeWidth = strokeWidth
            style.colorByDepth = colorByDepth
            try ValueFile.save(input, to: path.resolved, style: style)
        }
        return .none
    }

    /// Why a value of `type` cannot be written to ``path``, or nil; with no type, any file the path names
    /// will do.
    private func pathProblem(for type: PortType?) -> NodeProblem? {
        guard let type else { return nil }
        let file = path.resolved
        guard type == .image else {
            return ValueFile.problem(writing: type, to: file).map { NodeProblem(parameter: "path", $0) }
        }
        if let value = ValueFile.Format(path: file) {
            return NodeProblem(
                parameter: "path",
                "an image cannot be written as .\(value.rawValue); use .png, .tif, .jpg, .webp, .heic or .avif")
        }
        do {
            _ = try ImageFormat.forWriting(path: file)
            return nil
        } catch {
            return NodeProblem(parameter: "path", (error as? ImageError)?.message ?? "\(error)")
        }
    }

    /// The encoder options the parameters ask for, or the first problem with them.
    private func encoding(imageDepth: SampleDepth?) throws(NodeProblem) -> EncodeOptions {
        let (options, problems) = encoder(imageDepth: imageDepth)
        if let problem = problems.first { throw problem }
        return options
    }

    /// The encoder options for an image file, and every problem with them.
    private func encoder(imageDepth: SampleDepth?) -> (options: EncodeOptions, problems: [NodeProblem]) {
        var options = EncodeOptions()
        guard let format = try? ImageFormat.forWriting(path: path.resolved) else {
            return (options, [NodeProblem(parameter: "path", "not an image file")])
        }
        var problems: [NodeProblem] = []
        switch depth {
        case .auto: options.depth = nil
        case .eight: options.depth = .uint8
        case .sixteen: options.depth = .uint16
        case .float: options.depth = .float32
        }
        options.quality = quality
        options.tileSize = tile == 0 ? nil : tile
        options.progressive = progressive
        options.lossless = lossless
        options.background = SIMD3(background)
        options.profile = profile
        options.metadata = metadata
        options.dpi = dpi
        if compression != .auto {
            do {
                try options.setCompression(compression.rawValue, for: format)
            } catch {
                problems.append(NodeProblem(parameter: "compression", (error as? ImageError)?.message ?? "\(error)"))
            }
        }
        let names: [EncodeOptions.Option: String] = [
            .depth: "depth", .quality: "quality", .tileSize: "tile", .compression: "compression", .dpi: "dpi",
        ]
        for problem in options.problems(for: format, imageDepth: imageDepth) {
            problems.append(NodeProblem(parameter: names[problem.option] ?? "path", problem.message))
        }
        return (options, problems)
    }
}

extension EncodeOptions.ProfilePolicy: ParameterChoice {}
extension EncodeOptions.MetadataPolicy: ParameterChoice {}
