import TesseraCore

/// A node type as the engine sees it: its ``NodeInfo`` plus the parameters and inputs its properties
/// declare, read once by reflection; or the same read from a plugin's catalog (``Plugin``).
public struct NodeDeclaration: Sendable {
    public let info: NodeInfo
    public let inputs: [InputDeclaration]
    public let parameters: [ParameterDeclaration]
    /// The plugin file the node comes from; nil for a node compiled into the program.
    public let origin: String?
    /// The unset wrappers, by name: what the engine types values with and configures nodes from.
    package let parameterFields: [String: any ParameterField]
    package let inputFields: [String: any InputField]
    package let maker: Maker

    /// How a configured node is made: a Swift node type through its `Decodable` initializer, or a
    /// plugin's node from typed parameter values and inputs.
    package enum Maker: Sendable {
        case type(any Node.Type)
        case plugin(
            @Sendable (_ parameters: [String: any ParameterValue], _ inputs: [String: NodeValue]) throws ->
                any ConfiguredNode)
    }

    public var op: String { info.op }
    public var outputs: [OutputDeclaration] { info.outputs }
    public var access: AccessPattern { info.access }

    /// Reads the declaration of `type` from an instance's properties (as swift-argument-parser does).
    public init(_ type: any Node.Type) throws(CatalogError) {
        let info = type.info
        var inputs: [InputDeclaration] = []
        var parameters: [ParameterDeclaration] = []
        var parameterFields: [String: any ParameterField] = [:]
        var inputFields: [String: any InputField] = [:]
        for child in Mirror(reflecting: type.init()).children {
            guard let label = child.label, label.hasPrefix("_") else {
                throw CatalogError(
                    "\(info.op): stored property '\(child.label ?? "?")' is neither a @Parameter nor an @Input")
            }
            let name = String(label.dropFirst())
            if let field = child.value as? any ParameterField {
                var declaration = field.declaration
                declaration.name = name
                parameters.append(declaration)
                parameterFields[name] = field
            } else if let field = child.value as? any InputField {
                var declaration = field.declaration
                declaration.name = name
                inputs.append(declaration)
                inputFields[name] = field
            } else {
                throw CatalogError("\(info.op): stored property '\(name)' is neither a @Parameter nor an @Input")
            }
        }
        try self.init(
            info: info, inputs: inputs, parameters: parameters, parameterFields: parameterFields,
            inputFields: inputFields, origin: nil, maker: .type(type))
    }

    /// A declaration from its parts, checked by the same rules as one read from a node type.
    package init(
        info: NodeInfo, inputs: [InputDeclaration], parameters: [ParameterDeclaration],
        parameterFields: [String: any ParameterField], inputFields: [String: any InputField], origin: String?,
        maker: Maker
    ) throws(CatalogError) {
        self.info = info
        self.inputs = inputs
        self.parameters = parameters
        self.parameterFields = parameterFields
        self.inputFields = inputFields
        self.origin = origin
        self.maker = maker
        try check()
    }

    /// The rules every declaration follows, checked when it is registered.
    private func check() throws(CatalogError) {
        guard Self.isName(op) else { throw CatalogError("'\(op)' is not a valid node name (lowerCamelCase)") }
        var names: Set<String> = ["op"]
        for name in inputs.map(\.name) + parameters.map(\.name) {
            guard names.insert(name).inserted else {
                throw CatalogError("\(op): '\(name)' is declared twice or is reserved")
            }
        }
        guard Set(outputs.map(\.name)).count == outputs.count, outputs.allSatisfy({ Self.isName($0.name) }) else {
            throw CatalogError("\(op): output names must be distinct lowerCamelCase names")
        }
        for parameter in parameters {
            if parameter.doc.isEmpty { throw CatalogError("\(op).\(parameter.name): missing doc sentence") }
            guard let defaultValue = parameter.defaultValue, let field = parameterFields[parameter.name] else {
                continue
            }
            do {
                _ = try field.typed(defaultValue, context: ParameterContext(baseFolder: ""))
            } catch {
                throw CatalogError(
                    "\(op).\(parameter.name): the default \(defaultValue.text) is refused: \(error.message)")
            }
            if let suggested = parameter.suggested, let range = parameter.range,
                suggested.lowerBound < range.lowerBound || suggested.upperBound > range.upperBound
            {
                throw CatalogError("\(op).\(parameter.name): the suggested range lies outside the hard range")
            }
        }
    }

    static func isName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first.properties.isLowercase else { return false }
        return name.unicodeScalars.allSatisfy {
            $0.isASCII && ($0.properties.isAlphabetic || $0.properties.numericType != nil)
        }
    }

    /// `literal` read, type-checked and range-checked as parameter `name` declares.
    package func typedValue(_ literal: Literal, parameter name: String, context: ParameterContext)
        throws(ParameterProblem) -> any ParameterValue
    {
        guard let field = parameterFields[name] else { throw ParameterProblem("\(op) has no parameter '\(name)'") }
        do {
            return try field.typed(literal, context: context)
        } catch {
            throw ParameterProblem("\(name): \(error.message)")
        }
    }

    public func parameter(named name: String) -> ParameterDeclaration? { parameters.first { $0.name == name } }
    public func input(named name: String) -> InputDeclaration? { inputs.first { $0.name == name } }
    public func output(named name: String) -> OutputDeclaration? { outputs.first { $0.name == name } }
}

/// A node type that breaks the declaration rules (a programming error in the node, found at registration).
public struct CatalogError: Error, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// The node types a graph may use, by op name. Validation, `tessera nodes`, the schema and the docs
/// all read this.
public struct Catalog: Sendable {
    /// Sorted by op name.
    public private(set) var declarations: [NodeDeclaration] = []

    public init(_ types: [any Node.Type] = []) throws(CatalogError) {
        for type in types { try register(type) }
    }

    /// Adds a node type; its op name must be new.
    public mutating func register(_ type: any Node.Type) throws(CatalogError) {
        try register(NodeDeclaration(type))
    }

    /// Adds a declared node (a node type's, or a plugin's); its op name must be new.
    public mutating func register(_ declaration: NodeDeclaration) throws(CatalogError) {
        if let other = declarations.first(where: { $0.op == declaration.op }) {
            guard declaration.origin != nil || other.origin != nil else {
                throw CatalogError("two node types are named '\(declaration.op)'")
            }
            let existing = other.origin.map { "the node '\(other.op)' of \($0)" } ?? "the built-in node '\(other.op)'"
            throw CatalogError(
                "\(declaration.origin ?? "a node type"): node '\(declaration.op)' clashes with \(existing); "
                    + "a node name must be unique")
        }
        declarations.append(declaration)
        declarations.sort { $0.op < $1.op }
    }

    public func declaration(op: String) -> NodeDeclaration? { declarations.first { $0.op == op } }
    public var ops: [String] { declarations.map(\.op) }
}

extension Catalog {
    /// The op name closest to a mistyped one, if any is close.
    package func suggestion(for op: String) -> String? { Suggestion.nearest(to: op, in: ops) }
}
