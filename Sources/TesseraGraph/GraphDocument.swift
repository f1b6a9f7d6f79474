internal import CYaml  // libyaml's event parser, for the nesting limit; not part of the module's interface
import TesseraCatalog
import TesseraCore
import Yams

/// A graph file's YAML (or JSON) tree with the position of every value and key, the input of validation.
indirect enum DocumentValue: Sendable {
    /// A scalar typed by YAML 1.2's core schema or by JSON, with its text as written (`True` is a boolean
    /// whose text is "True").
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

    /// The text of a plain scalar of any type, for names: a node called `true` or `null` is still a name.
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

/// Reads YAML (by YAML 1.2's core schema) and strict JSON into a ``DocumentValue``, keeping positions.
enum DocumentParser {
    /// Deeper nesting than this is refused: no graph needs it, and recursion over it would overflow the stack.
    static let maximumDepth = 200
    /// Values in the document once aliases are expanded: refuses "billion laughs" files.
    static let maximumValues = 1_000_000

    /// Parses `text`: strict JSON when `file` ends in `.json`, YAML otherwise. Syntax errors end parsing;
    /// duplicate keys are all reported and the later ones dropped.
    static func parse(_ text: String, file: String) -> (DocumentValue?, [Diagnostic]) {
        if file.lowercased().hasSuffix(".json") { return parseJSON(text, file: file) }
        return parseYAML(text, file: file)
    }

    /// Parses YAML, its plain scalars typed by YAML 1.2's core schema (``coreSchema``).
    static func parseYAML(_ text: String, file: String) -> (DocumentValue?, [Diagnostic]) {
        // Yams composes a tree by recursion, once per level: measure the nesting first, with libyaml's own
        // parser, which keeps its state on the heap.
        if let refused = outsideLimits(text) {
            let location = SourceLocation(file: file, line: refused.line, column: refused.column)
            return (nil, [.error(location, refused.message)])
        }
        let node: Yams.Node?
        do {
            node = try Yams.compose(yaml: text, coreSchema)
        } catch let error as YamlError {
            return (nil, [syntaxError(error, file: file, text: text)])
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

    /// Where the text first nests collections more than ``maximumDepth`` deep, or first holds more than
    /// ``maximumValues`` values, before or once its aliases are expanded, with the message saying which;
    /// nil when it does none of these, or has a syntax error before (composing it reports that).
    ///
    /// This reads libyaml's event stream (mapping and sequence starts and ends, scalars, aliases), the
    /// parser Yams itself runs, so it counts nesting exactly as the composer will meet it: flow brackets,
    /// block indentation, `- - -` and `? ` keys on one line, with quotes, escapes, comments and block
    /// scalars read by YAML's rules, not guessed by a scan of the characters (which an apostrophe in a
    /// comment once fooled, letting a 10 KB file overflow the stack). Each anchor's value is counted as it
    /// ends, so an alias counts what it would expand to without expanding it: a "billion laughs" file is
    /// refused as soon as its count passes the limit, not after composing a million values.
    ///
    /// - Cost: one pass over the text with libyaml; memory for its stacks and one count per anchor, no tree.
    static func outsideLimits(_ text: String) -> (line: Int, column: Int, message: String)? {
        var parser = yaml_parser_t()
        guard yaml_parser_initialize(&parser) == 1 else { return nil }
        defer { yaml_parser_delete(&parser) }
        var bytes = Array(text.utf8)
        return bytes.withUnsafeMutableBufferPointer { buffer in
            yaml_parser_set_encoding(&parser, YAML_UTF8_ENCODING)
            yaml_parser_set_input_string(&parser, buffer.baseAddress, buffer.count)
            var values = 0
            // Values once aliases are expanded; the collections open (the count when each began, and its
            // anchor); what each anchor's value expands to.
            var expanded = 0
            var open: [(start: Int, anchor: String?)] = []
            var anchored: [String: Int] = [:]
            func name(_ anchor: UnsafeMutablePointer<yaml_char_t>?) -> String? {
                anchor.map { String(cString: $0) }
            }
            while true {
                var event = yaml_event_t()
                guard yaml_parser_parse(&parser, &event) == 1 else { return nil }
                defer { yaml_event_delete(&event) }
                let (line, column) = (Int(event.start_mark.line) + 1, Int(event.start_mark.column) + 1)
                switch event.type {
                case YAML_SEQUENCE_START_EVENT, YAML_MAPPING_START_EVENT:
                    let anchor =
                        event.type == YAML_SEQUENCE_START_EVENT
                        ? name(event.data.sequence_start.anchor) : name(event.data.mapping_start.anchor)
                    open.append((expanded, anchor))
                    values += 1
                    expanded += 1
                    if open.count > maximumDepth {
                        return (line, column, "the file nests values more than \(maximumDepth) levels deep")
                    }
                case YAML_SEQUENCE_END_EVENT, YAML_MAPPING_END_EVENT:
                    if let (start, anchor) = open.popLast(), let anchor { anchored[anchor] = expanded - start }
                case YAML_SCALAR_EVENT:
                    values += 1
                    expanded += 1
                    if let anchor = name(event.data.scalar.anchor) { anchored[anchor] = 1 }
                case YAML_ALIAS_EVENT:
                    values += 1
                    expanded += name(event.data.alias.anchor).flatMap { anchored[$0] } ?? 1
                case YAML_STREAM_END_EVENT:
                    return nil
                default:
                    break
                }
                if values > maximumValues {
                    return (line, column, "the file holds more than \(maximumValues) values")
                }
                if expanded > maximumValues {
                    return (
                        line, column, "the file holds more than \(maximumValues) values once its aliases are expanded"
                    )
                }
            }
        }
    }

    static func location(_ mark: Mark?, file: String) -> SourceLocation {
        SourceLocation(file: file, line: mark?.line ?? 1, column: mark?.column ?? 1)
    }

    /// Turns Yams nodes into ``DocumentValue``s, finding duplicate keys and counting values.
    private struct Converter {
        let file: String
        var diagnostics: [Diagnostic] = []
        var values = 0

        /// nil when the document is too deep or too large, or a scalar does not fit its tag (with an error).
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
                let tag = node.tag.description
                guard let literal = DocumentParser.literal(scalar.string, tag: Tag.Name(rawValue: tag)) else {
                    // As a constructor failing: the value has no type to check further.
                    let shown = tag.hasPrefix("tag:yaml.org,2002:") ? "!!" + tag.dropFirst(18) : tag
                    diagnostics.append(.error(here, "invalid YAML: '\(scalar.string)' does not fit its tag \(shown)"))
                    return nil
                }
                return .scalar(literal, text: scalar.string, here)
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

    /// YAML 1.2's core schema, as the YAML language server and most users read YAML: only `true`/`false`
    /// (any case style) are booleans, only `null`/`~`/empty are null, `017` is decimal, `0o17` octal,
    /// `0x1F` hex, and `4:3` and `yes` are strings. (Yams' default resolver follows YAML 1.1, where `4:3`
    /// is the base-60 number 243 and `yes` is true.) Explicit tags (`!!str 5`) and quoted scalars keep
    /// their own tags; this resolves plain scalars without one.
    // Yams does not mark Resolver Sendable; it is immutable (its rules are `let`s of regular expressions,
    // which match from any thread), so sharing one is safe.
    nonisolated(unsafe) static let coreSchema: Resolver = {
        do {
            return try Resolver.basic
                .appending(.null, "^(?:~|null|Null|NULL|)$")
                .appending(.bool, "^(?:true|True|TRUE|false|False|FALSE)$")
                .appending(.int, "^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$")
                .appending(
                    .float,
                    "^(?:[-+]?(?:\\.[0-9]+|[0-9]+(?:\\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\\.(?:inf|Inf|INF)"
                        + "|\\.(?:nan|NaN|NAN))$")
        } catch {
            preconditionFailure("the core schema's patterns are valid: \(error)")
        }
    }()

    /// A scalar typed by its tag, as ``coreSchema`` resolved it or the file wrote it (`!!int "5"` is 5); nil
    /// when the text is not of its explicit tag (`!!int abc`). The text is converted here by the core
    /// schema's rules, never by Yams' YAML 1.1 constructor (which reads `017` as octal).
    static func literal(_ text: String, tag: Tag.Name) -> Literal? {
        let implicit = coreSchema.resolveTag(of: Node.scalar(.init(text)))
        switch tag {
        case .null: return implicit == .null ? .null : nil
        case .bool: return implicit == .bool ? .bool(text.lowercased() == "true") : nil
        case .int: return implicit == .int ? integer(text) : nil
        case .float:
            // The core schema's float pattern includes decimal integers, not 0o or 0x ones.
            let isDecimal = implicit == .int && !text.hasPrefix("0o") && !text.hasPrefix("0x")
            return implicit == .float || isDecimal ? number(text).map(Literal.number) : nil
        default: return .string(text)  // strings, and tags Tessera has no type for (!!timestamp): their text
        }
    }

    /// A core schema integer: decimal with an optional sign, `0o` octal or `0x` hex. One too large for
    /// `Int` is a number.
    private static func integer(_ text: String) -> Literal? {
        let radix = text.hasPrefix("0o") ? 8 : text.hasPrefix("0x") ? 16 : 10
        let digits = radix == 10 ? Substring(text) : text.dropFirst(2)
        if let value = Int(digits, radix: radix) { return .integer(value) }
        if radix == 10 { return Double(text).map(Literal.number) }
        var value = 0.0
        for digit in digits {
            guard let digitValue = digit.hexDigitValue, digitValue < radix else { return nil }
            value = value * Double(radix) + Double(digitValue)
        }
        return .number(value)
    }

    /// A core schema float, `.inf` and `.nan` included.
    private static func number(_ text: String) -> Double? {
        switch text {
        case ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF": .infinity
        case "-.inf", "-.Inf", "-.INF": -.infinity
        case ".nan", ".NaN", ".NAN": .nan
        default: Double(text)
        }
    }

    private static func syntaxError(_ error: YamlError, file: String, text: String) -> Diagnostic {
        switch error {
        case .scanner(let context, let problem, let mark, _), .parser(let context, let problem, let mark, _),
            .composer(let context, let problem, let mark, _):
            var message = "invalid YAML: \(problem)"
            if let context {
                message += " (\(context.text) at line \(context.mark.line), column \(context.mark.column))"
            }
            // Braces are YAML's flow mappings: an unquoted output template (`out/{stem}.png` inside
            // `{ ... }`) breaks the line it is on.
            let line =
                text.split(separator: "\n", omittingEmptySubsequences: false).dropFirst(mark.line - 1).first ?? ""
            if templateFields.contains(where: { line.contains("{\($0)") }) {
                message += "; quote a path with {stem}, {dir} and the like: path: \"out/{stem}.png\""
            }
            return .error(location(mark, file: file), message)
        case .reader(let problem, _, _, _):
            return .error(SourceLocation(file: file, line: 1, column: 1), "invalid YAML: \(problem)")
        default:
            return .error(SourceLocation(file: file, line: 1, column: 1), "invalid YAML: \(error)")
        }
    }

    /// The fields of batch output templates (`{index:5}` too), which a YAML error's hint looks for.
    private static let templateFields = ["stem}", "name}", "ext}", "dir}", "index"]

    /// Reads one value given on the command line with YAML's rules (`8` is a number, `[1, 2]` a list,
    /// `4:3` and `yes` strings), whatever the graph file's language. Text that YAML reads as a mapping
    /// (`4:`, `a: b`) is taken as a string: no parameter takes a mapping, and its type's message then
    /// shows the text as written.
    static func parseValue(_ text: String) -> Literal? {
        if text.isEmpty { return .string("") }
        let (value, diagnostics) = parseYAML(text, file: "")
        guard let value, diagnostics.isEmpty else { return nil }
        if case .mapping = value { return .string(text) }
        return value.literal
    }
}
