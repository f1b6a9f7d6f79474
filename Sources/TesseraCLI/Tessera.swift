import ArgumentParser
import Foundation
import Tessera

@main
struct TesseraCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tessera",
        abstract: "An image filter graph engine: run graphs of image nodes, check them, and convert images.",
        version: TesseraVersion.string,
        subcommands: [
            Run.self, ChainCommand.self, BatchCommand.self, Serve.self, Validate.self, Dot.self, Nodes.self,
            Schema.self, Info.self, Convert.self, Thumbnail.self, Verify.self,
        ])

    static func main() {
        StandardOutput.ignoreBrokenPipes()
        // A file over `ulimit -f`: write fails with EFBIG ("File too large"), reported as any write error
        // and its temporary file removed, instead of the signal killing the process mid-write.
        signal(SIGXFSZ, SIG_IGN)
        Signals.removeTemporaryFilesOnInterrupt()
        // Damage a decoder reads past (--fail-on below it): one line per file, on stderr.
        ImageFile.setWarningHandler { warning in
            StandardOutput.flush()
            StandardError.write("Warning: \(warning)\n")
        }
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch {
            StandardOutput.flush()
            switch exitCode(for: error) {
            case .validationFailure:
                usageError(error)
            case .success:
                // --help and --version: printed here, so that a failing stdout is reported.
                let text = fullMessage(for: error)
                if !text.isEmpty { StandardOutput.print(text) }
                Foundation.exit(0)
            default:
                // Printed here, escaped: a message may quote a file name or text from a file.
                if error is GraphErrors {
                    StandardError.report(error)
                } else if !(error is ExitCode), case let text = message(for: error), !text.isEmpty {
                    StandardError.line("Error: " + text)
                }
                Foundation.exit(exitCode(for: error).rawValue)
            }
        }
        StandardOutput.flush()
    }

    /// A mistake on the command line (an unknown option, a missing argument, a value out of range): one
    /// line and where help is, status 2, as for an invalid graph (swift-argument-parser's own is a block
    /// with the usage, status 64).
    static func usageError(_ error: any Error) -> Never {
        let message = message(for: error).split(separator: "\n").first.map(String.init) ?? "invalid arguments"
        let names = configuration.subcommands.map { $0._commandName }
        let command = CommandLine.arguments.dropFirst().first.flatMap { names.contains($0) ? "tessera " + $0 : nil }
        StandardError.write(
            "Error: \(message) (see '\(command ?? "tessera") --help')\n")
        Foundation.exit(2)
    }
}

/// Options every command that decodes images shares.
struct DecodeArguments: ParsableArguments {
    @Option(help: "Refuse images whose header claims more pixels than this, before allocating any.")
    var maxPixels: Int = DecodeOptions().maxPixels

    @Option(
        help: ArgumentHelp(
            "Refuse images whose decoding needs more memory than this at once, before allocating any: bytes, "
                + "or with K, M, G (binary). Default: sized to the file, 128M or 1032 bytes a byte of it, at most "
                + "a quarter of the physical memory.", valueName: "bytes"))
    var maxMemory: String?

    @Option(help: ArgumentHelp(failOnHelp, valueName: "level"))
    var failOn: FailOn = .none

    @Flag(help: "Keep a JPEG's, PNG's, WebP's or TIFF's stored orientation instead of turning it upright by its tag.")
    var keepOrientation = false

    @Option(help: "GIF: the frame to read, counted from 0, as the animation shows it.")
    var frame = 0

    var options: DecodeOptions {
        var options = DecodeOptions(
            maxPixels: maxPixels, maxMemory: maxMemory.flatMap(DecodeOptions.parseBytes),
            appliesOrientation: !keepOrientation, failOn: failOn)
        options.frame = frame
        return options
    }

    /// The `load` node's parameters for `path` read with these options.
    func loadParameters(path: String) -> [String: Literal] {
        [
            "path": .string(path), "maxPixels": .integer(maxPixels),
            "maxMemory": .integer(maxMemory.flatMap(DecodeOptions.parseBytes) ?? 0),
            "keepOrientation": .bool(keepOrientation), "failOn": .string(failOn.rawValue), "frame": .integer(frame),
        ]
    }

    func validate() throws {
        guard maxPixels > 0 else { throw ValidationError("--max-pixels must be positive") }
        guard frame >= 0 else { throw ValidationError("--frame counts from 0") }
        try checkBytes("--max-memory", maxMemory)
    }
}

/// The help of `--fail-on`, for every command that decodes.
let failOnHelp =
    "The damage that fails a read (none, truncated, error, warning, as libvips' fail_on). none (the default) "
    + "reads past what it can, with one warning line per file: a cut file's rest transparent black (gray in a "
    + "JPEG), a bad Huffman code, a bad CRC, a GIF without colors. truncated fails when the data ends early; "
    + "error also on damaged data; warning on anything a decoder notices."

extension FailOn: ExpressibleByArgument {}

/// Refuses a size option (`--max-memory 2G`) that is not a positive number of bytes, with or without K, M, G.
func checkBytes(_ option: String, _ value: String?) throws {
    if let value, DecodeOptions.parseBytes(value) == nil {
        throw ValidationError("\(option) must be a positive number of bytes, as 2G or 512M, not '\(value)'")
    }
}
