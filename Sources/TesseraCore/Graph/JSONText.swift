/// What every writer of JSON text by hand shares (value files, run results, traces, graphs built in
/// code): those writers keep their own layout, one contour or one box a line, which Foundation's
/// serializer does not.
package enum JSONText {
    /// `text` as the inside of a JSON string literal: quotes, backslashes and control characters escaped.
    package static func escape(_ text: String) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// `text` as a JSON string literal, quotes included.
    package static func quoted(_ text: String) -> String { "\"" + escape(text) + "\"" }
}
