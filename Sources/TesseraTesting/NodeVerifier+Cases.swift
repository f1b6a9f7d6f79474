import TesseraCore
import TesseraCatalog
import TesseraPluginHost

extension NodeVerifier {
    /// Checks a node in the runs the verifier makes up from its declaration, without choosing its
    /// inputs or parameters: what `tessera verify` does for each node of a plugin.
    ///
    /// The runs: every parameter at its default, on an RGBA image (``TestImages/rgba(width:height:alpha:seed:)``)
    /// and on a gray one (``TestImages/gray(width:height:seed:)``); each other word of each choice
    /// parameter; and every number parameter at a random point of its suggested range (else its hard
    /// range, or its first 256 units when it is wider: sizes stay test-sized), every boolean flipped. Image inputs get a test image, boxes two boxes inside it, numbers
    /// 0.5, contours a square, faces, text and hands none; optional inputs stay unconnected. A required
    /// parameter without a default gets a made-up value inside its range.
    ///
    /// A node the verifier cannot run on made-up values comes back ``NodeVerification/skipped``, saying
    /// why: a sink (it writes files), a required path or string, a combination its own validation refuses.
    /// A node that throws is a ``VerificationFailure/Check/run`` failure.
    ///
    /// - Cost: about 4 + (choice words) runs of `check(_:parameters:inputs:)`.
    public func checkCases(of declaration: NodeDeclaration) -> [NodeVerification] {
        if declaration.access == .sink {
            return [
                NodeVerification(op: declaration.op, subject: "", skipped: "a sink writes files; check it from a test")
            ]
        }
        var random = SplitMix(seed: seed ^ 0xCA5E)
        let cases: [Case]
        do {
            cases = try Self.cases(of: declaration, random: &random)
        } catch {
            return [NodeVerification(op: declaration.op, subject: "", skipped: error.reason)]
        }
        return cases.map { run in
            let subject = Self.subject(parameters: run.parameters, inputs: run.inputs)
            let problems = (try? declaration.instantiate(parameters: run.parameters, inputs: run.inputs))?
                .validate(
                    in: ValidationContext(
                        inputTypes: run.inputs.mapValues(\.type), setParameters: Set(run.parameters.keys)))
            if let problem = problems?.first {
                return NodeVerification(
                    op: declaration.op, subject: subject,
                    skipped: "its validation refuses these parameters: \(problem.parameter): \(problem.message)")
            }
            do {
                return try check(declaration, parameters: run.parameters, inputs: run.inputs)
            } catch {
                return NodeVerification(
                    op: declaration.op, subject: subject,
                    failures: [
                        VerificationFailure(
                            check: .run, op: declaration.op, subject: subject, message: "it threw: \(error)")
                    ])
            }
        }
    }

    /// `checkCases(of:)` for a node type (a built-in, or a node of a plugin written with
    /// `TesseraPluginSDK`, checked in its own package's tests). A type that breaks the declaration
    /// rules gives one ``VerificationFailure/Check/declaration`` failure.
    public func checkCases(of type: any Node.Type) -> [NodeVerification] {
        do {
            return checkCases(of: try NodeDeclaration(type))
        } catch {
            return [NodeVerification(op: type.info.op, subject: "", failures: [.declaration(of: type, error)])]
        }
    }

    /// Loads the plugin shared library at `path` as the host does (through the C ABI of
    /// `tessera_plugin.h`, whatever language it is written in) and checks each node it declares with
    /// `checkCases(of:)`.
    ///
    /// - Throws: `PluginError` when the file does not load as a plugin (see `Plugin/init(path:)`).
    public func checkPlugin(at path: String) throws(PluginError) -> [NodeVerification] {
        try Plugin(path: path).declarations.flatMap { checkCases(of: $0) }
    }

    /// `checkCases(of:)`, throwing a ``NodeVerificationError`` with every failure found; returns the
    /// runs (some perhaps skipped) when there is none.
    ///
    ///     @Test func vignettePassesTheVerifier() throws {
    ///         try NodeVerifier().verifyCases(of: Vignette.self)
    ///     }
    @discardableResult
    public func verifyCases(of type: any Node.Type) throws(NodeVerificationError) -> [NodeVerification] {
        try Self.throwingFailures(checkCases(of: type))
    }

    /// `checkCases(of:)` for a declared node, throwing a ``NodeVerificationError`` with every failure
    /// found.
    @discardableResult
    public func verifyCases(of declaration: NodeDeclaration) throws(NodeVerificationError) -> [NodeVerification] {
        try Self.throwingFailures(checkCases(of: declaration))
    }

    /// ``checkPlugin(at:)``, throwing a ``NodeVerificationError`` with every failure found.
    ///
    /// - Throws: `PluginError` when the file does not load as a plugin; ``NodeVerificationError``.
    @discardableResult
    public func verifyPlugin(at path: String) throws -> [NodeVerification] {
        try Self.throwingFailures(checkPlugin(at: path))
    }

    static func throwingFailures(_ runs: [NodeVerification]) throws(NodeVerificationError) -> [NodeVerification] {
        let failures = runs.flatMap(\.failures)
        guard failures.isEmpty else { throw NodeVerificationError(failures: failures) }
        return runs
    }

    // MARK: Making up runs

    /// One run's parameters and inputs.
    struct Case {
        var parameters: [String: any ParameterValue]
        var inputs: [String: NodeValue]
    }

    /// Why a node cannot run on made-up values.
    struct Unverifiable: Error {
        var reason: String
    }

    static func cases(of declaration: NodeDeclaration, random: inout SplitMix) throws(Unverifiable) -> [Case] {
        func typed(_ literal: Literal, _ parameter: ParameterDeclaration) throws(Unverifiable) -> any ParameterValue {
            do {
                return try declaration.typedValue(
                    literal, parameter: parameter.name, context: ParameterContext(baseFolder: ""))
            } catch {
                throw Unverifiable(reason: "the made-up value \(literal.text) is refused: \(error.message)")
            }
        }
        var required: [String: any ParameterValue] = [:]
        for parameter in declaration.parameters where parameter.isRequired {
            required[parameter.name] = try typed(try madeUp(parameter), parameter)
        }
        let color = TestImages.rgba()
        var cases = [
            Case(parameters: required, inputs: try inputs(of: declaration, image: color)),
            Case(parameters: required, inputs: try inputs(of: declaration, image: TestImages.gray())),
        ]
        let colorInputs = cases[0].inputs
        for parameter in declaration.parameters {
            guard case .choice(let words) = parameter.type else { continue }
            for word in words where Literal.string(word) != (parameter.defaultValue ?? .string(words[0])) {
                var parameters = required
                parameters[parameter.name] = try typed(.string(word), parameter)
                cases.append(Case(parameters: parameters, inputs: colorInputs))
            }
        }
        var shaken = required
        for parameter in declaration.parameters {
            switch parameter.type {
            case .number, .integer:
                guard let bounds = testBounds(of: parameter), bounds.lowerBound.isFinite, bounds.upperBound.isFinite
                else { continue }
                // Three decimals: short in messages, and still inside the bounds.
                let picked = bounds.lowerBound + Double(random.unit()) * (bounds.upperBound - bounds.lowerBound)
                let value = Swift.min(Swift.max((picked * 1000).rounded() / 1000, bounds.lowerBound), bounds.upperBound)
                let whole = Swift.min(Swift.max(value.rounded(), bounds.lowerBound.rounded(.up)), bounds.upperBound)
                let literal: Literal = parameter.type == .integer ? .integer(Int(whole)) : .number(value)
                shaken[parameter.name] = try typed(literal, parameter)
            case .boolean:
                shaken[parameter.name] = try typed(.bool(parameter.defaultValue != .bool(true)), parameter)
            default:
                continue
            }
        }
        if shaken.count > required.count { cases.append(Case(parameters: shaken, inputs: colorInputs)) }
        return cases
    }

    /// Where a made-up number is picked: the suggested range, else the hard range, whose first
    /// ``testSpan`` units alone are taken when it is wider: a size that may reach a million pixels
    /// (`constant`'s width, a plugin's) is tried at a test image's scale, not allocated at a terabyte.
    static func testBounds(of parameter: ParameterDeclaration) -> ClosedRange<Double>? {
        if let suggested = parameter.suggested { return suggested }
        guard let range = parameter.range, range.lowerBound.isFinite, range.upperBound - range.lowerBound > testSpan
        else { return parameter.range }
        return range.lowerBound...(range.lowerBound + testSpan)
    }

    /// How wide a hard range the verifier picks numbers from (see ``testBounds(of:)``).
    static let testSpan = 256.0

    /// A value for a required parameter: the middle of its test bounds (``testBounds(of:)``) for a number.
    static func madeUp(_ parameter: ParameterDeclaration) throws(Unverifiable) -> Literal {
        let bounds = testBounds(of: parameter)
        let middle: Double? = bounds.flatMap { range in
            switch (range.lowerBound.isFinite, range.upperBound.isFinite) {
            case (true, true): (range.lowerBound + range.upperBound) / 2
            case (true, false): range.lowerBound + 1
            case (false, true): range.upperBound - 1
            default: nil
            }
        }
        switch parameter.type {
        case .number, .numberOrAuto, .ratio: return .number(middle ?? 1)
        case .integer: return .integer(Int((middle ?? 1).rounded()))
        case .boolean: return .bool(false)
        case .choice(let words) where !words.isEmpty: return .string(words[0])
        case .numbers(let count): return .list(Array(repeating: .number(middle ?? 0.5), count: count ?? 1))
        case .rect: return .list([.integer(2), .integer(3), .integer(20), .integer(15)])
        case .path, .string, .choice:
            throw Unverifiable(
                reason: "its required parameter '\(parameter.name)' (\(parameter.type.name)) has no value to make up; "
                    + "check it from a test with NodeVerifier.verify and a value of your own")
        }
    }

    /// A value for every required input; `image` for the image inputs.
    static func inputs(of declaration: NodeDeclaration, image: Image) throws(Unverifiable) -> [String: NodeValue] {
        var inputs: [String: NodeValue] = [:]
        for input in declaration.inputs where !input.isOptional {
            let type = input.accepted.contains(.image) ? PortType.image : input.type
            inputs[input.name] =
                switch type {
                case .image: .image(image)
                case .boxes:
                    .boxes([
                        Box(x: 5, y: 4, width: 20, height: 15, confidence: 0.9),
                        Box(x: 30.5, y: 20.25, width: 12, height: 9.5, confidence: 0.5),
                    ])
                case .number: .number(0.5)
                case .contours:
                    .contours(
                        Contours(
                            contours: [.init(points: [[8, 6], [24, 6], [24, 18], [8, 18]])], width: image.width,
                            height: image.height))
                case .faces: .faces([])
                case .text: .text([])
                case .hands: .hands([])
                case .barcodes: .barcodes([])
                case .bodies: .bodies([])
                case .rectangles: .rectangles([])
                }
        }
        return inputs
    }
}
