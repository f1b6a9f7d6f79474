import TesseraCatalog
import TesseraCore

// Writing parameter values back into a graph file (`tessera serve`'s "Write to file"): only the text of
// each value changes, found by the parser's positions, so comments, key order, quoting and layout stay
// as the author wrote them. A parameter the node does not set yet is added next to its `op`.

extension Graph {
    /// `text` (a graph file's YAML or JSON) with each override's parameter set to its value, written as
    /// given (`8`, `[1, 0.5, 0, 1]`).
    ///
    ///     photo: { op: load, path: a.jpg }   # the photo
    ///     soft:                               # blurred
    ///       op: gaussianBlur
    ///       sigma: 20    # px
    ///
    /// with `soft.sigma=8` changes `20` to `8` and nothing else; with `photo.shrink=2` the flow mapping
    /// becomes `{ op: load, shrink: 2, path: a.jpg }`.
    ///
    /// - Throws: ``GraphErrors`` when the text does not parse, names no such node, or the value is not
    ///   written where a plain edit can replace it (a block list, a value from an upstream output).
    package static func settingParameters(
        _ overrides: [ParameterOverride], inText text: String, file: String
    ) throws(GraphErrors) -> String {
        let (document, diagnostics) = DocumentParser.parse(text, file: file)
        guard let document, !diagnostics.contains(where: { $0.severity == .error }) else {
            throw GraphErrors(
                diagnostics: diagnostics.isEmpty ? [.error(SourceLocation(file: file), "cannot parse")] : diagnostics)
        }
        let source = EditableText(text)
        let isJSON = file.lowercased().hasSuffix(".json")
        var edits: [(range: Range<Int>, text: String)] = []
        for override in overrides {
            let location = override.location
            func fail(_ message: String) -> GraphErrors { GraphErrors(diagnostics: [.error(location, message)]) }
            guard case .mapping(let root, _) = document,
                case .mapping(let nodes, _)? = root.first(where: { $0.key == "nodes" })?.value
            else { throw fail("the file has no 'nodes' mapping") }
            guard case .mapping(let entries, let nodeLocation)? = nodes.first(where: { $0.key == override.node })?.value
            else { throw fail("the file has no node '\(override.node)' written as a mapping") }
            if let entry = entries.first(where: { $0.key == override.parameter }) {
                guard let start = source.offset(of: entry.value.location) else { throw fail("no position") }
                switch entry.value {
                case .scalar:
                    edits.append((start..<source.scalarEnd(from: start), override.value))
                case .list where source.scalars[start] == "[":
                    guard let end = source.flowEnd(from: start) else { throw fail("the list is not closed") }
                    edits.append((start..<end, override.value))
                case .list:
                    throw fail(
                        "'\(override.parameter)' is a block list; write it as [a, b, c] to save it from the page")
                case .mapping:
                    throw fail("'\(override.parameter)' takes its value from another node; edit it in the file")
                }
                continue
            }
            guard let op = entries.first(where: { $0.key == "op" }), let nodeStart = source.offset(of: nodeLocation),
                let opStart = source.offset(of: op.value.location)
            else { throw fail("the node '\(override.node)' has no 'op'") }
            let key = isJSON ? "\"\(override.parameter)\"" : override.parameter
            if source.scalars[nodeStart] == "{" {
                edits.append(
                    (source.scalarEnd(from: opStart)..<source.scalarEnd(from: opStart), ", \(key): \(override.value)"))
            } else {
                let indent = String(repeating: " ", count: max(0, op.keyLocation.column - 1))
                let lineEnd = source.lineEnd(from: opStart)
                let newline = lineEnd == source.scalars.count ? "\n" : ""
                let insertAt = min(lineEnd + 1, source.scalars.count)
                edits.append((insertAt..<insertAt, newline + "\(indent)\(key): \(override.value)\n"))
            }
        }
        var scalars = source.scalars
        // The last first, so the earlier offsets stay valid; for the same place, in the order given.
        for edit in edits.enumerated().sorted(by: {
            ($0.element.range.lowerBound, $0.offset) > ($1.element.range.lowerBound, $1.offset)
        }) {
            scalars.replaceSubrange(edit.element.range, with: Array(edit.element.text.unicodeScalars))
        }
        var result = String.UnicodeScalarView()
        result.append(contentsOf: scalars)
        return String(result)
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
