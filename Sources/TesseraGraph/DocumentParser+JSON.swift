import TesseraCatalog
import TesseraCore

extension DocumentParser {
    /// Reads `text` as strict JSON (RFC 8259) into a ``DocumentValue``, with positions as the YAML path
    /// gives them (1-based lines, columns counting Unicode scalars; a string at its opening quote), so
    /// errors in JSON and YAML graphs look alike. Duplicate keys are all reported and the later ones
    /// dropped, as in YAML; a syntax error ends parsing.
    static func parseJSON(_ text: String, file: String) -> (DocumentValue?, [Diagnostic]) {
        var reader = JSONReader(text, file: file)
        do {
            let value = try reader.document()
            return (value, reader.diagnostics)
        } catch {
            return (nil, [.error(error.location, error.message)])
        }
    }
}

/// A hand-written JSON parser that keeps the position of every value and key, which Foundation's JSON
/// decoders do not give. It refuses what RFC 8259 refuses (trailing commas, comments, single quotes,
/// unquoted strings, leading zeros, NaN and infinities, raw control characters in strings, lone
/// surrogates) with a message saying what was found and where.
///
/// - Cost: one pass over the text's Unicode scalars; recursion as deep as the nesting, which is capped
///   at ``DocumentParser/maximumDepth``.
struct JSONReader {
    struct Failure: Error {
        var location: SourceLocation
        var message: String
    }

    private let scalars: [Unicode.Scalar]
    private let file: String
    private var index = 0
    private var line = 1
    /// The index of the current line's first scalar.
    private var lineStart = 0
    /// Duplicate keys: errors that do not stop parsing.
    private(set) var diagnostics: [Diagnostic] = []

    init(_ text: String, file: String) {
        scalars = Array(text.unicodeScalars)
        self.file = file
        // A byte order mark may open the text (RFC 8259, section 8.1); it takes no column.
        if scalars.first == "\u{FEFF}" {
            index = 1
            lineStart = 1
        }
    }

    /// The one value of the text.
    mutating func document() throws(Failure) -> DocumentValue {
        try skipWhitespace()
        guard peek != nil else {
            throw Failure(location: SourceLocation(file: file, line: 1, column: 1), message: "the file is empty")
        }
        let value = try value(depth: 0)
        try skipWhitespace()
        if peek != nil { throw syntax(here, "more text after the end of the document: \(shown(word: true))") }
        return value
    }

    // MARK: Values

    /// `depth` counts the objects and arrays around the value.
    private mutating func value(depth: Int) throws(Failure) -> DocumentValue {
        let start = here
        guard let scalar = peek else { throw syntax(start, "expected a value, found the end of the text") }
        switch scalar {
        case "{", "[":
            guard depth < DocumentParser.maximumDepth else {
                throw Failure(
                    location: start,
                    message: "the file nests values more than \(DocumentParser.maximumDepth) levels deep")
            }
            return scalar == "{" ? try object(depth: depth + 1) : try array(depth: depth + 1)
        case "\"":
            let text = try string()
            return .scalar(.string(text), text: text, start)
        case "-", "0"..."9":
            if scalar == "-", !(next.map(Self.isDigit) ?? false) { break }
            return try number()
        case _ where Self.endsWord(scalar, stoppingAtColon: true):
            throw syntax(start, "expected a value, found \(shown())")
        default:
            break
        }
        let word = self.word(stoppingAtColon: false)
        switch word {
        case "true": return .scalar(.bool(true), text: word, start)
        case "false": return .scalar(.bool(false), text: word, start)
        case "null": return .scalar(.null, text: word, start)
        default: throw syntax(start, Self.refusal(word, isKey: false))
        }
    }

    private mutating func object(depth: Int) throws(Failure) -> DocumentValue {
        let start = here
        var entries: [DocumentEntry] = []
        var seen: [String: SourceLocation] = [:]
        if try opensEmpty(closedBy: "}") { return .mapping([], start) }
        while true {
            try skipWhitespace()
            let keyLocation = here
            guard peek == "\"" else {
                if peek == nil { throw syntax(keyLocation, Self.unclosed("object", at: start)) }
                let word = self.word(stoppingAtColon: true)
                if word.isEmpty { throw syntax(keyLocation, "expected a key in double quotes, found \(shown())") }
                throw syntax(keyLocation, Self.refusal(word, isKey: true))
            }
            let key = try string()
            try skipWhitespace()
            guard peek == ":" else {
                if peek == nil { throw syntax(here, Self.unclosed("object", at: start)) }
                throw syntax(here, "expected ':' after the key '\(key)', found \(shown(word: true))")
            }
            advance()
            try skipWhitespace()
            let value = try value(depth: depth)
            if let first = seen[key] {
                diagnostics.append(
                    .error(keyLocation, "duplicate key '\(key)' (first at line \(first.line), column \(first.column))"))
            } else {
                seen[key] = keyLocation
                entries.append(DocumentEntry(key: key, keyLocation: keyLocation, value: value))
            }
            if try closes(with: "}", the: "object", openedAt: start) { return .mapping(entries, start) }
        }
    }

    private mutating func array(depth: Int) throws(Failure) -> DocumentValue {
        let start = here
        var items: [DocumentValue] = []
        if try opensEmpty(closedBy: "]") { return .list([], start) }
        while true {
            try skipWhitespace()
            if peek == nil { throw syntax(here, Self.unclosed("array", at: start)) }
            items.append(try value(depth: depth))
            if try closes(with: "]", the: "array", openedAt: start) { return .list(items, start) }
        }
    }

    /// Moves past an object's or array's opening bracket; true when the bracket `close` follows at once
    /// (and is read too).
    private mutating func opensEmpty(closedBy close: Unicode.Scalar) throws(Failure) -> Bool {
        advance()
        try skipWhitespace()
        guard peek == close else { return false }
        advance()
        return true
    }

    /// After an item of an object or array: true when `close` ends it, false after the comma before
    /// another item; anything else is an error.
    private mutating func closes(
        with close: Unicode.Scalar, the container: String, openedAt start: SourceLocation
    ) throws(Failure) -> Bool {
        try skipWhitespace()
        switch peek {
        case ",":
            let comma = here
            advance()
            try skipWhitespace()
            if peek == close { throw syntax(comma, "trailing comma before '\(close)'") }
            return false
        case close:
            advance()
            return true
        case nil:
            throw syntax(here, Self.unclosed(container, at: start))
        default:
            throw syntax(
                here, "expected ',' or '\(close)' after a value in an \(container), found \(shown(word: true))")
        }
    }

    /// A string, from its opening quote to its closing one, escapes decoded.
    private mutating func string() throws(Failure) -> String {
        let start = here
        advance()  // "
        var text = String.UnicodeScalarView()
        while let scalar = peek {
            switch scalar {
            case "\"":
                advance()
                return String(text)
            case "\\":
                text.append(try escape())
            case "\n", "\r":
                throw syntax(start, "the string has no closing quote on its line (a line break in a string is \\n)")
            case _ where scalar.value < 0x20:
                let short: [Unicode.Scalar: String] = ["\u{08}": "\\b", "\u{0C}": "\\f", "\t": "\\t"]
                let escaped = short[scalar] ?? "\\u00" + Self.codePoint(scalar).suffix(2)
                throw syntax(here, "control character \(Self.codePoint(scalar)) in a string; write it as \(escaped)")
            default:
                text.append(scalar)
                advance()
            }
        }
        throw syntax(start, "the string has no closing quote")
    }

    /// One escape sequence, from its backslash; a surrogate pair makes one scalar.
    private mutating func escape() throws(Failure) -> Unicode.Scalar {
        let start = here
        let first = index
        advance()  // \
        guard let letter = peek else { throw syntax(start, "the string has no closing quote") }
        advance()
        switch letter {
        case "\"": return "\""
        case "\\": return "\\"
        case "/": return "/"
        case "b": return "\u{08}"
        case "f": return "\u{0C}"
        case "n": return "\n"
        case "r": return "\r"
        case "t": return "\t"
        case "u": break
        default:
            throw syntax(
                start, "unknown escape '\\\(letter)' in a string (JSON has \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)")
        }
        let high = try hexQuad(escapeStart: start)
        let written = String(String.UnicodeScalarView(scalars[first..<index]))
        switch high {
        case 0xD800...0xDBFF:
            let lowStart = here
            guard peek == "\\", next == "u" else {
                throw syntax(start, "lone surrogate \(written): a high surrogate needs a low one after it")
            }
            advance()
            advance()
            let low = try hexQuad(escapeStart: lowStart)
            guard (0xDC00...0xDFFF).contains(low) else {
                throw syntax(start, "lone surrogate \(written): a high surrogate needs a low one after it")
            }
            return Self.scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
        case 0xDC00...0xDFFF:
            throw syntax(start, "lone surrogate \(written): a low surrogate needs a high one before it")
        default:
            return Self.scalar(high)
        }
    }

    /// The four hex digits after `\u`.
    private mutating func hexQuad(escapeStart: SourceLocation) throws(Failure) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let scalar = peek, let digit = Character(scalar).hexDigitValue else {
                throw syntax(escapeStart, "'\\u' needs four hex digits (as \\u00e9)")
            }
            value = value << 4 | UInt32(digit)
            advance()
        }
        return value
    }

    /// A number as RFC 8259 writes it: `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?`. Integers are
    /// `.integer` when they fit an `Int`; the others are `.number`.
    private mutating func number() throws(Failure) -> DocumentValue {
        let start = here
        let first = index
        var isInteger = true
        if peek == "-" { advance() }
        if peek == "0", next.map(Self.isDigit) ?? false {
            throw syntax(start, "'\(word(from: first))' is not a JSON number: leading zeros are not allowed")
        }
        skipDigits()
        if peek == "." {
            isInteger = false
            advance()
            guard peek.map(Self.isDigit) ?? false else {
                throw syntax(start, "'\(word(from: first))' is not a JSON number: it needs a digit after '.'")
            }
            skipDigits()
        }
        if peek == "e" || peek == "E" {
            isInteger = false
            advance()
            if peek == "+" || peek == "-" { advance() }
            guard peek.map(Self.isDigit) ?? false else {
                throw syntax(start, "'\(word(from: first))' is not a JSON number: its exponent needs digits")
            }
            skipDigits()
        }
        if let scalar = peek, !Self.endsWord(scalar, stoppingAtColon: false) {
            throw syntax(start, Self.refusal(word(from: first), isKey: false))
        }
        let text = String(String.UnicodeScalarView(scalars[first..<index]))
        if isInteger, let value = Int(text) { return .scalar(.integer(value), text: text, start) }
        guard let value = Double(text), value.isFinite else {
            throw syntax(start, "the number \(text) is too large")
        }
        return .scalar(.number(value), text: text, start)
    }

    // MARK: Reading

    private var peek: Unicode.Scalar? { index < scalars.count ? scalars[index] : nil }
    private var next: Unicode.Scalar? { index + 1 < scalars.count ? scalars[index + 1] : nil }
    private var here: SourceLocation { SourceLocation(file: file, line: line, column: index - lineStart + 1) }

    /// Moves past one scalar, counting lines: `\n`, `\r\n` and a lone `\r` each end one.
    private mutating func advance() {
        guard let scalar = peek else { return }
        index += 1
        if scalar == "\n" || (scalar == "\r" && peek != "\n") {
            line += 1
            lineStart = index
        }
    }

    /// Moves past spaces, tabs and line breaks; a comment (`//`, `/*`, or YAML's `#`) is an error.
    private mutating func skipWhitespace() throws(Failure) {
        while let scalar = peek {
            switch scalar {
            case " ", "\t", "\n", "\r": advance()
            case "#": throw syntax(here, "comments are not allowed")
            case "/" where next == "/" || next == "*": throw syntax(here, "comments are not allowed")
            default: return
            }
        }
    }

    private mutating func skipDigits() {
        while let scalar = peek, Self.isDigit(scalar) { advance() }
    }

    /// Reads the run of scalars up to the next space or delimiter (a bare word, or a mistyped number).
    private mutating func word(stoppingAtColon: Bool) -> String {
        var text = String.UnicodeScalarView()
        while let scalar = peek, !Self.endsWord(scalar, stoppingAtColon: stoppingAtColon) {
            text.append(scalar)
            advance()
        }
        return String(text)
    }

    /// The word that starts at scalar `first`, which may run past the current position.
    private mutating func word(from first: Int) -> String {
        let before = String(String.UnicodeScalarView(scalars[first..<index]))
        return before + word(stoppingAtColon: false)
    }

    /// What stands at the current position, for "found ...": a bare word whole with `word` (`'load'`).
    private mutating func shown(word: Bool = false) -> String {
        guard let scalar = peek else { return "the end of the text" }
        if word, !Self.endsWord(scalar, stoppingAtColon: true) { return "'\(self.word(stoppingAtColon: true))'" }
        return scalar.value < 0x20 ? Self.codePoint(scalar) : "'\(scalar)'"
    }

    private func syntax(_ location: SourceLocation, _ message: String) -> Failure {
        Failure(location: location, message: "invalid JSON: " + message)
    }

    // MARK: Messages and scalars

    /// Why a bare word is not a value (or a key): quotes, NaN and infinities, capitalized literals.
    private static func refusal(_ word: String, isKey: Bool) -> String {
        if word.hasPrefix("'") { return "strings take double quotes, not single quotes" }
        if isKey { return "unquoted key '\(word)': JSON keys need double quotes (\"\(word)\")" }
        if ["nan", "infinity", "-infinity", "+infinity", "inf", "-inf"].contains(word.lowercased()) {
            return "'\(word)' is not a JSON number (JSON has no NaN or infinities)"
        }
        if ["true", "false", "null"].contains(word.lowercased()) {
            return "'\(word)' is not a JSON value: write \(word.lowercased())"
        }
        if Double(word) != nil { return "'\(word)' is not a JSON number" }
        return "unquoted text '\(word)': JSON strings need double quotes (\"\(word)\")"
    }

    private static func unclosed(_ what: String, at start: SourceLocation) -> String {
        "the text ends before the \(what) opened at line \(start.line), column \(start.column) is closed"
    }

    private static func isDigit(_ scalar: Unicode.Scalar) -> Bool { ("0"..."9").contains(scalar) }

    /// Whitespace, control characters and JSON's delimiters end a bare word; a colon ends a key's.
    private static func endsWord(_ scalar: Unicode.Scalar, stoppingAtColon: Bool) -> Bool {
        switch scalar {
        case ",", "[", "]", "{", "}", "\"": true
        case ":": stoppingAtColon
        default: scalar.value <= 0x20
        }
    }

    private static func codePoint(_ scalar: Unicode.Scalar) -> String {
        let hex = String(scalar.value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }

    /// A scalar from a code point that is known to be one (not a surrogate, at most 0x10FFFF).
    private static func scalar(_ value: UInt32) -> Unicode.Scalar {
        Unicode.Scalar(value) ?? "\u{FFFD}"
    }
}
