/// Everything a node parameter declares, read once from its ``Parameter`` wrapper: validation, the
/// catalog, the docs and the JSON Schema all come from here.
public struct ParameterDeclaration: Sendable {
    /// The property's name, which is also the key in graph files. Filled in from the property.
    public var name: String
    public var type: ParameterType
    /// The property's initial value; nil makes the parameter required.
    public var defaultValue: Literal?
    /// Values outside this range are refused.
    public var range: ClosedRange<Double>?
    /// The range that makes sense for most uses (a slider's range in a user interface).
    public var suggested: ClosedRange<Double>?
    public var unit: String?
    /// One sentence: what the parameter does.
    public var doc: String
    /// Port types whose output may supply the value.
    public var upstreamTypes: [PortType]

    public var isRequired: Bool { defaultValue == nil }
}

/// Declares a node parameter: its type (the property's), default (the initial value), hard range,
/// suggested range, unit and a doc sentence, in one place.
///
///     @Parameter(doc: "Standard deviation of the Gaussian.", range: 0...1000, suggested: 0...100, unit: "px")
///     var sigma = 2.0
///
/// A parameter without an initial value is required. The engine sets the value from the graph
/// before the node runs.
@propertyWrapper
public struct Parameter<Value: ParameterValue>: ParameterField {
    public let declaration: ParameterDeclaration
    private var value: Value?

    public var wrappedValue: Value {
        get {
            guard let value else {
                preconditionFailure("required parameter read before the engine set it")
            }
            return value
        }
        set { value = newValue }
    }

    public init(
        wrappedValue: Value, doc: String, range: ClosedRange<Double>? = nil,
        suggested: ClosedRange<Double>? = nil, unit: String? = nil
    ) {
        self.init(value: wrappedValue, doc: doc, range: range, suggested: suggested, unit: unit)
    }

    /// A required parameter: the graph must set it.
    public init(
        doc: String, range: ClosedRange<Double>? = nil, suggested: ClosedRange<Double>? = nil, unit: String? = nil
    ) {
        self.init(value: nil, doc: doc, range: range, suggested: suggested, unit: unit)
    }

    private init(
        value: Value?, doc: String, range: ClosedRange<Double>?, suggested: ClosedRange<Double>?, unit: String?
    ) {
        var type = Value.parameterType
        // A list's default fixes its length; an optional list without a value (nil) leaves it open.
        if case .numbers = type, let value, case .list = value.literal {
            type = .numbers(count: value.rangeCheckedNumbers.count)
        }
        declaration = ParameterDeclaration(
            name: "", type: type, defaultValue: value?.literal, range: range, suggested: suggested, unit: unit,
            doc: doc, upstreamTypes: Value.upstreamTypes)
        self.value = value
    }

    /// Nodes are configured by the engine, never decoded from another format.
    public init(from decoder: any Decoder) throws {
        throw NodeConfigurationError("parameters are set by the Tessera engine")
    }

    package func typed(_ literal: Literal, context: ParameterContext) throws(ParameterProblem) -> any ParameterValue {
        try checked(Value(literal: literal, context: context))
    }

    package func typed(upstream: NodeValue) throws(ParameterProblem) -> any ParameterValue {
        try checked(Value(upstream: upstream))
    }

    package func setting(_ newValue: any ParameterValue) -> Parameter<Value>? {
        guard let newValue = newValue as? Value else { return nil }
        var copy = self
        copy.value = newValue
        return copy
    }

    private func checked(_ candidate: Value) throws(ParameterProblem) -> Value {
        let numbers = candidate.rangeCheckedNumbers
        if case .numbers(let count?) = declaration.type, numbers.count != count {
            throw ParameterProblem("expected a list of \(count) numbers, found \(numbers.count)")
        }
        if let range = declaration.range, let bad = numbers.first(where: { !range.contains($0) }) {
            // One number is shown as written: an integer too large for a Double keeps all its digits.
            let shown = numbers.count == 1 && candidate is any BinaryInteger ? candidate.literal.text : nil
            throw ParameterProblem("\(shown ?? Literal.number(bad).text) is out of range: \(range.rangeText)")
        }
        return candidate
    }
}

/// A ``Parameter`` seen without its value type, as the engine handles it.
package protocol ParameterField: Sendable, Decodable {
    var declaration: ParameterDeclaration { get }
    /// Reads, type-checks and range-checks a literal.
    func typed(_ literal: Literal, context: ParameterContext) throws(ParameterProblem) -> any ParameterValue
    /// Converts and range-checks an upstream output.
    func typed(upstream: NodeValue) throws(ParameterProblem) -> any ParameterValue
    /// A copy holding `value`; nil if `value` has another type.
    func setting(_ value: any ParameterValue) -> Self?
}

/// A node was used outside the engine (decoded from a foreign format, or a value read before it was set).
public struct NodeConfigurationError: Error, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

extension ClosedRange where Bound == Double {
    /// `1...100`, `at least 0`, `at most 1`: a range as messages and docs write it.
    package var rangeText: String {
        switch (lowerBound.isFinite, upperBound.isFinite) {
        case (true, false): "at least \(Literal.number(lowerBound).text)"
        case (false, true): "at most \(Literal.number(upperBound).text)"
        default: "\(Literal.number(lowerBound).text)...\(Literal.number(upperBound).text)"
        }
    }
}
