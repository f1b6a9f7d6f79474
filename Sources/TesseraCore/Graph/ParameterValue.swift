/// Why a parameter value was refused: the text of the message, without the node or parameter name
/// (the engine adds those, with the file position).
public struct ParameterProblem: Error, Sendable, Equatable {
    public var message: String
    public init(_ message: String) { self.message = message }
}

/// What relative paths in parameter values resolve against.
public struct ParameterContext: Sendable {
    /// The graph file's folder for values written in a graph; the current folder for `--set` values.
    public var baseFolder: String
    /// Rewrites the resolved path of every file a node writes (``OutputPath``), or refuses it: a batch
    /// fills an output template's `{stem}` from its item there. Nil keeps paths as resolved.
    public var outputPaths: (@Sendable (String) throws(ParameterProblem) -> String)?

    public init(
        baseFolder: String, outputPaths: (@Sendable (String) throws(ParameterProblem) -> String)? = nil
    ) {
        self.baseFolder = baseFolder
        self.outputPaths = outputPaths
    }

    /// `path` resolved against ``baseFolder``, with `.` and `folder/..` segments removed.
    public func resolve(_ path: String) -> String {
        let joined = path.hasPrefix("/") || baseFolder.isEmpty ? path : baseFolder + "/" + path
        var parts: [Substring] = []
        for part in joined.split(separator: "/", omittingEmptySubsequences: true) {
            if part == "." { continue }
            if part == "..", let last = parts.last, last != ".." {
                parts.removeLast()
                continue
            }
            parts.append(part)
        }
        let body = parts.joined(separator: "/")
        if joined.hasPrefix("/") { return "/" + body }
        return body.isEmpty ? "." : body
    }
}

/// The type of a parameter, as the catalog, the docs and the JSON Schema show it.
public enum ParameterType: Sendable, Equatable {
    case number
    case integer
    case boolean
    case string
    /// One of a fixed set of words.
    case choice([String])
    /// A file to read (`isOutput` false) or to write.
    case path(isOutput: Bool)
    /// A list of numbers; its length is the default value's, when there is one.
    case numbers(count: Int?)
    /// A rectangle `[x, y, width, height]` in pixels.
    case rect
    /// A number, or the word `auto` for a value the node derives from its input.
    case numberOrAuto
    /// A ratio of two positive numbers, `W:H` (as `4:3`), or a number (`1.333`).
    case ratio

    /// The type in words: "number", "one of none, lzw", "list of 4 numbers".
    public var name: String {
        switch self {
        case .number: "number"
        case .integer: "integer"
        case .boolean: "boolean"
        case .string: "string"
        case .choice(let words): "one of " + words.joined(separator: ", ")
        case .path(let isOutput): isOutput ? "output path" : "path"
        case .numbers(let count?): "list of \(count) numbers"
        case .numbers(nil): "list of numbers"
        case .rect: "rectangle [x, y, width, height]"
        case .numberOrAuto: "number or auto"
        case .ratio: "ratio W:H or number"
        }
    }
}

/// A Swift type a node parameter can have: it says how to read one from a graph literal, how to
/// write it back, and which upstream outputs may supply it.
public protocol ParameterValue: Sendable {
    static var parameterType: ParameterType { get }
    /// Port types whose output can supply this parameter (`rect: {from: heat.boxes}`); empty if none.
    static var upstreamTypes: [PortType] { get }

    /// Reads a value written in a graph file or on the command line.
    init(literal: Literal, context: ParameterContext) throws(ParameterProblem)
    /// Takes a value from an upstream output of one of ``upstreamTypes``.
    init(upstream: NodeValue) throws(ParameterProblem)
    /// The value as a graph would write it (defaults in docs, the catalog and the schema).
    var literal: Literal { get }
    /// The numbers a declared range applies to.
    var rangeCheckedNumbers: [Double] { get }
}

extension ParameterValue {
    public static var upstreamTypes: [PortType] { [] }
    public init(upstream: NodeValue) throws(ParameterProblem) {
        throw ParameterProblem("cannot take its value from \(upstream.type.phrase)")
    }
    public var rangeCheckedNumbers: [Double] { [] }
}

func expected(_ what: String, found literal: Literal) -> ParameterProblem {
    let shown: String
    switch literal {
    case .string(let text): shown = " '\(text)'"
    case .integer, .number, .bool: shown = " (\(literal.text))"
    default: shown = ""
    }
    return ParameterProblem("expected \(what), found \(literal.kindName)\(shown)")
}

extension Double: ParameterValue {
    public static var parameterType: ParameterType { .number }
    public static var upstreamTypes: [PortType] { [.number] }
    public init(literal: Literal, context: ParameterContext) throws(ParameterProblem) {
        guard let number = literal.number, number.isFinite else { throw expected("a number", found: literal) }
        self = number
    }
    public init(upstream: NodeValue) throws(ParameterProblem) {
        guard case .number(let number) = upstream else {
            throw ParameterProblem("expected a number, got \(upstream.type.phrase)")
        }
        self = number
    }
    public var literal: Literal { .number(self) }
    public var rangeCheckedNumbers: [Double] { [self] }
}

extension Int: ParameterValue {
    public static var parameterType: ParameterType { .integer }
    public static var upstreamTypes: [PortType] { [.number] }
    public init(literal: Literal, context: ParameterContext) throws(ParameterProblem) {
        switch literal {
        case .integer(let value): self = value
        case .number(let value) where value == value.rounded() && abs(value) < 9e15: self = Int(value)
        default: throw expected("an integer", found: literal)
        }
    }
    public init(upstream: NodeValue) throws(ParameterProblem) {
        guard case .number(let number) = upstream, number == number.rounded(), abs(number) < 9e15 else {
            throw ParameterProblem("expected an integer, got \(upstream.type.phrase)")
        }
        self = Int(number)
    }
    public var literal: Literal { .integer(self) }
    public var rangeCheckedNumbers: [Double] { [Double(self)] }
}

extension Bool: ParameterValue {
    public static var parameterType: ParameterType { .boolean }
    public init(literal: Literal, context: ParameterContext) throws(ParameterProblem) {
        switch literal {
        case .bool(let value):
            self = value
        case .string(let text) where ["yes", "no", "on", "off", "y", "n"].contains(text.lowercased()):
            // YAML 1.1 read these as booleans; YAML 1.2, which graphs follow, reads them as strings.
            let fix = ["yes", "on", "y"].contains(text.lowercased()) ? "true" : "false"
            throw ParameterProblem(
                "expected true or false, found the string '\(text)' (YAML 1.2 reads \(text) as a string; write \(fix))")
        case .string(let text) where ["true", "false"].contains(text.lowercased()):
            throw ParameterProblem(
                "expected true or false, found the string '\(text)' (write \(text.lowercased()) without quotes)")
        default:
            throw expected("true or false", found: literal)
        }
    }
    public var literal: Literal { .bool(self) }
}

extension String: ParameterValue {
    public static var parameterType: ParameterType { .string }
    public init(literal: Literal, context: ParameterContext) throws(ParameterProblem) {
        guard case .string(let value) = literal else { throw expected("a string", found: literal) }
        self = value
    }
    public var literal: Literal { .string(self) }
}

extension Array: ParameterValue where Element == Double {
    public static var parameterType: ParameterType { .numbers(count: nil) }
    public init(literal: Literal, context: ParameterContext) throws(ParameterProblem) {
        guard case .list(let items) = literal else { throw expected("a list of numbers", found: literal) }
        var numbers: [Double] = []
        for item in items {
            guard let number = item.number, number.isFinite else {
                throw expected("a list of numbers", found: item)
            }
            numbers.append(number)
        }
        self = numbers
    }
    public var literal: Literal { .list(map { .number($0) }) }
    public var rangeCheckedNumbers: [Double] { self }
}

extension Rect: ParameterValue {
    public static var parameterType: ParameterType { .rect }
    public static var upstreamTypes: [PortType] { Box.acceptedTypes }
    public init(literal: Literal, context: ParameterContext) throws(ParameterProblem) {
        let what = "a rectangle [x, y, width, height] of integers"
        guard case .list(let items) = literal, items.count == 4 else { throw expected(what, found: literal) }
        var values: [Int] = []
        for item in items {
            guard let value = try? Int(literal: item, context: context) else { throw expected(what, found: item) }
            values.append(value)
        }
        guard values[2] > 0, values[3] > 0 else {
            throw ParameterProblem("a rectangle needs a positive width and height, got \(values[2])x\(values[3])")
        }
        guard values.allSatisfy({ (-Rect.limit...Rect.limit).contains($0) }) else {
            throw ParameterProblem(
                "a rectangle's x, y, width and height must lie within ±\(Rect.limit) (2^30), got \(literal.text)")
        }
        self.init(x: values[0], y: values[1], width: values[2], height: values[3])
    }
    /// The most confident box (the first), or the first face's, text line's or hand's box, grown to whole
    /// pixels.
    public init(upstream: NodeValue) throws(ParameterProblem) {
        guard let boxes = [Box].from(upstream) else {
            throw ParameterProblem(
                "expected boxes, faces, text, hands, barcodes, bodies or rectangles, got \(upstream.type.phrase)")
        }
        guard let box = boxes.first else {
            throw ParameterProblem("the upstream node found no \(upstream.type.phrase)")
        }
        guard box.enclosingRect.width > 0, box.enclosingRect.height > 0 else {
            throw ParameterProblem("the most confident box is empty or not finite")
        }
        self = box.enclosingRect
    }
    public var literal: Literal { .list([.integer(x), .integer(y), .integer(width), .integer(height)]) }
}

/// A number, or `auto`: the node derives the value from its input (a contrast pivot from the image's
/// histogram). The declared range applies to the number.
public enum NumberOrAuto: ParameterValue, Equatable {
    case auto
    case number(Double)

    public static var parameterType: ParameterType { .numberOrAuto }
    public static var upstreamTypes: [PortType] { [.number] }
    public init(literal: Literal, context: ParameterContext) throws(ParameterProblem) {
        if case .string("auto") = literal {
            self = .auto
        } else if let number = literal.number, number.isFinite {
            self = .number(number)
        } else {
            throw expected("a number or auto", found: literal)
        }
    }
    public init(upstream: NodeValue) throws(ParameterProblem) {
        self = .number(try Double(upstream: upstream))
    }
    public var literal: Literal {
        switch self {
        case .auto: .string("auto")
        case .number(let value): .number(value)
        }
    }
    public var rangeCheckedNumbers: [Double] {
        if case .number(let value) = self { return [value] }
        return []
    }
}

/// A ratio, width over height: `4:3` (or `"4:3"`), `16:9`, `1.85:1`, or a number (`1.333`). Both
/// terms of `W:H` must be above 0; the declared range applies to the ratio's value.
///
///     @Parameter(doc: "Width over height.", range: 0.001...1000) var aspectRatio: Ratio? = nil
public enum Ratio: ParameterValue, Equatable {
    /// Written `width:height`.
    case terms(width: Double, height: Double)
    /// Written as a number.
    case number(Double)

    /// Width over height.
    public var value: Double {
        switch self {
        case .terms(let width, let height): width / height
        case .number(let value): value
        }
    }

    /// `W:H` as a JSON Schema `pattern`: two decimal numbers, each with a digit other than 0.
    public static let schemaPattern: String = {
        let term = "([0-9]*[1-9][0-9]*(\\.[0-9]+)?|[0-9]+\\.[0-9]*[1-9][0-9]*)"
        return "^\(term):\(term)$"
    }()

    public static var parameterType: ParameterType { .ratio }
    public static var upstreamTypes: [PortType] { [.number] }

    public init(literal: Literal, context: ParameterContext) throws(ParameterProblem) {
        let what = "a ratio W:H (as 4:3) or a number"
        switch literal {
        case .string(let text):
            let parts = text.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count == 2, let width = Self.term(parts[0]), let height = Self.term(parts[1]) else {
                throw expected(what, found: literal)
            }
            guard width > 0, height > 0, (width / height).isFinite else {
                throw ParameterProblem("the ratio \(text) needs a width and a height above 0")
            }
            self = .terms(width: width, height: height)
        default:
            guard let number = literal.number, number.isFinite else { throw expected(what, found: literal) }
            guard number > 0 else { throw ParameterProblem("a ratio must be above 0, found \(literal.text)") }
            self = .number(number)
        }
    }

    public init(upstream: NodeValue) throws(ParameterProblem) {
        let number = try Double(upstream: upstream)
        guard number > 0 else { throw ParameterProblem("a ratio must be above 0, got \(Literal.number(number).text)") }
        self = .number(number)
    }

    public var literal: Literal {
        switch self {
        case .terms(let width, let height): .string("\(Literal.number(width).text):\(Literal.number(height).text)")
        case .number(let value): .number(value)
        }
    }

    public var rangeCheckedNumbers: [Double] { [value] }

    /// A term of `W:H`: digits, optionally a point and more digits, no exponent. A minus sign is read
    /// only to say that the term must be above 0.
    private static func term(_ text: Substring) -> Double? {
        let unsigned = text.hasPrefix("-") ? text.dropFirst() : text
        let parts = unsigned.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count),
            parts.allSatisfy({ !$0.isEmpty && $0.unicodeScalars.allSatisfy { ("0"..."9").contains($0) } })
        else { return nil }
        return Double(text)
    }
}

/// An optional parameter: unset (`nil`, the default) unless the graph gives a value. `null` in a graph
/// also leaves it unset.
extension Optional: ParameterValue where Wrapped: ParameterValue {
    public static var parameterType: ParameterType { Wrapped.parameterType }
    public static var upstreamTypes: [PortType] { Wrapped.upstreamTypes }
    public init(literal: Literal, context: ParameterContext) throws(ParameterProblem) {
        if case .null = literal {
            self = nil
        } else {
            self = try Wrapped(literal: literal, context: context)
        }
    }
    public init(upstream: NodeValue) throws(ParameterProblem) {
        self = try Wrapped(upstream: upstream)
    }
    public var literal: Literal { self?.literal ?? .null }
    public var rangeCheckedNumbers: [Double] { self?.rangeCheckedNumbers ?? [] }
}

/// Whether a path parameter names a file to read or to write (the catalog and `tessera run` tell them apart).
public protocol PathRole: Sendable {
    static var isOutput: Bool { get }
}

/// The role of ``FilePath``.
public enum ReadsFile: PathRole {
    public static var isOutput: Bool { false }
}

/// The role of ``OutputPath``.
public enum WritesFile: PathRole {
    public static var isOutput: Bool { true }
}

/// A file path parameter. Relative paths resolve against the graph file's folder (against the current
/// folder when given with `--set`).
public struct PathParameter<Role: PathRole>: ParameterValue, Equatable {
    /// The path as written.
    public var written: String
    /// The path to open.
    public var resolved: String

    public init(written: String, resolved: String) {
        self.written = written
        self.resolved = resolved
    }

    public static var parameterType: ParameterType { .path(isOutput: Role.isOutput) }
    public init(literal: Literal, context: ParameterContext) throws(ParameterProblem) {
        guard case .string(let text) = literal, !text.isEmpty else { throw expected("a file path", found: literal) }
        // The C calls that open files stop at a NUL: `o/c\0.png` would write `o/c`.
        guard !text.utf8.contains(0) else {
            throw ParameterProblem("a file path cannot contain a NUL character (\\0 or \\u0000)")
        }
        written = text
        resolved = context.resolve(text)
        if Role.isOutput, let rewrite = context.outputPaths { resolved = try rewrite(resolved) }
    }
    public var literal: Literal { .string(written) }
}

/// A file a node reads.
public typealias FilePath = PathParameter<ReadsFile>
/// A file a node writes.
public typealias OutputPath = PathParameter<WritesFile>

/// A parameter that is one of a fixed set of words: declare a `String` enum conforming to this.
///
///     enum Interpolation: String, ParameterChoice { case nearest, bilinear }
public protocol ParameterChoice: ParameterValue, CaseIterable, RawRepresentable where RawValue == String {}

extension ParameterChoice {
    public static var parameterType: ParameterType { .choice(allCases.map(\.rawValue)) }
    public init(literal: Literal, context: ParameterContext) throws(ParameterProblem) {
        let words = Self.allCases.map(\.rawValue)
        let text: String
        switch literal {
        case .string(let value): text = value
        case .integer, .number: text = literal.text  // `depth: 16` names the choice "16"
        default: throw expected("one of " + words.joined(separator: ", "), found: literal)
        }
        guard let value = Self(rawValue: text) else {
            throw ParameterProblem("'\(text)' is not one of " + words.joined(separator: ", "))
        }
        self = value
    }
    public var literal: Literal { .string(rawValue) }
}
