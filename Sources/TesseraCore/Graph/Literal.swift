/// A parameter value as a graph file or the command line writes it, before it is given a type.
///
/// The graph parser turns YAML scalars into literals by YAML 1.2's core schema (`8` is an integer,
/// `"8"`, `4:3` and `yes` strings, `true` a boolean), and JSON values by JSON's own types; a
/// ``ParameterValue`` then checks and converts one.
public enum Literal: Sendable, Equatable {
    case null
    case bool(Bool)
    case integer(Int)
    case number(Double)
    case string(String)
    case list([Literal])
    case mapping([String: Literal])

    /// What kind of value this is, for messages: "a number", "a string", ...
    package var kindName: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .integer, .number: "a number"
        case .string: "a string"
        case .list: "a list"
        case .mapping: "a mapping"
        }
    }

    /// The value as a number, if it is one.
    public var number: Double? {
        switch self {
        case .integer(let value): Double(value)
        case .number(let value): value
        default: nil
        }
    }

    /// The value in YAML flow syntax, as a user would write it: `2.5`, `[0, 0, 0, 2]`, `photo.png`.
    public var text: String {
        switch self {
        case .null: return "null"
        case .bool(let value): return value ? "true" : "false"
        case .integer(let value): return String(value)
        case .number(let value):
            if value.isInfinite { return value < 0 ? "-.inf" : ".inf" }
            if value.isNaN { return ".nan" }
            if value == value.rounded(), abs(value) < 1e15 { return String(Int(value)) }
            return String(value)
        case .string(let value): return value
        case .list(let items): return "[" + items.map(\.text).joined(separator: ", ") + "]"
        case .mapping(let entries):
            let body = entries.keys.sorted().map { "\($0): \(entries[$0]?.text ?? "")" }
            return "{" + body.joined(separator: ", ") + "}"
        }
    }

}

// Literals written in Swift, for graphs built in code: `["input": "photo", "sigma": 3]`.
extension Literal: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral, ExpressibleByNilLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .integer(value) }
    public init(floatLiteral value: Double) { self = .number(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: Literal...) { self = .list(elements) }
    public init(nilLiteral: ()) { self = .null }
}

/// `Literal` from JSON, with JSON's own types (JSONDecoder does not read a number as a boolean): plugin
/// catalogs and parameters, and values read back (``ValueJSON/parse(_:as:)``).
package struct JSONLiteral: Decodable, Sendable {
    package var literal: Literal

    package init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            literal = .null
        } else if let value = try? container.decode(Bool.self) {
            literal = .bool(value)
        } else if let value = try? container.decode(Int.self) {
            literal = .integer(value)
        } else if let value = try? container.decode(Double.self) {
            literal = .number(value)
        } else if let value = try? container.decode(String.self) {
            literal = .string(value)
        } else if let items = try? container.decode([JSONLiteral].self) {
            literal = .list(items.map(\.literal))
        } else if let entries = try? container.decode([String: JSONLiteral].self) {
            literal = .mapping(entries.mapValues(\.literal))
        } else {
            // JSON's grammar was read: what is left is a number no Double holds (1e999).
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "a number out of range somewhere in it")
        }
    }
}
