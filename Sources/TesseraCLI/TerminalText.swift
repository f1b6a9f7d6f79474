import Foundation
import Tessera

/// Text from files (EXIF fields, an ICC profile's description, file names, messages quoting them) made
/// safe to print on a terminal: the characters a terminal acts on are written out instead of sent.
///
/// An EXIF copyright of `"\u{1B}]52;c;..."` would set the clipboard, `"\u{1B}[2J"` clear the screen, and
/// a profile description holding a line break would print a second line of its own choosing (a forged
/// `Error: ...`). `tessera info` prints `Evil\x1B[2J\nError: forged` instead, as `ls -b` and Python's
/// `repr` do.
enum TerminalText {
    /// `text` with control characters (C0, DEL and C1, among them ESC and the 8-bit CSI) written as `\n`,
    /// `\r`, `\t` or `\xHH`, and the Unicode controls that reorder or break lines (bidirectional
    /// overrides and isolates, line and paragraph separators) as `\u{HHHH}`. Other text is unchanged.
    static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: needsEscape) else { return text }
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x09: result += "\\t"
            case 0x0A: result += "\\n"
            case 0x0D: result += "\\r"
            case 0..<0x20, 0x7F...0x9F: result += String(format: "\\x%02X", scalar.value)
            case _ where needsEscape(scalar): result += String(format: "\\u{%04X}", scalar.value)
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// JSON text (as JSONSerialization writes it, C0 controls already escaped) with C1 controls and the
    /// Unicode controls ``escaped(_:)`` names written as `\uHHHH` escapes too: the same JSON value,
    /// safe on a terminal.
    static func escapedJSON(_ json: String) -> String {
        var result = ""
        for scalar in json.unicodeScalars {
            // C0 controls are escaped already; a raw one is JSON's own white space.
            if scalar.value >= 0x7F && needsEscape(scalar) {
                result += String(format: "\\u%04x", scalar.value)
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0..<0x20, 0x7F...0x9F: true
        // Arabic letter mark, left-to-right and right-to-left marks, embeddings and overrides, line and
        // paragraph separators, isolates.
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2028, 0x2029, 0x2066...0x2069: true
        default: false
        }
    }
}

/// Standard error, for messages: each written as one line, escaped (``TerminalText/escaped(_:)``), as
/// any file name or text from a file in it may hold a line break or a terminal escape.
enum StandardError {
    /// `text` as it is (a progress bar's redraw, a table), never inside a decoder's captured lines.
    static func write(_ text: String) { ImageFile.writeToStandardError(text) }

    static func line(_ text: String) {
        StandardError.write(TerminalText.escaped(text) + "\n")
    }

    /// `error` as one line, or a graph's errors as one line each (after `prefix`).
    static func report(_ error: any Error, prefix: String = "") {
        guard let errors = error as? GraphErrors else { return line(prefix + "\(error)") }
        for diagnostic in errors.diagnostics { line(prefix + "\(diagnostic)") }
    }
}
