import ArgumentParser
import Tessera

@main
struct TesseraCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tessera",
        abstract: "An image filter graph engine: run graphs of image nodes, check them, and convert images.",
        version: TesseraVersion.string,
        subcommands: [Run.self, Validate.self, Dot.self, Nodes.self, Schema.self, Info.self, Convert.self])

    static func main() {
        FileSystem.removeTemporaryFilesOnInterrupt()
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch {
            exit(withError: error)
        }
    }
}

/// Options every command that decodes images shares.
struct DecodeArguments: ParsableArguments {
    @Option(help: "Refuse images whose header claims more pixels than this, before allocating any.")
    var maxPixels: Int = DecodeOptions().maxPixels

    @Flag(help: "Keep a JPEG's stored orientation instead of turning it upright by its EXIF tag.")
    var keepOrientation = false

    var options: DecodeOptions {
        DecodeOptions(maxPixels: maxPixels, appliesOrientation: !keepOrientation)
    }

    func validate() throws {
        guard maxPixels > 0 else { throw ValidationError("--max-pixels must be positive") }
    }
}
