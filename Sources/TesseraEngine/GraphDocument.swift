import TesseraCore
import Yams

/// A graph file's YAML (or JSON) tree with the position of every value and key, the input of validation.
indirect enum DocumentValue: Sendable {
    case scalar(Literal, SourceLocation)
    case list([DocumentValue], SourceLocation)
    case mapping([DocumentEntry], SourceLocation)

    var location: SourceLocation {
        switch self {
        case .scalar(_, let location), .list(_, let location), .mapping(_, let location): location
        }
    }

    /// The value without positions.
    var literal: Literal {
        switch self {
        case .scalar(let literal, _): literal
        case .list(let items, _): .list(items.map(\.literal))
        case .mapping(let entries, _):
            .mapping(Dictionary(entries.map { ($0.key, $0.value.literal) }, uniquingKeysWith: { first, _ in first }))
        }
    }

    var string: String? {
        if case .scalar(.string(let text), _) = self { return text }
        return nil
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
    /// Parses `text`. Syntax errors end parsing; duplicate keys are all reported and the later ones dropped.
    static func parse(_ text: String, file: String) -> (DocumentValue?, [Diagnostic]) {
        // JSON allows tabs wherever YAML allows spaces; libyaml does not. Outside strings (where JSON
        // forbids raw tabs) a tab is only whitespace, and one space keeps every column the same.
        let isJSON = file.lowercased().hasSuffix(".json")
        let source = isJSON ? text.replacingOccurrences(of: "\t", with: " ") : text
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
        var diagnostics: [Diagnostic] = []
        let value = convert(node, file: file, diagnostics: &diagnostics)
        return (value, diagnostics)
    }

    private static func location(_ mark: Mark?, file: String) -> SourceLocation {
        SourceLocation(file: file, line: mark?.line ?? 1, column: mark?.column ?? 1)
    }

    private static func convert(_ node: Yams.Node, file: String, diagnostics: inout [Diagnostic]) -> DocumentValue {
        let here = location(node.mark, file: file)
        switch node {
        case .scalar(let scalar):
            return .scalar(literal(node, scalar: scalar), here)
        case .sequence(let sequence):
            return .list(sequence.map { convert($0, file: file, diagnostics: &diagnostics) }, here)
        case .mapping(let mapping):
            var entries: [DocumentEntry] = []
            var seen: [String: SourceLocation] = [:]
            for (keyNode, valueNode) in mapping {
                let keyLocation = location(keyNode.mark, file: file)
                guard case .scalar(let keyScalar) = keyNode else {
                    diagnostics.append(.error(keyLocation, "a key must be a plain name, not a list or mapping"))
                    continue
                }
                let key = keyScalar.string
                if let first = seen[key] {
                    diagnostics.append(
                        .error(
                            keyLocation, "duplicate key '\(key)' (first at line \(first.line), column \(first.column))")
                    )
                    continue
                }
                seen[key] = keyLocation
                entries.append(
                    DocumentEntry(
                        key: key, keyLocation: keyLocation,
                        value: convert(valueNode, file: file, diagnostics: &diagnostics)))
            }
            return .mapping(entries, here)
        }
    }

    /// A scalar typed by YAML's rules, as its resolved tag says.
    private static func literal(_ node: Yams.Node, scalar: Yams.Node.Scalar) -> Literal {
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
