import TesseraCore

/// `require`: stops the run, with a message, unless a value meets a condition; otherwise passes its image
/// on unchanged. Whatever is made from its output (a crop, a saved file) exists only when the condition
/// holds, so a graph states its own preconditions: one face, an upright head, a sharp enough photo.
struct Require: Node {
    static let info = NodeInfo(
        op: "require",
        summary:
            "Passes its image on only when a value meets a condition (a count, a face's angle, a number in a range); "
            + "otherwise the run stops with a message.",
        access: .point,
        outputs: [.init("output", .image, doc: "The input image, unchanged.")],
        example: """
            photo: { op: load, path: photo.png }
            heat: { op: saliency, input: photo }
            found: { op: require, input: photo, value: heat.boxes, field: count, minimum: 1, message: "nothing stands out" }
            spot: { op: crop, input: found, rect: { from: heat.boxes } }
            out: { op: save, input: spot, path: spot.png }
            """)

    /// What is measured: `count` of a list, a field of every box, face, line, hand, code or body in it, or a number's
    /// `value`.
    enum Field: String, ParameterChoice {
        case count, value, confidence, x, y, width, height, roll, yaw, pitch, captureQuality
    }

    @Input(doc: "The image passed on when the condition holds.") var input: Image
    @Input(
        doc: "The value the condition is about: boxes, faces, text, hands, barcodes, bodies, rectangles, contours "
            + "or a number.")
    var value: NodeValue
    @Parameter(
        doc: "What is measured: count (boxes, faces, text lines, hands, barcodes, bodies, rectangles or contours in "
            + "the value), value (a number), or a field of every box, face, line, hand, code, body or rectangle "
            + "(confidence, x, y, width, "
            + "height; for faces also roll, yaw, pitch, captureQuality). "
            + "Unset: value for a number, count for the others.")
    var field: Field? = nil
    @Parameter(doc: "The smallest allowed measure; unset: no lower bound.")
    var minimum: Double? = nil
    @Parameter(doc: "The largest allowed measure; unset: no upper bound.")
    var maximum: Double? = nil
    @Parameter(doc: "What the run says when the condition fails, before the measure; unset: the condition itself.")
    var message: String? = nil

    func validate(in context: ValidationContext) -> [NodeProblem] {
        var problems: [NodeProblem] = []
        if minimum == nil, maximum == nil {
            problems.append(NodeProblem(parameter: "minimum", "give a minimum, a maximum or both"))
        }
        if let minimum, let maximum, minimum > maximum {
            problems.append(NodeProblem(parameter: "maximum", "the maximum \(maximum) is below the minimum \(minimum)"))
        }
        if let type = context.inputTypes["value"], let field, let reason = Self.problem(field, type) {
            problems.append(NodeProblem(parameter: "field", reason))
        }
        return problems
    }

    /// Why `field` cannot be measured on a value of `type`, or nil.
    static func problem(_ field: Field, _ type: PortType) -> String? {
        let faceOnly: [Field] = [.roll, .yaw, .pitch, .captureQuality]
        let boxFields: [Field] = [.confidence, .x, .y, .width, .height]
        switch type {
        case .number: return field == .value ? nil : "a number has only its value, not \(field.rawValue)"
        case .image: return "an image is not a value to measure"
        case .contours: return field == .count ? nil : "contours are measured by count only"
        case .boxes, .faces, .text, .hands, .barcodes, .bodies, .rectangles:
            if field == .count || boxFields.contains(field) || (type == .faces && faceOnly.contains(field)) {
                return nil
            }
            return "\(type.phrase) have no \(field.rawValue)"
        }
    }

    func run() throws -> NodeOutputs {
        let measured = field ?? (value.type == .number ? .value : .count)
        if let reason = Self.problem(measured, value.type) { throw NodeProblem(parameter: "field", reason) }
        // Each measure with what it is of: "count", or "roll of face 2".
        var measures: [(Double, String)] = []
        let items = [Box].from(value) ?? []
        let noun =
            [
                PortType.faces: "face", .text: "line", .hands: "hand", .barcodes: "code", .bodies: "body",
                .rectangles: "rectangle",
            ][value.type]
            ?? "box"
        switch (value, measured) {
        case (.number(let number), _): measures = [(number, "the value")]
        case (.contours(let contours), _): measures = [(Double(contours.contours.count), "the count")]
        case (_, .count): measures = [(Double(items.count), "the count")]
        case (.faces(let faces), .roll), (.faces(let faces), .yaw), (.faces(let faces), .pitch),
            (.faces(let faces), .captureQuality):
            measures = faces.enumerated().map { index, face in
                let amount: Double =
                    switch measured {
                    case .roll: face.roll
                    case .yaw: face.yaw
                    case .pitch: face.pitch
                    default: face.captureQuality
                    }
                return (amount, "\(measured.rawValue) of face \(index + 1)")
            }
        default:
            measures = items.enumerated().map {
                (Self.measure(measured, of: $1), "\(measured.rawValue) of \(noun) \($0 + 1)")
            }
        }
        for (amount, what) in measures {
            let low = minimum ?? -.infinity
            let high = maximum ?? .infinity
            guard !(low...high).contains(amount) else { continue }
            let bounds =
                switch (minimum, maximum) {
                case (let low?, let high?) where low == high: "it must be \(Self.text(low))"
                case (let low?, let high?): "allowed \(Self.text(low)) to \(Self.text(high))"
                case (let low?, nil): "at least \(Self.text(low))"
                default: "at most \(Self.text(high))"
                }
            let condition = "\(what) is \(Self.text(amount)), \(bounds)"
            throw NodeProblem(
                parameter: amount < low ? "minimum" : "maximum", message.map { "\($0) (\(condition))" } ?? condition)
        }
        return NodeOutputs(.image(input))
    }

    static func measure(_ field: Field, of box: Box) -> Double {
        switch field {
        case .x: box.x
        case .y: box.y
        case .width: box.width
        case .height: box.height
        default: box.confidence
        }
    }

    /// A measure as a person reads it: whole numbers bare, others to two decimals.
    static func text(_ number: Double) -> String {
        number == number.rounded() && abs(number) < 1e15 ? String(Int(number)) : String(format: "%.2f", number)
    }
}
