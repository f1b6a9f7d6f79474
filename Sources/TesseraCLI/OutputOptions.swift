import Foundation
import Tessera

/// An output file named with its save options in brackets, as vips takes them: `out.jpg[Q=82,strip]`.
///
/// Each option is a `save` parameter (`quality=82`, `progressive`) or one of vips' names for the same
/// thing (``vipsNames``); a name alone means true. vips' options that `save` has no equivalent for are
/// refused by name, with the options there are.
struct OutputOptions: Equatable {
    /// The file to write.
    var path: String
    /// The save node's settings, in the order given: a parameter name and its value as a graph file
    /// writes it.
    var settings: [Setting]

    struct Setting: Equatable {
        var name: String
        var value: String
    }

    /// A mistake in the brackets.
    struct Problem: Error, CustomStringConvertible {
        var description: String
    }

    /// vips' save options whose names differ from `save`'s, and the parameters they set (a value of nil
    /// takes the option's own). vips' `compression`, `lossless` and `profile` (none or srgb) are `save`'s
    /// own names.
    static let vipsNames: [String: [(name: String, value: String?)]] = [
        "Q": [("quality", nil)],
        "interlace": [("progressive", nil)],
        "bitdepth": [("depth", nil)],
        // vips strips the profile too.
        "strip": [("metadata", "strip"), ("profile", "none")],
        "tile_width": [("tile", nil)],
        "tile_height": [("tile", nil)],
        // vips' `tile` alone: tiles 128 pixels square, vips' default.
        "tile": [("tile", "128")],
    ]

    /// `text` as a file name and its options: `out.jpg[Q=82]`, or a plain `out.jpg` without any.
    /// `parameters` are the save node's parameter names.
    init(parsing text: String, parameters: [String]) throws(Problem) {
        guard let open = Self.bracket(in: text) else {
            (path, settings) = (text, [])
            return
        }
        path = String(text[..<open])
        let inside = text[text.index(after: open)..<text.index(before: text.endIndex)]
        var settings: [Setting] = []
        for option in inside.split(separator: ",", omittingEmptySubsequences: true) {
            let parts = option.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            let (name, given) = (parts[0], parts.count == 2 ? parts[1] : "true")
            // A value is one word: a number, a word or a boolean, never YAML structure.
            guard !given.isEmpty, given.allSatisfy({ $0.isLetter || $0.isNumber || "._+-".contains($0) }) else {
                throw Problem(description: "\(path): '\(option)': the value must be a number or a word, as Q=82")
            }
            let targets: [(name: String, value: String?)]
            if parameters.contains(name) && name != "path" && !(name == "tile" && parts.count == 1) {
                targets = [(name, nil)]
            } else if let vips = Self.vipsNames[name] {
                targets = vips
            } else {
                let known = (parameters.filter { $0 != "path" } + Self.vipsNames.keys.sorted())
                throw Problem(
                    description: "\(path): no save option '\(name)'\(Suggestion.didYouMean(name, in: known)) (the "
                        + "options: \(parameters.filter { $0 != "path" }.joined(separator: ", ")), or vips' "
                        + "\(Self.vipsNames.keys.sorted().joined(separator: ", ")))")
            }
            for target in targets {
                var value = target.value ?? given
                if target.name == "profile", target.value == nil { value = value.lowercased() }
                settings.removeAll { $0.name == target.name }
                settings.append(Setting(name: target.name, value: value))
            }
        }
        self.settings = settings
    }

    /// Where the options of `text` begin (its first `[`, when it ends in `]` and has a name before it).
    static func bracket(in text: String) -> String.Index? {
        guard text.hasSuffix("]"), let open = text.firstIndex(of: "["), open != text.startIndex else { return nil }
        return open
    }

    /// The file `text` names, without its options.
    static func path(of text: String) -> String { bracket(in: text).map { String(text[..<$0]) } ?? text }
}
