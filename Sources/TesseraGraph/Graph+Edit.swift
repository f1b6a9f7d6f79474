import TesseraCatalog
import TesseraCore

// Writing parameter values back into a graph file (`tessera serve`'s "Write to file"): only the text of
// each value changes, found by the parser's positions, so comments, key order, quoting and layout stay
// as the author wrote them. A parameter the node does not set yet is added next to its `op`. The text
// written is made from the typed value, never pasted: a page once injected whole nodes through it.

/// One value to write into a graph file: `node.parameter` set to a typed value, which the file gets as
/// YAML or JSON text made from the value (never the text a user or page sent).
package struct ParameterEdit: Sendable {
    package var node: String
    package var parameter: String
    package var value: Literal
    /// Where the value came from, for messages (`--set soft.sigma=8`, or the page's override).
    package var origin: SourceLocation

    package init(node: String, parameter: String, value: Literal, origin: SourceLocation) {
        (self.node, self.parameter, self.value, self.origin) = (node, parameter, value, origin)
    }
}

extension Graph {
    /// `text` (a graph file's YAML or JSON) with each override's parameter set to its value, the value read
    /// as `--set` reads one (`8`, `[1, 0.5, 0, 1]`; text YAML would read as a mapping is a string).
    ///
    ///     photo: { op: load, path: a.jpg }   # the photo
    ///     soft:                               # blurred
    ///       op: gaussianBlur
    ///       sigma: 20    # px
    ///
    /// with `soft.sigma=8` changes `20` to `8` and nothing else; with `photo.shrink=2` the flow mapping
    /// becomes `{ op: load, shrink: 2, path: a.jpg }`.
    ///
    /// - Throws: ``GraphErrors`` when the text does not parse, names no such node, a value cannot be read,
    ///   or the value is not written where a plain edit can replace it (a block list, a value from an
    ///   upstream output).
    package static func settingParameters(
        _ overrides: [ParameterOverride], inText text: String, file: String
    ) throws(GraphErrors) -> String {
        var edits: [ParameterEdit] = []
        for override in overrides {
            guard let value = DocumentParser.parseValue(override.value) else {
                throw GraphErrors(diagnostics: [.error(override.location, "cannot read the value '\(override.value)'")])
            }
            edits.append(
                ParameterEdit(
                    node: override.node, parameter: override.parameter, value: value, origin: override.location))
        }
        return try settingParameters(edits, inText: text, file: file)
    }

    /// `text` (a graph file's YAML or JSON) with each parameter set to its value. Only the text of each
    /// value changes, found by the parser's positions; a parameter the node does not set yet is added next
    /// to its `op`. The value's text is made from the typed value: numbers and booleans as YAML writes
    /// them, a string plain only when it is a simple word or path (`photo.png`), double-quoted with
    /// escapes otherwise, lists in flow syntax; JSON files get JSON. So no value, whatever it holds
    /// (`1 }\n  evil: {op: save ...`), can become the file's structure: the edited text is parsed again and
    /// must hold the same nodes and keys, with each edited value read back as given.
    package static func settingParameters(
        _ edits: [ParameterEdit], inText text: String, file: String
    ) throws(GraphErrors) -> String {
        let (document, diagnostics) = DocumentParser.parse(text, file: file)
        guard let document, !diagnostics.contains(where: { $0.severity == .error }) else {
            throw GraphErrors(
                diagnostics: diagnostics.isEmpty ? [.error(SourceLocation(file: file), "cannot parse")] : diagnostics)
        }
        let source = EditableText(text)
        let isJSON = file.lowercased().hasSuffix(".json")
        var changes: [(range: Range<Int>, text: String)] = []
        for edit in edits {
            func fail(_ message: String) -> GraphErrors { GraphErrors(diagnostics: [.error(edit.origin, message)]) }
            guard GraphValidator.isNodeName(edit.node), GraphValidator.isNodeName(edit.parameter) else {
                throw fail("'\(edit.node).\(edit.parameter)' is not a node and parameter name")
            }
            guard let value = edit.value.graphText(json: isJSON) else {
                throw fail("\(edit.value.kindName) cannot be written into a \(isJSON ? "JSON" : "YAML") graph file")
            }
            guard case .mapping(let root, _) = document,
                case .mapping(let nodes, _)? = root.first(where: { $0.key == "nodes" })?.value
            else { throw fail("the file has no 'nodes' mapping") }
            guard case .mapping(let entries, let nodeLocation)? = nodes.first(where: { $0.key == edit.node })?.value
            else { throw fail("the file has no node '\(edit.node)' written as a mapping") }
            if let entry = entries.first(where: { $0.key == edit.parameter }) {
                guard let start = source.offset(of: entry.value.location) else { throw fail("no position") }
                switch entry.value {
                case .scalar:
                    changes.append((start..<source.scalarEnd(from: start), value))
                case .list where source.scalars[start] == "[":
                    guard let end = source.flowEnd(from: start) else { throw fail("the list is not closed") }
                    changes.append((start..<end, value))
                case .list:
                    throw fail("'\(edit.parameter)' is a block list; write it as [a, b, c] to save it from the page")
                case .mapping:
                    throw fail("'\(edit.parameter)' takes its value from another node; edit it in the file")
                }
                continue
            }
            guard let op = entries.first(where: { $0.key == "op" }), let nodeStart = source.offset(of: nodeLocation),
                let opStart = source.offset(of: op.value.location)
            else { throw fail("the node '\(edit.node)' has no 'op'") }
            let key = isJSON ? "\"\(edit.parameter)\"" : edit.parameter
            if source.scalars[nodeStart] == "{" {
                let end = source.scalarEnd(from: opStart)
                changes.append((end..<end, ", \(key): \(value)"))
            } else {
                let indent = String(repeating: " ", count: max(0, op.keyLocation.column - 1))
                let lineEnd = source.lineEnd(from: opStart)
                let newline = lineEnd == source.scalars.count ? "\n" : ""
                let insertAt = min(lineEnd + 1, source.scalars.count)
                changes.append((insertAt..<insertAt, newline + "\(indent)\(key): \(value)\n"))
            }
        }
        var scalars = source.scalars
        // The last first, so the earlier offsets stay valid; for the same place, in the order given.
        for change in changes.enumerated().sorted(by: {
            ($0.element.range.lowerBound, $0.offset) > ($1.element.range.lowerBound, $1.offset)
        }) {
            scalars.replaceSubrange(change.element.range, with: Array(change.element.text.unicodeScalars))
        }
        var result = String.UnicodeScalarView()
        result.append(contentsOf: scalars)
        let edited = String(result)
        try checkOnlyValuesChanged(from: document, to: edited, by: edits, file: file)
        return edited
    }

    /// Throws unless `edited` parses to `document` with the edited parameters set (added where they were
    /// not) and nothing else changed: the guard that a value's text never became structure.
    private static func checkOnlyValuesChanged(
        from document: DocumentValue, to edited: String, by edits: [ParameterEdit], file: String
    ) throws(GraphErrors) {
        let refused = GraphErrors(
            diagnostics: [
                .error(
                    edits.first?.origin ?? SourceLocation(file: file),
                    "the edit would change more than the values set; nothing was written")
            ])
        guard case (let after?, let problems) = DocumentParser.parse(edited, file: file),
            !problems.contains(where: { $0.severity == .error })
        else { throw refused }
        var expected = document.literal
        guard case .mapping(var root) = expected, case .mapping(var nodes)? = root["nodes"] else { throw refused }
        for edit in edits {
            guard case .mapping(var fields)? = nodes[edit.node] else { throw refused }
            fields[edit.parameter] = edit.value
            nodes[edit.node] = .mapping(fields)
        }
        root["nodes"] = .mapping(nodes)
        expected = .mapping(root)
        guard after.literal.sameValue(as: expected) else { throw refused }
    }
}

extension Literal {
    /// The value as graph file text: YAML flow syntax, or JSON. A string is plain only when it is a word or
    /// path that YAML reads back as that string (`photo.png`, `out/a-1.png`); otherwise it is
    /// double-quoted, with every character YAML or JSON would read otherwise escaped. nil for what a file
    /// cannot hold (a mapping; in JSON, infinities and NaN).
    package func graphText(json: Bool) -> String? {
        switch self {
        case .null, .bool, .integer: return text
        case .number(let value):
            if json && !value.isFinite { return nil }
            return text
        case .string(let value):
            if !json, Self.isPlainWord(value) { return value }
            return Self.doubleQuoted(value)
        case .list(let items):
            var parts: [String] = []
            for item in items {
                guard let part = item.graphText(json: json) else { return nil }
                parts.append(part)
            }
            return "[" + parts.joined(separator: ", ") + "]"
        case .mapping:
            return nil
        }
    }

    /// Letters, digits and `_ . / + -`, starting with a letter, digit, `_` or `/`, that YAML 1.2's core schema
    /// reads as a string (not `true`, `null` or `1e3`).
    private static func isPlainWord(_ text: String) -> Bool {
        guard let first = text.unicodeScalars.first, first.isASCII,
            first.properties.isAlphabetic || ("0"..."9").contains(first) || first == "_" || first == "/"
        else { return false }
        let allowed = text.unicodeScalars.allSatisfy {
            $0.isASCII
                && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "_./+-".unicodeScalars.contains($0))
        }
        return allowed && DocumentParser.parseValue(text) == .string(text)
    }

    /// `"..."` with `\\`, `\"` and every control or line-breaking character escaped: the same text in YAML's
    /// double-quoted style and in JSON.
    private static func doubleQuoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": result += "\\\\"
            case "\"": result += "\\\""
            case "\n": result += "\\n"
            case "\t": result += "\\t"
            case "\r": result += "\\r"
            case _
            where scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar.value == 0x2028
                || scalar.value == 0x2029 || scalar.value == 0xFEFF:
                result +=
                    "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count)
                    + String(scalar.value, radix: 16).uppercased()
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }

    /// Equal, numbers by value (`8` written for 8.0 reads back as an integer) and NaN equal to NaN.
    func sameValue(as other: Literal) -> Bool {
        switch (self, other) {
        case (.integer, .number), (.number, .integer), (.number, .number):
            guard let a = number, let b = other.number else { return false }
            return a == b || (a.isNaN && b.isNaN)
        case (.list(let a), .list(let b)):
            return a.count == b.count && zip(a, b).allSatisfy { $0.sameValue(as: $1) }
        case (.mapping(let a), .mapping(let b)):
            return a.count == b.count && a.allSatisfy { key, value in b[key].map { value.sameValue(as: $0) } ?? false }
        default:
            return self == other
        }
    }
}

/// A file's text as Unicode scalars (the parser's columns count them), with the scans that find where a
/// value written at a position ends.
private struct EditableText {
    var scalars: [Unicode.Scalar]
    var lineStarts: [Int] = [0]

    init(_ text: String) {
        scalars = Array(text.unicodeScalars)
        for (index, scalar) in scalars.enumerated() where scalar == "\n" { lineStarts.append(index + 1) }
    }

    /// The offset of a 1-based line and column.
    func offset(of location: SourceLocation) -> Int? {
        guard location.line >= 1, location.line <= lineStarts.count else { return nil }
        let offset = lineStarts[location.line - 1] + location.column - 1
        return offset < scalars.count ? offset : nil
    }

    /// The end of the line holding `offset` (its newline's offset, or the end of the text).
    func lineEnd(from offset: Int) -> Int {
        var index = offset
        while index < scalars.count, scalars[index] != "\n" { index += 1 }
        return index
    }

    /// The end of the scalar written at `start`: after its closing quote, or for a plain scalar before
    /// the line's end, a comment, or the flow punctuation that ends it, trailing blanks left out.
    func scalarEnd(from start: Int) -> Int {
        var index = start
        switch scalars[start] {
        case "\"":
            index += 1
            while index < scalars.count, scalars[index] != "\"" { index += scalars[index] == "\\" ? 2 : 1 }
            return min(index + 1, scalars.count)
        case "'":
            index += 1
            while index < scalars.count {
                if scalars[index] == "'" {
                    if index + 1 < scalars.count, scalars[index + 1] == "'" {
                        index += 2
                        continue
                    }
                    return index + 1
                }
                index += 1
            }
            return index
        default:
            while index < scalars.count {
                let scalar = scalars[index]
                if scalar == "\n" || scalar == "," || scalar == "]" || scalar == "}" { break }
                if scalar == "#", index > start, scalars[index - 1] == " " || scalars[index - 1] == "\t" { break }
                index += 1
            }
            while index > start, scalars[index - 1] == " " || scalars[index - 1] == "\t" || scalars[index - 1] == "\r" {
                index -= 1
            }
            return index
        }
    }

    /// The offset after the bracket closing the flow collection opened at `start`, quoted text skipped.
    func flowEnd(from start: Int) -> Int? {
        var depth = 0
        var index = start
        while index < scalars.count {
            switch scalars[index] {
            case "[", "{": depth += 1
            case "]", "}":
                depth -= 1
                if depth == 0 { return index + 1 }
            case "\"", "'":
                index = scalarEnd(from: index)
                continue
            default: break
            }
            index += 1
        }
        return nil
    }
}
