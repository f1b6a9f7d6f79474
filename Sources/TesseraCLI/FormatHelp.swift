import ArgumentParser
import Foundation
import Tessera

/// Help texts made from what Tessera reads and writes, and from the `save` node's own parameter docs, so
/// they name every format as the code does (they said "PNG, TIFF or JPEG" long after WebP, GIF, HEIC
/// and AVIF came).
enum FormatHelp {
    /// "PNG, TIFF, JPEG, WebP, GIF, HEIC or AVIF".
    static var read: String { sentence(ImageFormat.allCases.map(\.description)) }

    /// "PNG, TIFF, JPEG, WebP, HEIC or AVIF".
    static var written: String { sentence(ImageFormat.allCases.filter(\.isWritable).map(\.description)) }

    /// ".png, .tif, .tiff, .jpg, .jpeg, .jpe, .webp, .heic, .heif or .avif".
    static var extensions: String { sentence(ImageFormat.extensions.map { "." + $0.0 }) }

    /// The input argument's help.
    static var input: ArgumentHelp { ArgumentHelp("The image to read (\(read)); its content names the format.") }

    /// The output argument's help.
    static var output: ArgumentHelp { ArgumentHelp("The file to write: \(extensions).") }

    /// `save`'s doc of parameter `name`, its range after it, for the option of the same meaning.
    static func save(_ name: String) -> String {
        guard let parameter = Thumbnail.catalog.declaration(op: "save")?.parameter(named: name) else { return "" }
        return parameter.doc + (parameter.range.map { " (\($0.rangeText))" } ?? "")
    }

    /// "a, b or c".
    static func sentence(_ words: [String]) -> String {
        guard words.count > 1 else { return words.first ?? "" }
        return words.dropLast().joined(separator: ", ") + " or " + (words.last ?? "")
    }
}
