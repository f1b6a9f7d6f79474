import Foundation
import TesseraCore

/// Writes contours as SVG (to look at, or to cut with a plotter) or JSON (to read in another program).
/// Both are written atomically, as images are: under a temporary name, renamed when complete.
public enum ContourFile {
    /// The formats contours are written in, from the path's extension.
    public enum Format: String, Sendable {
        case svg, json

        /// The format `path`'s extension names (`.svg`, `.json`), or nil.
        public init?(path: String) {
            self.init(rawValue: (path as NSString).pathExtension.lowercased())
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

    /// Writes `contours` to `path` in the format its extension names.
    public static func save(_ contours: Contours, to path: String, style: Style = Style()) throws {
        guard let format = Format(path: path) else {
            throw ImageError(path: path, message: "contours are written as .svg or .json, not '\(path)'")
        }
        let text = format == .svg ? svg(contours, style: style) : json(contours)
        try FileSystem.write(text, atomicallyTo: path)
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

    /// The JSON documented in the README: `imageWidth`, `imageHeight`, `tracedWidth`, `tracedHeight`
    /// and `contours`, each with `points` (`[x, y]` in the traced grid; integers when whole), `parent`
    /// (index or -1), `children`, `isHole` and `boundingBox` (`[x, y, width, height]`, OpenCV's
    /// `boundingRect`). One contour a line.
    public static func json(_ contours: Contours) -> String {
        var lines = [
            "{",
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

    /// A number as JSON and SVG write it: whole numbers without a fraction, others to 1/1000.
    static func number(_ value: Double) -> String {
        guard value.isFinite else { return "0" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int(value)) }
        var text = String(format: "%.3f", value)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text == "-0" ? "0" : text
    }
}
