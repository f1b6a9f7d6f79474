import Foundation
import TesseraCore

extension Catalog {
    /// The version of the graph file format the catalog's schema describes (`version: 1`).
    package static let graphVersion = 1

    /// JSON Schema (draft 2020-12) of graph files using this catalog's nodes: YAML and JSON editors
    /// complete and check graphs with it (`# yaml-language-server: $schema=tessera.schema.json`).
    ///
    /// Each node kind is one definition, chosen by `op` with `if`/`then`, holding its inputs (node
    /// references) and parameters (type, range, default and doc; upstream values as `{from: node.port}`).
    public var jsonSchema: String {
        var definitions: [String: Any] = [
            "reference": [
                "type": "string",
                "pattern": "^[A-Za-z_][A-Za-z0-9_-]*(\\.[A-Za-z_][A-Za-z0-9_-]*)?$",
                "description": "A node's first output (photo) or a named output (heat.boxes).",
            ],
            "upstream": [
                "type": "object",
                "properties": ["from": ["$ref": "#/$defs/reference"]],
                "required": ["from"],
                "additionalProperties": false,
                "description": "Takes the parameter's value from another node's output.",
            ],
        ]
        var choices: [[String: Any]] = []
        for declaration in declarations {
            let name = "op-" + declaration.op
            definitions[name] = declaration.schema
            choices.append([
                "if": ["properties": ["op": ["const": declaration.op]], "required": ["op"]],
                "then": ["$ref": "#/$defs/\(name)"],
            ])
        }
        definitions["node"] = [
            "type": "object",
            "required": ["op"],
            "properties": [
                "op": ["enum": ops, "description": "The kind of node (`tessera nodes` lists them)."]
            ],
            "allOf": choices,
        ]
        let schema: [String: Any] = [
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "title": "Tessera graph",
            "description": "An image pipeline for Tessera: nodes by name, each an op with its inputs and parameters.",
            "type": "object",
            "required": ["version", "nodes"],
            "additionalProperties": false,
            "properties": [
                "$schema": ["type": "string", "description": "Where editors find this schema (for JSON graphs)."],
                "version": ["const": Catalog.graphVersion, "description": "The graph format's version."],
                "nodes": [
                    "type": "object",
                    "minProperties": 1,
                    "propertyNames": ["pattern": "^[A-Za-z_][A-Za-z0-9_-]*$"],
                    "additionalProperties": ["$ref": "#/$defs/node"],
                    "description": "The nodes, by name; a node reads other nodes by naming them in its inputs.",
                ],
            ],
            "$defs": definitions,
        ]
        return JSON.text(schema)
    }
}

extension NodeDeclaration {
    var schema: [String: Any] {
        var properties: [String: Any] = ["op": ["const": op]]
        for input in inputs {
            properties[input.name] = [
                "$ref": "#/$defs/reference",
                "description": "\(input.doc) (\(input.typePhrase)\(input.isOptional ? ", optional" : ""))",
            ]
        }
        for parameter in parameters { properties[parameter.name] = parameter.schema }
        let required =
            ["op"] + inputs.filter { !$0.isOptional }.map(\.name)
            + parameters.filter(\.isRequired).map(\.name)
        return [
            "type": "object",
            "description": info.summary,
            "properties": properties,
            "required": required,
            "additionalProperties": false,
        ]
    }
}

extension ParameterDeclaration {
    /// One sentence for editors: the doc, then unit, range and suggested range.
    var fullDoc: String {
        var parts = [doc]
        if let unit { parts.append("Unit: \(unit).") }
        if let suggested { parts.append("Suggested: \(suggested.rangeText).") }
        if !upstreamTypes.isEmpty {
            parts.append("May come from \(upstreamTypes.phrase) ({from: node.port}).")
        }
        return parts.joined(separator: " ")
    }

    var schema: [String: Any] {
        var value: [String: Any]
        var bounds: [String: Any] = [:]
        if let range {
            if range.lowerBound.isFinite { bounds["minimum"] = Literal.number(range.lowerBound).jsonObject }
            if range.upperBound.isFinite { bounds["maximum"] = Literal.number(range.upperBound).jsonObject }
        }
        switch type {
        case .number: value = bounds.merging(["type": "number"]) { $1 }
        case .integer: value = bounds.merging(["type": "integer"]) { $1 }
        case .boolean: value = ["type": "boolean"]
        case .string: value = ["type": "string"]
        case .path: value = ["type": "string", "minLength": 1]
        case .choice(let words):
            // A word that reads as a number (a depth of 16) may be written unquoted.
            value = ["enum": words.flatMap { word -> [Any] in Int(word).map { [word, $0] } ?? [word] }]
        case .numbers(let count):
            value = ["type": "array", "items": bounds.merging(["type": "number"]) { $1 }]
            if let count {
                value["minItems"] = count
                value["maxItems"] = count
            }
        case .rect:
            value = ["type": "array", "items": ["type": "integer"], "minItems": 4, "maxItems": 4]
        case .numberOrAuto:
            value = ["anyOf": [bounds.merging(["type": "number"]) { $1 }, ["const": "auto"]]]
        case .ratio:
            // The range bounds the number form only: a pattern cannot bound the quotient of W:H.
            var number = bounds.merging(["type": "number"]) { $1 }
            if (range?.lowerBound ?? 0) <= 0 { number["exclusiveMinimum"] = 0 }
            value = ["anyOf": [number, ["type": "string", "pattern": Ratio.schemaPattern]]]
        }
        var schema: [String: Any] = upstreamTypes.isEmpty ? value : ["anyOf": [value, ["$ref": "#/$defs/upstream"]]]
        schema["description"] = fullDoc
        if let defaultValue, defaultValue != .null { schema["default"] = defaultValue.jsonObject }
        return schema
    }
}
