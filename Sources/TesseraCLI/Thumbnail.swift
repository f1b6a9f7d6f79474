import ArgumentParser
import Foundation
import Tessera

struct Thumbnail: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Make a thumbnail: fit an image inside a box, keeping its aspect ratio, as vips thumbnail.",
        discussion: """
            --size 320 fits the image inside 320x320, --size 320x200 inside 320x200, --size 320x or x200 \
            bounds one side only. The image is turned upright by its EXIF orientation first, and by default \
            only ever shrunk. A JPEG is decoded at 1/2, 1/4 or 1/8 of its size first (shrink-on-load), as \
            vips does, then resized by the resize node's kernels: this runs the thumbnail node. The output's \
            extension names its format; the file appears complete or not at all.
            """)

    @Argument(help: FormatHelp.input)
    var input: String

    @Argument(help: FormatHelp.output)
    var output: String

    @Option(
        help: ArgumentHelp(
            "The box to fit in: N (N x N), WxH, Wx (the width only) or xH (the height only), each from 1 to "
                + "\(Self.largestSide); vipsthumbnail's > (only shrink), < (only enlarge) or ! (exactly the box) "
                + "may follow.", valueName: "size"))
    var size: String

    @Option(
        help: ArgumentHelp(
            "When to scale: down only shrinks, both also enlarges, up only enlarges, force makes exactly the box "
                + "(aspect ratio not kept). \(Self.choices("fit"))", valueName: "fit"))
    var fit: String?

    @Option(help: ArgumentHelp("The resize filter. \(Self.choices("interpolation"))", valueName: "filter"))
    var interpolation: String?

    @Flag(
        inversion: .prefixedNo,
        help: ArgumentHelp(
            "Decode at 1/2, 1/4 or 1/8 of the size first (a JPEG by DCT scaling, a WebP by libwebp's scaling, "
                + "others by block averages), when the thumbnail is at least twice smaller again."))
    var shrinkOnLoad = true

    @OptionGroup var encoding: EncodeArguments

    @OptionGroup var decoding: DecodeArguments

    /// The box `--size` gives, and the fit its suffix asks for.
    struct Box: Equatable {
        var width: Int?
        var height: Int?
        var fit: String?
    }

    /// The largest side of a box, as the node's `width` and `height` declare it.
    static let largestSide = 1_000_000

    /// `N`, `WxH`, `Wx` or `xH`, each side 1...``largestSide``, then `>`, `<` or `!` (vipsthumbnail's
    /// `--size`); nil for anything else.
    static func box(_ text: String) -> Box? {
        var body = Substring(text.lowercased())
        let suffixes: [Character: String] = [">": "down", "<": "up", "!": "force"]
        let fit = body.last.flatMap { suffixes[$0] }
        if fit != nil { body = body.dropLast() }
        func side(_ part: Substring) -> Int? {
            guard let value = Int(part), (1...largestSide).contains(value) else { return nil }
            return value
        }
        let parts = body.split(separator: "x", maxSplits: 1, omittingEmptySubsequences: false)
        if parts.count == 1 { return side(parts[0]).map { Box(width: $0, height: $0, fit: fit) } }
        let (width, height) = (side(parts[0]), side(parts[1]))
        guard width != nil || parts[0].isEmpty, height != nil || parts[1].isEmpty, width != nil || height != nil
        else { return nil }
        return Box(width: width, height: height, fit: fit)
    }

    /// The built-in nodes, read once: the help, the checks and the run all ask (building a catalog
    /// reflects every node's declaration, a few milliseconds each time).
    static let catalog = Catalog.builtin()

    /// The words the thumbnail node's choice parameter `name` takes, from its declaration.
    static func words(_ name: String) -> [String] {
        let parameter = catalog.declaration(op: "thumbnail")?.parameters.first { $0.name == name }
        guard case .choice(let words)? = parameter?.type else { return [] }
        return words
    }

    /// `name`'s words and default, for the help: "One of down, both, up, force (default: down).".
    static func choices(_ name: String) -> String {
        let parameter = catalog.declaration(op: "thumbnail")?.parameters.first { $0.name == name }
        let value = parameter?.defaultValue.map { " (default: \($0.text))" } ?? ""
        return "One of \(words(name).joined(separator: ", "))\(value)."
    }

    func validate() throws {
        guard let box = Self.box(size) else {
            throw ValidationError(
                "--size must be N, WxH, Wx or xH, each from 1 to \(Self.largestSide), and may end in >, < or !; "
                    + "not '\(size)'")
        }
        for (option, value) in [("fit", fit), ("interpolation", interpolation)] {
            let words = Self.words(option)
            if let value, !words.contains(value) {
                throw ValidationError("--\(option) must be one of \(words.joined(separator: ", ")), not '\(value)'")
            }
        }
        if let fit, let implied = box.fit, fit != implied {
            throw ValidationError("--size '\(size)' asks for fit \(implied), --fit for \(fit): give one")
        }
    }

    func run() throws {
        let written = try encoding.written(output)
        let box = Self.box(size) ?? Box()
        // The thumbnail node reads the first frame: it has load's other decoding parameters.
        var thumbnail = decoding.loadParameters(path: input)
        thumbnail["frame"] = nil
        thumbnail["shrinkOnLoad"] = .bool(shrinkOnLoad)
        if let fit = fit ?? box.fit { thumbnail["fit"] = .string(fit) }
        if let interpolation { thumbnail["interpolation"] = .string(interpolation) }
        if let width = box.width, box.width == box.height, !size.lowercased().contains("x") {
            thumbnail["size"] = .integer(width)
        } else {
            if let width = box.width { thumbnail["width"] = .integer(width) }
            if let height = box.height { thumbnail["height"] = .integer(height) }
        }
        try runSaving(
            ("thumbnail", "thumbnail", thumbnail), to: written.path, saveParameters: written.saveParameters,
            overrides: written.overrides)
    }
}

/// Runs a command's two-node graph, `source` (its name, op and parameters) saved to `output` with
/// `saveParameters`, through the engine as any graph runs: tiles on the workers, and the PNG writer's
/// compression too. A graph error is reported as the graph's diagnostics (status 2); a run error as the
/// one line naming the file.
func runSaving(
    _ source: (name: String, op: String, parameters: [String: Literal]), to output: String,
    saveParameters: [String: Literal], overrides: [ParameterOverride] = []
) throws {
    var builder = GraphBuilder()
    builder.add(source.name, op: source.op, source.parameters)
    builder.add(
        "save", op: "save", saveParameters.merging(["input": .string(source.name), "path": .string(output)]) { $1 })
    let graph: Graph
    do {
        // No base folder: paths stay as written, so messages name the files as the user did.
        graph = try builder.build(catalog: Thumbnail.catalog, baseFolder: "", overrides: overrides)
    } catch {
        report(error.diagnostics)
        throw ExitCode(2)
    }
    do {
        try graph.run()
    } catch {
        throw ImageError(message: error.message)
    }
}
