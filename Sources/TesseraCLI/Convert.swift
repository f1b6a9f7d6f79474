import ArgumentParser
import Foundation
import Tessera

struct Convert: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Convert an image to PNG, TIFF or JPEG (the output's extension names the format).",
        discussion: """
            The input format is recognized from the file's content. Sample depth is kept unless --depth says \
            otherwise (16-bit stays 16-bit; JPEG is always 8-bit). The output appears complete or not at all.
            """)

    @Argument(help: "The image to read (PNG, TIFF or JPEG).")
    var input: String

    @Argument(help: "The file to write: .png, .tif, .tiff, .jpg or .jpeg.")
    var output: String

    @Option(help: "Sample depth to write: 8, 16 or float (TIFF only). Default: the input's.")
    var depth: String?

    @Option(help: "JPEG quality (and quality of JPEG-compressed TIFF), 1 to 100.")
    var quality: Int = EncodeOptions().quality

    @Option(help: "Write a tiled TIFF with tiles of this side (a multiple of 16). Default: strips.")
    var tile: Int?

    @Option(help: "PNG: zlib level 0-9 (default 6). TIFF: none, lzw, deflate, packbits or jpeg (default none).")
    var compression: String?

    @Flag(help: "Write a progressive JPEG.")
    var progressive = false

    @Option(
        help: ArgumentHelp(
            "JPEG: the color an image with alpha is laid over, as red,green,blue in 0...1 (default white).",
            valueName: "r,g,b"))
    var background: String?

    @OptionGroup var decoding: DecodeArguments

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

    func run() throws {
        var options = EncodeOptions()
        options.depth = depth.flatMap { Self.depths[$0] }
        options.quality = quality
        options.tileSize = tile
        options.progressive = progressive
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
        let (_, image) = try ImageFile.load(path: input, options: decoding.options)
        try ImageFile.save(image, to: output, options: options)
    }
}
