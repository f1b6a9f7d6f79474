import ArgumentParser
import Foundation
import Tessera

/// Options every command that writes an image shares (`convert`, `thumbnail`): the `save` node's.
struct EncodeArguments: ParsableArguments {
    @Option(help: "Sample depth to write: 8, 16 or float (TIFF only). Default: the input's.")
    var depth: String?

    @Option(help: ArgumentHelp(FormatHelp.save("quality")))
    var quality: Int?

    @Option(help: ArgumentHelp(FormatHelp.save("tile"), valueName: "side"))
    var tile: Int?

    @Option(help: ArgumentHelp(FormatHelp.save("compression")))
    var compression: String?

    @Flag(help: ArgumentHelp(FormatHelp.save("progressive")))
    var progressive = false

    @Flag(help: ArgumentHelp(FormatHelp.save("lossless")))
    var lossless = false

    @Option(
        help: ArgumentHelp(
            "JPEG: the color an image with alpha is laid over, as red,green,blue in 0...1 (default white).",
            valueName: "r,g,b"))
    var background: String?

    @Option(
        help: ArgumentHelp(
            "The ICC profile: keep embeds the input's, srgb converts the pixels to sRGB and embeds sRGB's, none "
                + "writes none.", valueName: "keep|srgb|none"))
    var profile: EncodeOptions.ProfilePolicy = .keep

    @Option(
        help: ArgumentHelp(
            "EXIF and XMP (camera, date, place, copyright): keep or strip.", valueName: "keep|strip"))
    var metadata: EncodeOptions.MetadataPolicy = .keep

    @Option(
        help: ArgumentHelp(
            "The print resolution, in dots per inch: PNG pHYs, JPEG JFIF density, TIFF XResolution and YResolution, "
                + "and the EXIF's where it gives one. Default: none added (an EXIF resolution is kept).",
            valueName: "dpi"))
    var dpi: Double?

    func validate() throws {
        if let depth, Self.depths[depth] == nil {
            throw ValidationError("--depth must be 8, 16 or float, not '\(depth)'")
        }
        if let background, Self.color(background) == nil {
            throw ValidationError("--background must be red,green,blue in 0...1 (as 1,1,1), not '\(background)'")
        }
    }

    /// "r,g,b" with each in 0...1.
    static func color(_ text: String) -> SIMD3<Double>? {
        let parts = text.split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard parts.count == 3, parts.allSatisfy({ (0...1).contains($0) }) else { return nil }
        return SIMD3(parts)
    }

    static let depths: [String: SampleDepth] = ["8": .uint8, "16": .uint16, "float": .float32, "32": .float32]

    /// What a command writing `output` saves: the file (`output` without its options in brackets, as
    /// vips takes them: `out.jpg[Q=82,strip]`), its format, the `save` node's parameters these options
    /// give for it, and the brackets' settings over them. A mistake in the brackets is one line naming
    /// the file (status 2); an option the format refuses, a run error naming it.
    func written(_ output: String) throws -> (
        path: String, format: ImageFormat, saveParameters: [String: Literal], overrides: [ParameterOverride]
    ) {
        let written: OutputOptions
        do {
            let parameters = Thumbnail.catalog.declaration(op: "save")?.parameters.map(\.name) ?? []
            written = try OutputOptions(parsing: output, parameters: parameters)
        } catch {
            StandardError.line("error: \(error)")
            throw ExitCode(2)
        }
        let format = try ImageFormat.forWriting(path: written.path)
        if let problem = try options(for: written.path).problems(for: format, imageDepth: nil).first {
            throw ImageError(path: written.path, message: problem.message)
        }
        let overrides = written.settings.map {
            ParameterOverride(node: "save", parameter: $0.name, value: $0.value, origin: written.path)
        }
        return (written.path, format, saveParameters(for: format), overrides)
    }

    /// The encoder options for writing `output`. Options its format does not take are ignored, except a
    /// compression, which is an error naming the file.
    func options(for output: String) throws -> EncodeOptions {
        var options = EncodeOptions()
        options.depth = depth.flatMap { Self.depths[$0] }
        options.quality = quality
        options.tileSize = tile
        options.progressive = progressive
        options.lossless = lossless
        options.profile = profile
        options.metadata = metadata
        options.dpi = dpi
        if let background { options.background = Self.color(background) ?? options.background }
        if let compression {
            let format = try ImageFormat.forWriting(path: output)
            do {
                try options.setCompression(compression, for: format)
            } catch var error as ImageError {
                error.path = output
                throw error
            }
        }
        return options
    }

    /// The same options as the parameters of a `save` node writing `format`: those the format takes
    /// (the node refuses the others; `convert` ignores them, and so does a command built on the node).
    func saveParameters(for format: ImageFormat) -> [String: Literal] {
        var parameters: [String: Literal] = [:]
        if let depth { parameters["depth"] = .string(Self.depths[depth] == .float32 ? "float" : depth) }
        if [.jpeg, .tiff, .webp, .heic, .avif].contains(format), let quality {
            parameters["quality"] = .integer(quality)
        }
        if format == .png || format == .tiff, let compression { parameters["compression"] = .string(compression) }
        if format == .tiff, let tile { parameters["tile"] = .integer(tile) }
        if format == .jpeg, progressive { parameters["progressive"] = .bool(true) }
        if format == .webp, lossless { parameters["lossless"] = .bool(true) }
        if profile != .keep { parameters["profile"] = .string(profile.rawValue) }
        if metadata != .keep { parameters["metadata"] = .string(metadata.rawValue) }
        if let dpi { parameters["dpi"] = .number(dpi) }
        if format == .jpeg, let color = background.flatMap(Self.color) {
            parameters["background"] = .list([color.x, color.y, color.z].map(Literal.number))
        }
        return parameters
    }
}

extension EncodeOptions.ProfilePolicy: ExpressibleByArgument {}
extension EncodeOptions.MetadataPolicy: ExpressibleByArgument {}
