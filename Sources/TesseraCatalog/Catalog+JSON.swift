import Foundation
import TesseraCore

extension Catalog {
    /// The catalog as JSON (`tessera nodes --json`): every node with its ports and parameters.
    package var json: String {
        JSON.text(["tessera": "node catalog", "nodes": declarations.map(\.jsonObject)])
    }
}

extension NodeDeclaration {
    package var jsonObject: [String: Any] {
        [
            "op": op, "summary": info.summary, "access": info.access.rawValue, "example": info.example,
            "inputs": inputs.map { input -> [String: Any] in
                var object: [String: Any] = [
                    "name": input.name, "type": input.type.rawValue, "optional": input.isOptional, "doc": input.doc,
                ]
                if input.accepted.count > 1 { object["accepts"] = input.accepted.map(\.rawValue) }
                return object
            },
            "outputs": outputs.map { ["name": $0.name, "type": $0.type.rawValue, "doc": $0.doc] },
            "parameters": parameters.map(\.jsonObject),
        ]
    }
}

extension ParameterDeclaration {
    /// A short machine name for the type: number, integer, boolean, string, choice, path, outputPath,
    /// numbers, rect, numberOrAuto, ratio.
    package var typeKeyword: String {
        switch type {
        case .number: "number"
        case .integer: "integer"
        case .boolean: "boolean"
        case .string: "string"
        case .choice: "choice"
        case .path(let isOutput): isOutput ? "outputPath" : "path"
        case .numbers: "numbers"
        case .rect: "rect"
        case .numberOrAuto: "numberOrAuto"
        case .ratio: "ratio"
        }
    }

    package var jsonObject: [String: Any] {
        var object: [String: Any] = ["name": name, "type": typeKeyword, "required": isRequired, "doc": doc]
        if let defaultValue { object["default"] = defaultValue.jsonObject }
        if case .choice(let words) = type { object["choices"] = words }
        if case .numbers(let count?) = type { object["count"] = count }
        if let range {
            if range.lowerBound.isFinite { object["minimum"] = Literal.number(range.lowerBound).jsonObject }
            if range.upperBound.isFinite { object["maximum"] = Literal.number(range.upperBound).jsonObject }
        }
        if let suggested {
            object["suggestedMinimum"] = Literal.number(suggested.lowerBound).jsonObject
            object["suggestedMaximum"] = Literal.number(suggested.upperBound).jsonObject
        }
        if let unit { object["unit"] = unit }
        if !upstreamTypes.isEmpty { object["from"] = upstreamTypes.map(\.rawValue) }
        return object
    }
}

extension Literal {
    /// The value as a Foundation JSON object; whole numbers become integers.
    package var jsonObject: Any {
        switch self {
        case .null: return NSNull()
        case .bool(let value): return value
        case .integer(let value): return value
        case .number(let value):
            if value == value.rounded(), abs(value) < 1e15 { return Int(value) }
            return value
        case .string(let value): return value
        case .list(let items): return items.map(\.jsonObject)
        case .mapping(let entries): return entries.mapValues(\.jsonObject)
        }
    }
}

package enum JSON {
    /// Pretty, key-sorted JSON text: the same catalog always prints the same bytes.
    package static func text(_ object: Any) -> String {
        let options: JSONSerialization.WritingOptions = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: options) else { return "{}" }
        return String(decoding: data, as: UTF8.self) + "\n"
    }
}

extension NodeDeclaration {
    /// One node of the catalog as JSON (`tessera nodes NAME --json`).
    public var json: String { JSON.text(jsonObject) }
}
