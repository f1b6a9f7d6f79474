import TesseraCore
import Yams

/// A graph file's YAML (or JSON) tree with the position of every value and key, the input of validation.
indirect enum DocumentValue: Sendable {
    /// A scalar typed by YAML's rules, with its text as written (`yes` is a boolean whose text is "yes").
    case scalar(Literal, text: String, SourceLocation)
    case list([DocumentValue], SourceLocation)
    case mapping([DocumentEntry], SourceLocation)

    var location: SourceLocation {
        switch self {
        case .scalar(_, _, let location), .list(_, let location), .mapping(_, let location): location
        }
    }

    /// The value without positions.
    var literal: Literal {
        switch self {
        case .scalar(let literal, _, _): literal
        case .list(let items, _): .list(items.map(\.literal))
        case .mapping(let entries, _):
            .mapping(Dictionary(entries.map { ($0.key, $0.value.literal) }, uniquingKeysWith: { first, _ in first }))
        }
    }

    var string: String? {
        if case .scalar(.string(let text), _, _) = self { return text }
        return nil
    }

    /// The text of a plain scalar of any type, for names: a node called `yes` or `null` is still a name.
    var name: String? {
        switch self {
        case .scalar(.string(let text), _, _), .scalar(.bool, let text, _), .scalar(.null, let text, _): text
        default: nil
        }
    }
}

/// One `key: value` pair of a mapping.
struct DocumentEntry: Sendable {
    var key: String
    var keyLocation: SourceLocation
    var value: DocumentValue
}

/// Reads YAML and JSON (JSON is read as YAML) into a ``DocumentValue``, keeping positions.
enum DocumentParser {
    /// Deeper nesting than this is refused: no graph needs it, and recursion over it would overflow the stack.
    static let maximumDepth = 200
    /// Values in the document once aliases are expanded: refuses "billion laughs" files.
    static let maximumValues = 1_000_000

    /// Parses `text`. Syntax errors end parsing; duplicate keys are all reported and the later ones dropped.
    static func parse(_ text: String, file: String) -> (DocumentValue?, [Diagnostic]) {
        // JSON allows tabs wherever YAML allows spaces; libyaml does not. Outside strings (where JSON
        // forbids raw tabs) a tab is only whitespace, and one space keeps every column the same.
        let isJSON = file.lowercased().hasSuffix(".json")
        let source = isJSON ? text.replacingOccurrences(of: "\t", with: " ") : text
        // libyaml and Yams recurse once per level: check the nesting before handing them the text.
        if let deep = tooDeep(source) {
            let message = "the file nests values more than \(maximumDepth) levels deep"
            return (nil, [.error(SourceLocation(file: file, line: deep.line, column: deep.column), message)])
        }
        let node: Yams.Node?
        do {
            node = try Yams.compose(yaml: source)
        } catch let error as YamlError {
            return (nil, [syntaxError(error, file: file, language: isJSON ? "JSON" : "YAML")])
        } catch {
            return (nil, [.error(SourceLocation(file: file, line: 1, column: 1), "cannot parse: \(error)")])
        }
        guard let node else {
            return (nil, [.error(SourceLocation(file: file, line: 1, column: 1), "the file is empty")])
        }
        var converter = Converter(file: file)
        guard let value = converter.convert(node, depth: 0) else {
            return (nil, converter.diagnostics)
        }
        return (value, converter.diagnostics)
    }

    /// The position where flow brackets (`[`, `{`) or block sequence dashes on one line (`- - -`)
    /// first nest deeper than ``maximumDepth``, if they do. Block nesting by indentation cannot get
    /// that deep in a file of sensible size.
    static func tooDeep(_ text: String) -> (line: Int, column: Int)? {
        var depth = 0
        var line = 1
        var column = 0
        var quote: Character?
        var atLineStart = true
        var lineDashes = 0
        var previous: Character = "\n"
        for character in text {
            column += 1
            if character == "\n" {
                line += 1
                column = 0
                atLineStart = true
                lineDashes = 0
                previous = character
                continue
            }
            if let open = quote {
                if character == open, previous != "\\" { quote = nil }
            } else {
                switch character {
                case "\"", "'": quote = character
                case "[", "{": depth += 1
                case "]", "}": depth = max(0, depth - 1)
                case "-" where atLineStart: lineDashes += 1
                case " ": break
                default: atLineStart = false
                }
                if character != "-" && character != " " { atLineStart = false }
                if depth + lineDashes > maximumDepth { return (line, column) }
            }
            previous = character
        }
        return nil
    }

    static func location(_ mark: Mark?, file: String) -> SourceLocation {
        SourceLocation(file: file, line: mark?.line ?? 1, column: mark?.column ?? 1)
    }

    /// Turns Yams nodes into ``DocumentValue``s, finding duplicate keys and counting values.
    private struct Converter {
        let file: String
        var diagnostics: [Diagnostic] = []
        var values = 0

        /// nil when the document is too deep or too large (with an error).
        mutating func convert(_ node: Yams.Node, depth: Int) -> DocumentValue? {
            let here = DocumentParser.location(node.mark, file: file)
            values += 1
            guard values <= DocumentParser.maximumValues, depth <= DocumentParser.maximumDepth else {
                let message =
                    depth > DocumentParser.maximumDepth
                    ? "the file nests values more than \(DocumentParser.maximumDepth) levels deep"
                    : "the file holds more than \(DocumentParser.maximumValues) values once its aliases are expanded"
                diagnostics.append(.error(here, message))
                return nil
            }
            switch node {
            case .scalar(let scalar):
                return .scalar(DocumentParser.literal(node, scalar: scalar), text: scalar.string, here)
            case .sequence(let sequence):
                var items: [DocumentValue] = []
                for item in sequence {
                    guard let value = convert(item, depth: depth + 1) else { return nil }
                    items.append(value)
                }
                return .list(items, here)
            case .mapping(let mapping):
                var entries: [DocumentEntry] = []
                var seen: [String: SourceLocation] = [:]
                for (keyNode, valueNode) in mapping {
                    let keyLocation = DocumentParser.location(keyNode.mark, file: file)
                    guard case .scalar(let keyScalar) = keyNode else {
                        diagnostics.append(.error(keyLocation, "a key must be a plain name, not a list or mapping"))
                        continue
                    }
                    let key = keyScalar.string
                    if let first = seen[key] {
                        diagnostics.append(
                            .error(
                                keyLocation,
                                "duplicate key '\(key)' (first at line \(first.line), column \(first.column))"))
                        continue
                    }
                    seen[key] = keyLocation
                    guard let value = convert(valueNode, depth: depth + 1) else { return nil }
                    entries.append(DocumentEntry(key: key, keyLocation: keyLocation, value: value))
                }
                return .mapping(entries, here)
            }
        }
    }

    /// A scalar typed by YAML's rules, as its resolved tag says.
    static func literal(_ node: Yams.Node, scalar: Yams.Node.Scalar) -> Literal {
        switch node.tag.description {
        case Tag.Name.null.rawValue: return .null
        case Tag.Name.bool.rawValue: return node.bool.map(Literal.bool) ?? .string(scalar.string)
        case Tag.Name.int.rawValue: return node.int.map(Literal.integer) ?? .string(scalar.string)
        case Tag.Name.float.rawValue: return node.float.map(Literal.number) ?? .string(scalar.string)
        default: return .string(scalar.string)
        }
    }

    private static func syntaxError(_ error: YamlError, file: String, language: String) -> Diagnostic {
        switch error {
        case .scanner(let context, let problem, let mark, _), .parser(let context, let problem, let mark, _),
            .composer(let context, let problem, let mark, _):
            var message = "invalid \(language): \(problem)"
            if let context {
                message += " (\(context.text) at line \(context.mark.line), column \(context.mark.column))"
            }
            return .error(location(mark, file: file), message)
        case .reader(let problem, _, _, _):
            return .error(SourceLocation(file: file, line: 1, column: 1), "invalid \(language): \(problem)")
        default:
            return .error(SourceLocation(file: file, line: 1, column: 1), "invalid \(language): \(error)")
        }
    }

    /// Reads one value given on the command line with YAML's rules (`8` is a number, `[1, 2]` a list).
    static func parseValue(_ text: String) -> Literal? {
        if text.isEmpty { return .string("") }
        let (value, diagnostics) = parse(text, file: "")
        guard let value, diagnostics.isEmpty else { return nil }
        return value.literal
    }
}
