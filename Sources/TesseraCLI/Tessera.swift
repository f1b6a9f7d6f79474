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

    @Option(
        help: ArgumentHelp(
            "Refuse images whose decoding needs more memory than this at once, before allocating any: bytes, "
                + "or with K, M, G (binary). Default: a quarter of the physical memory.", valueName: "bytes"))
    var maxMemory: String?

    @Flag(help: "Keep a JPEG's stored orientation instead of turning it upright by its EXIF tag.")
    var keepOrientation = false

    var options: DecodeOptions {
        DecodeOptions(
            maxPixels: maxPixels, maxMemory: maxMemory.flatMap(DecodeOptions.parseBytes),
            appliesOrientation: !keepOrientation)
    }

    func validate() throws {
        guard maxPixels > 0 else { throw ValidationError("--max-pixels must be positive") }
        if let maxMemory, DecodeOptions.parseBytes(maxMemory) == nil {
            throw ValidationError("--max-memory must be a positive number of bytes, as 2G or 512M, not '\(maxMemory)'")
        }
    }
}
