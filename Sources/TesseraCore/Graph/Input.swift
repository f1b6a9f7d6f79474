/// What a node input port declares.
public struct InputDeclaration: Sendable {
    /// The property's name, which is also the key in graph files.
    public var name: String
    public var type: PortType
    /// Every port type the input accepts: ``type`` alone, or more for an input such as `save`'s, which
    /// writes any value.
    public var accepted: [PortType]
    /// An optional input may be left unconnected.
    public var isOptional: Bool
    public var doc: String
    /// Whether the node reads the input's pixels; false for an input whose size alone is taken (a
    /// `like`), which the render plan does not count as a reader.
    public var readsPixels = true
}

extension InputDeclaration {
    /// The accepted types in words, for messages: "an image", "an image or contours", "any value".
    package var typePhrase: String {
        acceptsAll ? "any value" : accepted.phrase
    }
    /// The accepted types' names, for listings: "image", "image or contours", "boxes, faces, text or hands",
    /// "any".
    package var typeName: String { acceptsAll ? "any" : listed(accepted.map(\.rawValue)) }

    private var acceptsAll: Bool { Set(accepted) == Set(PortType.allCases) }
}

/// What a node output port declares.
public struct OutputDeclaration: Sendable {
    public var name: String
    public var type: PortType
    public var doc: String

    public init(_ name: String, _ type: PortType, doc: String) {
        self.name = name
        self.type = type
        self.doc = doc
    }
}

/// A Swift type an input port can have: `Image`, `Contours`, `[Box]`, `[Face]`, `[TextLine]`, `[Hand]`, `Double`, or an optional of one
/// (an input that may be left unconnected).
public protocol InputValue: Sendable {
    static var portType: PortType { get }
    /// Every port type the input accepts; ``portType`` alone unless the type holds one of several.
    static var acceptedTypes: [PortType] { get }
    static var isOptional: Bool { get }
    /// The value, if `value` carries this type; an optional input accepts nil.
    static func from(_ value: NodeValue?) -> Self?
}

extension InputValue {
    public static var isOptional: Bool { false }
    public static var acceptedTypes: [PortType] { [portType] }
}

/// Any value: an input of this type (as `save`'s) accepts every port type, and the node looks at which
/// it got.
extension NodeValue: InputValue {
    public static var portType: PortType { .image }
    public static var acceptedTypes: [PortType] { PortType.allCases }
    public static func from(_ value: NodeValue?) -> NodeValue? { value }
}

extension Image: InputValue {
    public static var portType: PortType { .image }
    public static func from(_ value: NodeValue?) -> Image? {
        if case .image(let image)? = value { return image }
        return nil
    }
}

extension Contours: InputValue {
    public static var portType: PortType { .contours }
    public static func from(_ value: NodeValue?) -> Contours? {
        if case .contours(let contours)? = value { return contours }
        return nil
    }
}

/// What a list input holds: boxes, faces, text lines, hands, barcodes, bodies or rectangles.
public protocol InputElement: Sendable {
    static var portType: PortType { get }
    static var acceptedTypes: [PortType] { get }
    static func list(from value: NodeValue?) -> [Self]?
}

/// Boxes, or faces, text lines, hands, barcodes, bodies or rectangles as their boxes: a node that takes boxes (crop,
/// drawBoxes) takes
/// those too.
extension Box: InputElement {
    public static var portType: PortType { .boxes }
    public static var acceptedTypes: [PortType] { [.boxes, .faces, .text, .hands, .barcodes, .bodies, .rectangles] }
    public static func list(from value: NodeValue?) -> [Box]? {
        switch value {
        case .boxes(let boxes)?: boxes
        case .faces(let faces)?: faces.map(\.box)
        case .text(let lines)?: lines.map(\.box)
        case .hands(let hands)?: hands.map(\.box)
        case .barcodes(let codes)?: codes.map(\.box)
        case .bodies(let bodies)?: bodies.map(\.box)
        case .rectangles(let quads)?: quads.map(\.box)
        default: nil
        }
    }
}

extension Face: InputElement {
    public static var portType: PortType { .faces }
    public static var acceptedTypes: [PortType] { [.faces] }
    public static func list(from value: NodeValue?) -> [Face]? {
        if case .faces(let faces)? = value { return faces }
        return nil
    }
}

extension TextLine: InputElement {
    public static var portType: PortType { .text }
    public static var acceptedTypes: [PortType] { [.text] }
    public static func list(from value: NodeValue?) -> [TextLine]? {
        if case .text(let lines)? = value { return lines }
        return nil
    }
}

extension Hand: InputElement {
    public static var portType: PortType { .hands }
    public static var acceptedTypes: [PortType] { [.hands] }
    public static func list(from value: NodeValue?) -> [Hand]? {
        if case .hands(let hands)? = value { return hands }
        return nil
    }
}

extension Body: InputElement {
    public static var portType: PortType { .bodies }
    public static var acceptedTypes: [PortType] { [.bodies] }
    public static func list(from value: NodeValue?) -> [Body]? {
        if case .bodies(let bodies)? = value { return bodies }
        return nil
    }
}

extension Quadrilateral: InputElement {
    public static var portType: PortType { .rectangles }
    public static var acceptedTypes: [PortType] { [.rectangles] }
    public static func list(from value: NodeValue?) -> [Quadrilateral]? {
        if case .rectangles(let quads)? = value { return quads }
        return nil
    }
}

extension Barcode: InputElement {
    public static var portType: PortType { .barcodes }
    public static var acceptedTypes: [PortType] { [.barcodes] }
    public static func list(from value: NodeValue?) -> [Barcode]? {
        if case .barcodes(let codes)? = value { return codes }
        return nil
    }
}

extension Array: InputValue where Element: InputElement {
    public static var portType: PortType { Element.portType }
    public static var acceptedTypes: [PortType] { Element.acceptedTypes }
    public static func from(_ value: NodeValue?) -> [Element]? { Element.list(from: value) }
}

extension Double: InputValue {
    public static var portType: PortType { .number }
    public static func from(_ value: NodeValue?) -> Double? {
        if case .number(let number)? = value { return number }
        return nil
    }
}

extension Optional: InputValue where Wrapped: InputValue {
    public static var portType: PortType { Wrapped.portType }
    public static var acceptedTypes: [PortType] { Wrapped.acceptedTypes }
    public static var isOptional: Bool { true }
    public static func from(_ value: NodeValue?) -> Wrapped?? {
        guard let value else { return .some(nil) }
        return Wrapped.from(value).map { .some($0) }
    }
}

/// Declares a node input port; the property's type is the port's type.
///
///     @Input(doc: "The image to blur.") var input: Image
///     @Input(doc: "Shown where the mask is 0; transparent if unconnected.") var background: Image?
@propertyWrapper
public struct Input<Value: InputValue>: InputField {
    public let declaration: InputDeclaration
    private var value: Value?

    public var wrappedValue: Value {
        guard let value else { preconditionFailure("input read before the engine connected it") }
        return value
    }

    /// `readsPixels: false` for an image input whose size alone the node takes (see
    /// ``InputDeclaration/readsPixels``).
    public init(doc: String, readsPixels: Bool = true) {
        declaration = InputDeclaration(
            name: "", type: Value.portType, accepted: Value.acceptedTypes, isOptional: Value.isOptional, doc: doc,
            readsPixels: readsPixels)
    }

    public init(from decoder: any Decoder) throws {
        throw NodeConfigurationError("inputs are connected by the Tessera engine")
    }

    package func connecting(_ newValue: NodeValue?) -> Input<Value>? {
        guard let typed = Value.from(newValue) else { return nil }
        var copy = self
        copy.value = typed
        return copy
    }
}

/// An ``Input`` seen without its value type, as the engine handles it.
package protocol InputField: Sendable, Decodable {
    var declaration: InputDeclaration { get }
    /// A copy holding `value`; nil if `value` has the wrong type (or is missing for a required input).
    func connecting(_ value: NodeValue?) -> Self?
}
