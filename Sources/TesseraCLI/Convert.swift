import ArgumentParser
import Foundation
import Tessera

struct Convert: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Convert an image to \(FormatHelp.written) (the output's extension names the format).",
        discussion: """
            The input format is recognized from the file's content. Sample depth is kept unless --depth says \
            otherwise (16-bit stays 16-bit; JPEG is always 8-bit). The output appears complete or not at all.
            """)

    @Argument(help: FormatHelp.input)
    var input: String

    @Argument(help: FormatHelp.output)
    var output: String

    @OptionGroup var encoding: EncodeArguments

    @OptionGroup var decoding: DecodeArguments

    func run() throws {
        let written = try encoding.written(output)
        try runSaving(
            ("load", "load", decoding.loadParameters(path: input)), to: written.path,
            saveParameters: written.saveParameters, overrides: written.overrides)
    }
}
