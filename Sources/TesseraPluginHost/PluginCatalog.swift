import TesseraCatalog
import CTesseraPlugin
import Foundation
import TesseraCore

/// Reads a plugin's catalog JSON (the format of `tessera nodes --json`) into the declarations a
/// ``Catalog`` holds, so a plugin's nodes are validated, listed, documented and put in the schema by
/// the same code as a built-in's.
enum PluginCatalog {
    struct File: Decodable {
        var nodes: [Entry]?
        /// Set by a plugin that cannot declare its nodes (the Swift SDK, when a node breaks the rules).
        var error: String?
    }

    struct Entry: Decodable {
        var op: String
        var summary: String
        var access: String
        var example: String?
        var inputs: [Port]?
        var outputs: [Port]?
        var parameters: [ParameterEntry]?
    }

    struct Port: Decodable {
        var name: String
        var type: String
        var optional: Bool?
        var doc: String?
    }

    struct ParameterEntry: Decodable {
        var name: String
        var type: String
        var doc: String
        /// Absent: required. `.null`: optional.
        var defaultValue: Literal?
        var choices: [String]?
        var minimum: Double?
        var maximum: Double?
        var suggestedMinimum: Double?
        var suggestedMaximum: Double?
        var unit: String?

        enum CodingKeys: String, CodingKey {
            case name, type, doc, choices, minimum, maximum, suggestedMinimum, suggestedMaximum, unit
            case defaultValue = "default"
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            name = try container.decode(String.self, forKey: .name)
            type = try container.decode(String.self, forKey: .type)
            doc = try container.decode(String.self, forKey: .doc)
            if container.contains(.defaultValue) {
                defaultValue =
                    try container.decodeNil(forKey: .defaultValue)
                    ? .null : try container.decode(JSONLiteral.self, forKey: .defaultValue).literal
            }
            choices = try container.decodeIfPresent([String].self, forKey: .choices)
            minimum = try container.decodeIfPresent(Double.self, forKey: .minimum)
            maximum = try container.decodeIfPresent(Double.self, forKey: .maximum)
            suggestedMinimum = try container.decodeIfPresent(Double.self, forKey: .suggestedMinimum)
            suggestedMaximum = try container.decodeIfPresent(Double.self, forKey: .suggestedMaximum)
            unit = try container.decodeIfPresent(String.self, forKey: .unit)
        }
    }

    /// The declarations of the catalog text of the plugin at `path`; `plugin` runs their nodes (nil: the
    /// catalog was read without its library, and its nodes cannot run).
    static func declarations(from json: String, path: String, plugin: Plugin?, version: Int) throws(PluginError)
        -> [NodeDeclaration]
    {
        let file: File
        do {
            file = try JSONDecoder().decode(File.self, from: Data(json.utf8))
        } catch {
            throw PluginError(path, "its catalog is not a valid node catalog: \(describe(error))")
        }
        if let error = file.error { throw PluginError(path, "its nodes cannot be declared: \(error)") }
        guard let nodes = file.nodes else { throw PluginError(path, "its catalog has no 'nodes'") }
        var result: [NodeDeclaration] = []
        for entry in nodes {
            do {
                result.append(try declaration(entry, path: path, plugin: plugin, version: version))
            } catch {
                throw PluginError(path, error.description)
            }
        }
        return result
    }

    /// The types a plugin's ports may have: images in version 1; values too from version 2.
    static func portTypes(version: Int) -> [PortType] {
        version >= 2 ? PortType.allCases : [.image]
    }

    static func declaration(_ entry: Entry, path: String, plugin: Plugin?, version: Int) throws(CatalogError)
        -> NodeDeclaration
    {
        let op = entry.op
        let kernelAccess: [AccessPattern] = [.point, .area, .geometry, .source]
        let allowed = version >= 2 ? kernelAccess + [.global] : kernelAccess
        guard let access = AccessPattern(rawValue: entry.access), allowed.contains(access) else {
            throw CatalogError(
                "\(op): access '\(entry.access)' is not one a plugin node can have ("
                    + allowed.map(\.rawValue).joined(separator: ", ") + ")")
        }
        let types = portTypes(version: version)
        func portType(_ port: Port, _ role: String) throws(CatalogError) -> PortType {
            guard let type = PortType(rawValue: port.type), types.contains(type) else {
                throw CatalogError(
                    "\(op).\(port.name): plugin nodes \(role) " + types.map(\.rawValue).joined(separator: ", ")
                        + ", not '\(port.type)'" + (version < 2 ? " (values need plugin ABI version 2)" : ""))
            }
            return type
        }
        var inputs: [InputDeclaration] = []
        var inputFields: [String: any InputField] = [:]
        for port in entry.inputs ?? [] {
            let optional = port.optional == true
            let doc = port.doc ?? ""
            let field: any InputField
            switch try portType(port, "read") {
            case .image: field = optional ? Input<Image?>(doc: doc) : Input<Image>(doc: doc)
            case .boxes: field = optional ? Input<[Box]?>(doc: doc) : Input<[Box]>(doc: doc)
            case .contours: field = optional ? Input<Contours?>(doc: doc) : Input<Contours>(doc: doc)
            case .number: field = optional ? Input<Double?>(doc: doc) : Input<Double>(doc: doc)
            case .faces: field = optional ? Input<[Face]?>(doc: doc) : Input<[Face]>(doc: doc)
            case .text: field = optional ? Input<[TextLine]?>(doc: doc) : Input<[TextLine]>(doc: doc)
            case .hands: field = optional ? Input<[Hand]?>(doc: doc) : Input<[Hand]>(doc: doc)
            case .barcodes: field = optional ? Input<[Barcode]?>(doc: doc) : Input<[Barcode]>(doc: doc)
            case .bodies: field = optional ? Input<[Body]?>(doc: doc) : Input<[Body]>(doc: doc)
            case .rectangles:
                field = optional ? Input<[Quadrilateral]?>(doc: doc) : Input<[Quadrilateral]>(doc: doc)
            }
            var declaration = field.declaration
            declaration.name = port.name
            inputs.append(declaration)
            inputFields[port.name] = field
        }
        guard inputs.count <= Int(TESSERA_MAX_INPUTS) else {
            throw CatalogError("\(op): a plugin node reads at most \(TESSERA_MAX_INPUTS) inputs")
        }
        var outputs: [OutputDeclaration] = []
        for port in entry.outputs ?? [] {
            outputs.append(OutputDeclaration(port.name, try portType(port, "make"), doc: port.doc ?? ""))
        }
        if access == .global {
            guard !outputs.isEmpty, outputs.count <= Int(TESSERA_MAX_OUTPUTS) else {
                throw CatalogError("\(op): a global plugin node makes 1 to \(TESSERA_MAX_OUTPUTS) outputs")
            }
        } else {
            guard outputs.count == 1, outputs[0].type == .image else {
                throw CatalogError(
                    "\(op): a plugin node with access '\(access.rawValue)' makes exactly one image output")
            }
        }
        var parameters: [ParameterDeclaration] = []
        var parameterFields: [String: any ParameterField] = [:]
        for parameter in entry.parameters ?? [] {
            let field = try Self.field(parameter, op: op)
            var declaration = field.declaration
            declaration.name = parameter.name
            parameters.append(declaration)
            parameterFields[parameter.name] = field
        }
        let declaredOutputs = outputs
        let info = NodeInfo(
            op: op, summary: entry.summary, access: access, outputs: declaredOutputs, example: entry.example ?? "",
            readsRegions: access == .global && plugin?.table.run_v3 != nil)
        let declared = (inputs: inputs, parameters: parameters)
        return try NodeDeclaration(
            info: info, inputs: inputs, parameters: parameters, parameterFields: parameterFields,
            inputFields: inputFields, origin: path,
            maker: .plugin { values, connected in
                guard let plugin else {
                    throw NodeConfigurationError("\(op) was declared by a catalog read without its plugin library")
                }
                return PluginNode(
                    plugin: plugin, op: op, access: access, parameters: declared.parameters, inputs: declared.inputs,
                    outputs: declaredOutputs, values: values, connected: connected)
            })
    }

    /// The wrapper a built-in would declare for the parameter: a ``Parameter`` of the matching Swift type
    /// (a ``ChoiceField`` for a choice, whose words are data here rather than an enum).
    static func field(_ entry: ParameterEntry, op: String) throws(CatalogError) -> any ParameterField {
        var range: ClosedRange<Double>?
        if entry.minimum != nil || entry.maximum != nil {
            let low = entry.minimum ?? -.infinity
            let high = entry.maximum ?? .infinity
            guard low <= high else { throw CatalogError("\(op).\(entry.name): minimum above maximum") }
            range = low...high
        }
        var suggested: ClosedRange<Double>?
        if let low = entry.suggestedMinimum, let high = entry.suggestedMaximum {
            guard low <= high else { throw CatalogError("\(op).\(entry.name): suggested minimum above maximum") }
            suggested = low...high
        }
        let form = FieldForm(
            op: op, name: entry.name, doc: entry.doc, defaultValue: entry.defaultValue, range: range,
            suggested: suggested, unit: entry.unit)
        switch entry.type {
        case "number": return try form.make(Double.self)
        case "integer": return try form.make(Int.self)
        case "boolean": return try form.make(Bool.self)
        case "string": return try form.make(String.self)
        case "path": return try form.make(FilePath.self)
        case "numbers": return try form.make([Double].self)
        case "rect": return try form.make(Rect.self)
        case "numberOrAuto": return try form.make(NumberOrAuto.self)
        case "ratio": return try form.make(Ratio.self)
        case "choice":
            guard let words = entry.choices, !words.isEmpty else {
                throw CatalogError("\(op).\(entry.name): a choice needs its 'choices'")
            }
            return ChoiceField(words: words, doc: entry.doc, defaultValue: entry.defaultValue)
        default:
            throw CatalogError(
                "\(op).\(entry.name): unknown parameter type '\(entry.type)' "
                    + "(number, integer, boolean, string, choice, path, numbers, rect, numberOrAuto, ratio)")
        }
    }

    struct FieldForm {
        var op, name, doc: String
        var defaultValue: Literal?
        var range, suggested: ClosedRange<Double>?
        var unit: String?

        func make<Value: ParameterValue>(_ type: Value.Type) throws(CatalogError) -> any ParameterField {
            guard let defaultValue else {
                return Parameter<Value>(doc: doc, range: range, suggested: suggested, unit: unit)
            }
            if defaultValue == .null {
                return Parameter<Value?>(wrappedValue: nil, doc: doc, range: range, suggested: suggested, unit: unit)
            }
            do {
                let value = try Value(literal: defaultValue, context: ParameterContext(baseFolder: ""))
                return Parameter(wrappedValue: value, doc: doc, range: range, suggested: suggested, unit: unit)
            } catch {
                throw CatalogError("\(op).\(name): the default \(defaultValue.text) is refused: \(error.message)")
            }
        }
    }

    static func describe(_ error: any Error) -> String {
        switch error {
        case DecodingError.dataCorrupted(let context): return context.debugDescription
        case DecodingError.keyNotFound(let key, let context):
            return "missing '\(key.stringValue)'" + at(context)
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            return context.debugDescription + at(context)
        default: return "\(error)"
        }
    }

    static func at(_ context: DecodingError.Context) -> String {
        let path = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
        return path.isEmpty ? "" : " at \(path)"
    }
}

/// A choice parameter whose words come from data (a plugin's catalog) instead of a Swift enum: it reads
/// and checks literals as ``ParameterChoice`` does, and holds the word as a `String`.
struct ChoiceField: ParameterField {
    let declaration: ParameterDeclaration

    init(words: [String], doc: String, defaultValue: Literal?) {
        var declaration = Parameter<String>(doc: doc).declaration
        declaration.type = .choice(words)
        declaration.defaultValue = defaultValue
        self.declaration = declaration
    }

    init(from decoder: any Decoder) throws {
        throw NodeConfigurationError("parameters are set by the Tessera engine")
    }

    func typed(_ literal: Literal, context: ParameterContext) throws(ParameterProblem) -> any ParameterValue {
        guard case .choice(let words) = declaration.type else { throw ParameterProblem("not a choice") }
        let text: String
        switch literal {
        case .string(let value): text = value
        case .integer, .number: text = literal.text
        default: throw ParameterProblem("expected one of \(words.joined(separator: ", ")), found \(literal.kindName)")
        }
        guard words.contains(text) else {
            throw ParameterProblem("'\(text)' is not one of " + words.joined(separator: ", "))
        }
        return text
    }

    func typed(upstream: NodeValue) throws(ParameterProblem) -> any ParameterValue {
        throw ParameterProblem("cannot take its value from \(upstream.type.phrase)")
    }

    func setting(_ value: any ParameterValue) -> ChoiceField? { value is String ? self : nil }
}
