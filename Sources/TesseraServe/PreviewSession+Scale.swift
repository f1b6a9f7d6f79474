import Foundation
import Tessera

// The preview renders the graph smaller: every `load` decodes its file `shrink` times smaller (a JPEG by
// libjpeg's DCT scaling, at a fraction of a full decode's cost; other formats by block averages), and
// every length in pixels the graph sets (`unit: "px"`: a blur's sigma, a crop's rectangle, a resize's
// width) is divided by the same factor, so each node's thumbnail looks like its full-size output.
// Limits in pixels (`maximumImageDimension`) are left alone: they cap a size, they are not lengths.

extension PreviewSession {
    /// The shrink for the graph's largest `load` (1, 2, 4 or 8: the largest keeping its longer side at
    /// least ``previewSide``) and the overrides that apply it: `shrink` on every `load` that does not set
    /// one, lengths in pixels divided.
    func previewOverrides(for graph: Graph) -> (shrink: Int, overrides: [ParameterOverride]) {
        let loads = graph.nodes.filter { $0.declaration.op == "load" && $0.parameters["shrink"] == nil }
        var largest = 0
        for node in loads {
            guard case .value(let value)? = node.parameters["path"]?.source, let path = value as? FilePath,
                let info = try? ImageFile.info(path: path.resolved)
            else { continue }
            largest = max(largest, info.width, info.height)
        }
        var shrink = 1
        while shrink < 8, largest / (shrink * 2) >= previewSide { shrink *= 2 }
        guard shrink > 1 else { return (1, []) }
        var overrides = loads.compactMap { try? ParameterOverride(parsing: "\($0.name).shrink=\(shrink)") }
        for node in graph.nodes {
            for parameter in node.declaration.parameters
            where parameter.unit == "px" && !parameter.name.hasPrefix("max") {
                guard case .value(let value)? = node.parameters[parameter.name]?.source,
                    let scaled = Self.scaled(value.literal, by: 1 / Double(shrink), within: parameter.range),
                    let override = try? ParameterOverride(parsing: "\(node.name).\(parameter.name)=\(scaled)")
                else { continue }
                overrides.append(override)
            }
        }
        return (shrink, overrides)
    }

    /// A length (or list of them) times `factor`, as override text: integers stay integers (rounded, and
    /// a positive one stays at least 1), all kept within the declared range.
    static func scaled(_ literal: Literal, by factor: Double, within range: ClosedRange<Double>?) -> String? {
        func clamp(_ value: Double) -> Double {
            guard let range else { return value }
            return min(max(value, range.lowerBound), range.upperBound)
        }
        switch literal {
        case .integer(let value):
            let scaled = (Double(value) * factor).rounded()
            return String(Int(clamp(value > 0 ? max(1, scaled) : scaled)))
        case .number(let value):
            return "\(clamp(value * factor))"
        case .list(let items):
            let parts = items.map { scaled($0, by: factor, within: range) }
            guard parts.allSatisfy({ $0 != nil }) else { return nil }
            return "[" + parts.compactMap { $0 }.joined(separator: ", ") + "]"
        default:
            return nil
        }
    }

    /// The controls the page shows for `node`: numbers with a usable range (the declared suggested
    /// range for the slider, or the hard range when it is narrow enough to slide over), and colours
    /// (3 or 4 numbers named for a colour).
    func controls(of node: GraphNode) -> [PreviewState.Control] {
        var controls: [PreviewState.Control] = []
        for parameter in node.declaration.parameters {
            let setting = node.parameters[parameter.name]
            if case .upstream? = setting?.source { continue }
            var literal = parameter.defaultValue
            if case .value(let value)? = setting?.source { literal = value.literal }
            let numbers = Self.numbers(literal)
            let hard = parameter.range.flatMap { $0.upperBound - $0.lowerBound <= 100_000 ? $0 : nil }
            let slider = parameter.suggested ?? hard
            var control = PreviewState.Control(
                parameter: parameter.name, kind: "", value: numbers ?? [], min: parameter.range?.lowerBound.finite,
                max: parameter.range?.upperBound.finite, sliderMin: slider?.lowerBound, sliderMax: slider?.upperBound,
                unit: parameter.unit, doc: parameter.doc, isSet: setting != nil)
            switch parameter.type {
            case .number, .integer:
                guard slider != nil, let numbers, numbers.count == 1 else { continue }
                control.kind = parameter.type == .integer ? "integer" : "number"
            case .numbers(let count) where count == 3 || count == 4:
                let name = parameter.name.lowercased()
                guard name.contains("color") || name.contains("colour") || name.contains("background"),
                    let numbers, numbers.count == count
                else { continue }
                control.kind = "color"
            default:
                continue
            }
            controls.append(control)
        }
        return controls
    }

    private static func numbers(_ literal: Literal?) -> [Double]? {
        switch literal {
        case .integer(let value)?: [Double(value)]
        case .number(let value)?: [value]
        case .list(let items)?:
            items.allSatisfy { numbers($0) != nil } ? items.compactMap { numbers($0)?.first } : nil
        default: nil
        }
    }
}

extension Double {
    /// The number, or nil when infinite (JSON has no infinities).
    fileprivate var finite: Double? { isFinite ? self : nil }
}
