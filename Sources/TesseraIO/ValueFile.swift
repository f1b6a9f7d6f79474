import Foundation
import TesseraCore

/// Writes the values that are not images: every kind as JSON (to read in another program), contours
/// also as SVG (to look at, or to cut with a plotter). Files are written atomically, as images are:
/// under a temporary name, renamed when complete.
///
/// Each kind's JSON is one object whose `kind` names it, described by a JSON Schema in `Docs/schemas/`
/// (`boxes.schema.json`, `contours.schema.json`, `number.schema.json`). `save`, `tessera run --json`
/// and the C API's `tessera_graph_value_json` all write this same JSON.
public enum ValueFile {
    /// The formats values are written in, from the path's extension.
    public enum Format: String, Sendable, CaseIterable {
        case json, svg

        /// The format `path`'s extension names (`.json`, `.svg`), or nil.
        public init?(path: String) {
            self.init(rawValue: (path as NSString).pathExtension.lowercased())
        }

        /// The formats a value of `type` can be written in; none for images (they are image files).
        public static func formats(for type: PortType) -> [Format] {
            switch type {
            case .image: []
            case .contours: [.json, .svg]
            case .boxes, .number: [.json]
            }
        }

        /// "as .json", "as .json or .svg": what a message says a type is written as.
        static func phrase(for type: PortType) -> String {
            "as " + formats(for: type).map { "." + $0.rawValue }.joined(separator: " or ")
        }
    }

    /// How contours are stroked in SVG.
    public struct Style: Sendable {
        /// Red, green, blue, alpha in 0...1.
        public var stroke: SIMD4<Double> = [0, 0, 0, 1]
        /// In image pixels.
        public var strokeWidth = 1.0
        /// Color each contour by its depth in the hierarchy (a fixed palette, cycled) instead of `stroke`.
        public var colorByDepth = false

        public init() {}
    }

    /// Why `type` cannot be written to `path`, or nil when it can: "boxes are written as .json".
    public static func problem(writing type: PortType, to path: String) -> String? {
        let formats = Format.formats(for: type)
        guard !formats.isEmpty else { return nil }
        if let format = Format(path: path), formats.contains(format) { return nil }
        let subject = type == .number ? "a number is" : "\(type.phrase) are"
        return "\(subject) written \(Format.phrase(for: type)), not '\((path as NSString).lastPathComponent)'"
    }

    /// Writes `value` (not an image) to `path` in the format its extension names.
    public static func save(_ value: NodeValue, to path: String, style: Style = Style()) throws {
        if let problem = problem(writing: value.type, to: path) { throw ImageError(path: path, message: problem) }
        let text: String
        switch (value, Format(path: path)) {
        case (.contours(let contours), .svg?): text = svg(contours, style: style)
        default:
            guard let json = json(value) else {
                throw ImageError(path: path, message: "an image is written as an image file (.png, .tif or .jpg)")
            }
            text = json
        }
        try FileSystem.write(text, atomicallyTo: path)
    }

    /// `value` as the JSON its kind's schema describes; nil for an image.
    public static func json(_ value: NodeValue) -> String? {
        switch value {
        case .image: nil
        case .contours(let contours): json(contours)
        case .boxes(let boxes): json(boxes)
        case .number(let number): "{\"kind\": \"number\", \"value\": \(exactNumber(number))}\n"
        }
    }

    /// `{"kind": "boxes", "boxes": [...]}`: each box's `x`, `y`, `width`, `height` in pixels (origin
    /// top-left) and its `confidence` in 0...1, most confident first as the node gave them. One box a line.
    static func json(_ boxes: [Box]) -> String {
        let items = boxes.map { box in
            "{\"x\": \(number(box.x)), \"y\": \(number(box.y)), \"width\": \(number(box.width)), "
                + "\"height\": \(number(box.height)), \"confidence\": \(number(box.confidence))}"
        }
        return "{\"kind\": \"boxes\", \"boxes\": ["
            + (items.isEmpty ? "" : "\n" + items.joined(separator: ",\n") + "\n")
            + "]}\n"
    }

    /// `kind`, `imageWidth`, `imageHeight`, `tracedWidth`, `tracedHeight` and `contours`, each with
    /// `points` (`[x, y]` in the traced grid; integers when whole), `parent` (index or -1), `children`,
    /// `isHole` and `boundingBox` (`[x, y, width, height]`, OpenCV's `boundingRect`). One contour a line.
    static func json(_ contours: Contours) -> String {
        var lines = [
            "{\"kind\": \"contours\",",
            "\"imageWidth\": \(contours.imageWidth), \"imageHeight\": \(contours.imageHeight), "
                + "\"tracedWidth\": \(contours.width), \"tracedHeight\": \(contours.height),",
            "\"contours\": [",
        ]
        for (index, contour) in contours.contours.enumerated() {
            let points = contour.points.map { "[\(number($0.x)),\(number($0.y))]" }.joined(separator: ",")
            let box = contour.boundingBox
            let children = contour.children.map(String.init).joined(separator: ",")
            let comma = index == contours.contours.count - 1 ? "" : ","
            lines.append(
                "{\"parent\": \(contour.parent), \"children\": [\(children)], \"isHole\": \(contour.isHole), "
                    + "\"boundingBox\": [\(box.x),\(box.y),\(box.width),\(box.height)], \"points\": [\(points)]}"
                    + comma)
        }
        lines += ["]", "}"]
        return lines.joined(separator: "\n") + "\n"
    }

    /// Colors for ``Style/colorByDepth``: depth 0, 1, 2, ... (then again from the start).
    static let palette: [String] = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2"]

    /// One `<path>` per contour (`M x y L ... Z`) in image pixels (``Contours/imagePoint(_:)``); the
    /// `viewBox` is the image's size. A one-point contour's path has no length and draws nothing (butt
    /// caps), as in `drawContours`.
    public static func svg(_ contours: Contours, style: Style = Style()) -> String {
        let (w, h) = (contours.imageWidth, contours.imageHeight)
        let clamped = style.stroke.clamped(lowerBound: .zero, upperBound: .one)
        let hex = (0..<3).map { String(format: "%02x", Int((clamped[$0] * 255).rounded())) }.joined()
        var lines = [
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>",
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(w)\" height=\"\(h)\" viewBox=\"0 0 \(w) \(h)\">",
            "<g fill=\"none\" stroke=\"#\(hex)\" stroke-opacity=\"\(number(clamped.w))\" "
                + "stroke-width=\"\(number(style.strokeWidth))\" stroke-linejoin=\"round\">",
        ]
        for (index, contour) in contours.contours.enumerated() {
            guard !contour.points.isEmpty else { continue }
            var d = ""
            for (k, point) in contour.points.enumerated() {
                let p = contours.imagePoint(point)
                d += (k == 0 ? "M" : " L") + number(p.x) + " " + number(p.y)
            }
            d += " Z"
            let color = style.colorByDepth ? " stroke=\"\(palette[contours.depth(of: index) % palette.count])\"" : ""
            lines.append("<path\(color) d=\"\(d)\"/>")
        }
        lines += ["</g>", "</svg>"]
        return lines.joined(separator: "\n") + "\n"
    }

    /// A coordinate as JSON and SVG write it: whole numbers without a fraction, others to 1/1000.
    static func number(_ value: Double) -> String {
        guard value.isFinite else { return "0" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int(value)) }
        var text = String(format: "%.3f", value)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text == "-0" ? "0" : text
    }

    /// A number value in full: the shortest text that reads back as the same Double; null when not finite
    /// (JSON has no infinities).
    static func exactNumber(_ value: Double) -> String {
        guard value.isFinite else { return "null" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int(value)) }
        return "\(value)"
    }
}
