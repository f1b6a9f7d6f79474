import Foundation
import TesseraCore

/// Writes the values that are not images: every kind as JSON (``ValueJSON``, to read in another
/// program), contours also as SVG (to look at, or to cut with a plotter). Files are written atomically,
/// as images are: under a temporary name, renamed when complete.
package enum ValueFile {
    /// The formats values are written in, from the path's extension.
    package enum Format: String, Sendable, CaseIterable {
        case json, svg

        /// The format `path`'s extension names (`.json`, `.svg`), or nil.
        package init?(path: String) {
            self.init(rawValue: (path as NSString).pathExtension.lowercased())
        }

        /// The formats a value of `type` can be written in; none for images (they are image files).
        package static func formats(for type: PortType) -> [Format] {
            switch type {
            case .image: []
            case .contours: [.json, .svg]
            case .boxes, .number, .faces, .text, .hands, .barcodes, .bodies, .rectangles: [.json]
            }
        }

        /// "as .json", "as .json or .svg": what a message says a type is written as.
        static func phrase(for type: PortType) -> String {
            "as " + formats(for: type).map { "." + $0.rawValue }.joined(separator: " or ")
        }
    }

    /// How contours are stroked in SVG.
    package struct Style: Sendable {
        /// Red, green, blue, alpha in 0...1.
        package var stroke: SIMD4<Double> = [0, 0, 0, 1]
        /// In image pixels.
        package var strokeWidth = 1.0
        /// Color each contour by its depth in the hierarchy (a fixed palette, cycled) instead of `stroke`.
        package var colorByDepth = false

        package init() {}
    }

    /// Why `type` cannot be written to `path`, or nil when it can: "boxes are written as .json".
    package static func problem(writing type: PortType, to path: String) -> String? {
        let formats = Format.formats(for: type)
        guard !formats.isEmpty else { return nil }
        if let format = Format(path: path), formats.contains(format) { return nil }
        let subject = type == .number ? "a number is" : "\(type.phrase) are"
        return "\(subject) written \(Format.phrase(for: type)), not '\((path as NSString).lastPathComponent)'"
    }

    /// Writes `value` (not an image) to `path` in the format its extension names.
    package static func save(_ value: NodeValue, to path: String, style: Style = Style()) throws {
        if let problem = problem(writing: value.type, to: path) { throw ImageError(path: path, message: problem) }
        let text: String
        switch (value, Format(path: path)) {
        case (.contours(let contours), .svg?): text = svg(contours, style: style)
        default:
            guard let json = ValueJSON.encode(value) else {
                throw ImageError(
                    path: path,
                    message: "an image is written as an image file (.png, .tif, .jpg, .webp, .heic or .avif)")
            }
            text = json
        }
        try FileSystem.write(text, atomicallyTo: path)
    }

    /// Colors for ``Style/colorByDepth``: depth 0, 1, 2, ... (then again from the start).
    static let palette: [String] = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2"]

    /// One `<path>` per contour (`M x y L ... Z`) in image pixels (``Contours/imagePoint(_:)``); the
    /// `viewBox` is the image's size. A one-point contour's path has no length and draws nothing (butt
    /// caps), as in `drawContours`.
    package static func svg(_ contours: Contours, style: Style = Style()) -> String {
        let (w, h) = (contours.imageWidth, contours.imageHeight)
        let clamped = style.stroke.clamped(lowerBound: .zero, upperBound: .one)
        let hex = (0..<3).map { String(format: "%02x", Int((clamped[$0] * 255).rounded())) }.joined()
        var lines = [
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>",
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(w)\" height=\"\(h)\" viewBox=\"0 0 \(w) \(h)\">",
            "<g fill=\"none\" stroke=\"#\(hex)\" stroke-opacity=\"\(ValueJSON.number(clamped.w))\" "
                + "stroke-width=\"\(ValueJSON.number(style.strokeWidth))\" stroke-linejoin=\"round\">",
        ]
        for (index, contour) in contours.contours.enumerated() {
            guard !contour.points.isEmpty else { continue }
            var d = ""
            for (k, point) in contour.points.enumerated() {
                let p = contours.imagePoint(point)
                d += (k == 0 ? "M" : " L") + ValueJSON.number(p.x) + " " + ValueJSON.number(p.y)
            }
            d += " Z"
            let color = style.colorByDepth ? " stroke=\"\(palette[contours.depth(of: index) % palette.count])\"" : ""
            lines.append("<path\(color) d=\"\(d)\"/>")
        }
        lines += ["</g>", "</svg>"]
        return lines.joined(separator: "\n") + "\n"
    }
}
