import ArgumentParser
import Foundation
import Tessera

struct Info: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Show an image file's format, size, channels, bit depth, orientation, resolution, color profile and main "
            + "EXIF fields.")

    @Argument(help: "The image files.")
    var files: [String]

    @Flag(help: "Print JSON, one object per file.")
    var json = false

    @OptionGroup var decoding: DecodeArguments

    func run() throws {
        var failure: (any Error)?
        for file in files {
            do {
                let info = try ImageFile.info(path: file, options: decoding.options)
                StandardOutput.print(
                    json ? Self.json(info, file: file) : Self.text(info, file: file, header: files.count > 1))
            } catch {
                // Report every file, then fail with the first error.
                if failure != nil { StandardError.line("Error: \(error)") }
                failure = failure ?? error
            }
        }
        if let failure { throw failure }
    }

    static func orientationText(_ info: ImageInfo) -> String {
        let names = [
            1: "upright", 2: "mirrored", 3: "turned 180", 4: "mirrored vertically", 5: "transposed",
            6: "turned 90 clockwise", 7: "transversed", 8: "turned 90 counterclockwise",
        ]
        let name = names[info.orientation] ?? "unknown"
        if info.orientation == 1 { return "1 (\(name))" }
        return "\(info.orientation) (stored \(name); \(info.orientationApplied ? "applied" : "kept as stored"))"
    }

    static func text(_ info: ImageInfo, file: String, header: Bool) -> String {
        var lines = header ? ["\(file):"] : []
        let indent = header ? "  " : ""
        lines += [
            "format:      \(info.format)",
            "size:        \(info.width)x\(info.height)",
            "channels:    \(info.layout.fileChannels) (\(info.layout.rawValue))",
            "bit depth:   \(info.bitsPerSample)\(info.isFloat ? " (float)" : "")",
            "orientation: \(orientationText(info))",
        ].map { indent + $0 }
        if !info.details.isEmpty { lines.append(indent + "details:     " + info.details.joined(separator: ", ")) }
        if let resolution = resolutionText(info) { lines.append(indent + "resolution:  " + resolution) }
        if let profile = profileText(info) { lines.append(indent + "profile:     " + profile) }
        for (name, value) in info.metadata.exifSummary {
            lines.append(indent + (name + ":").padding(toLength: 13, withPad: " ", startingAt: 0) + value)
        }
        if let xmp = info.metadata.xmp { lines.append(indent + "xmp:         \(xmp.count) bytes") }
        // The file name, the profile's description and the EXIF's text come from outside: a line break or
        // a terminal escape in them is written out, never sent.
        return lines.map(TerminalText.escaped).joined(separator: "\n")
    }

    /// "600 dpi", or "600x300 dpi" when the sides differ, to a hundredth (PNG's pixels per metre give
    /// 599.9988 for 600); nil when the file gives none.
    static func resolutionText(_ info: ImageInfo) -> String? {
        guard let resolution = info.resolution else { return nil }
        let (x, y) = ((resolution.x * 100).rounded() / 100, (resolution.y * 100).rounded() / 100)
        return (x == y ? x.formatted() : "\(x.formatted())x\(y.formatted())") + " dpi"
    }

    /// The embedded profile's description and size, or nil without one.
    static func profileText(_ info: ImageInfo) -> String? {
        guard let bytes = info.metadata.iccProfile else { return nil }
        let description = (try? ColorProfile(bytes: bytes).description) ?? "not a valid ICC profile"
        return "\(description) (ICC, \(bytes.count) bytes)"
    }

    static func json(_ info: ImageInfo, file: String) -> String {
        var object: [String: Any] = [
            "file": file, "format": info.format.rawValue, "width": info.width, "height": info.height,
            "channels": info.layout.fileChannels, "layout": info.layout.rawValue, "bitsPerSample": info.bitsPerSample,
            "float": info.isFloat, "orientation": info.orientation, "orientationApplied": info.orientationApplied,
            "details": info.details,
        ]
        if let resolution = info.resolution { object["dpi"] = [resolution.x, resolution.y] }
        if let bytes = info.metadata.iccProfile {
            object["profile"] = (try? ColorProfile(bytes: bytes).description) ?? NSNull()
        }
        let exif = info.metadata.exifSummary
        if !exif.isEmpty {
            object["exif"] = Dictionary(
                exif.map { ($0.name, $0.name == "gps" ? true as Any : $0.value as Any) },
                uniquingKeysWith: { first, _ in first })
        }
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
        return TerminalText.escapedJSON(String(decoding: data, as: UTF8.self))
    }
}
