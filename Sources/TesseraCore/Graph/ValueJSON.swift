import Foundation

/// Values that are not images as JSON: each kind one object whose `kind` names it, described by a JSON
/// Schema in `Docs/schemas/` (`boxes.schema.json`, `contours.schema.json`, `faces.schema.json`,
/// `hands.schema.json`, `number.schema.json`, `text.schema.json`, `barcodes.schema.json`, `bodies.schema.json`,
/// `rectangles.schema.json`).
/// `save`, `tessera run --json`, the C API's `tessera_graph_value_json` write it, and values from outside
/// the engine (a plugin) are read from it (``parse(_:as:)``).
package enum ValueJSON {
    /// `value` as the JSON its kind's schema describes; nil for an image.
    package static func encode(_ value: NodeValue) -> String? {
        switch value {
        case .image: nil
        case .contours(let contours): json(contours)
        case .boxes(let boxes): json(boxes)
        case .number(let number): "{\"kind\": \"number\", \"value\": \(exactNumber(number))}\n"
        case .faces(let faces): json(faces)
        case .text(let lines): json(lines)
        case .hands(let hands): json(hands)
        case .barcodes(let codes): json(codes)
        case .bodies(let bodies): json(bodies)
        case .rectangles(let quads): json(quads)
        }
    }

    /// A box's `x`, `y`, `width`, `height` and `confidence`, as every list of boxes writes them.
    private static func fields(_ box: Box) -> String {
        "\"x\": \(number(box.x)), \"y\": \(number(box.y)), \"width\": \(number(box.width)), "
            + "\"height\": \(number(box.height)), \"confidence\": \(number(box.confidence))"
    }

    /// `{"kind": name, name: [...]}`, one item a line.
    private static func list(_ name: String, _ items: [String]) -> String {
        "{\"kind\": \"\(name)\", \"\(name)\": ["
            + (items.isEmpty ? "" : "\n" + items.joined(separator: ",\n") + "\n")
            + "]}\n"
    }

    private static func point(_ p: SIMD2<Double>) -> String { "[\(number(p.x)),\(number(p.y))]" }

    /// `{"kind": "faces", "faces": [...]}`: each face's box (`x`, `y`, `width`, `height`, `confidence`),
    /// `roll`, `yaw`, `pitch` in degrees, `captureQuality`, `keypoints` by name (`[x, y]`), and when the
    /// mesh was computed `landmarks` (468 `[x, y, z]`) and the `regions` read from it by name (lists of
    /// `[x, y]`; derived, so ignored when read back), and when the irises were `irises` (`left` and
    /// `right`, each `[x, y, radius]`). One face a line.
    static func json(_ faces: [Face]) -> String {
        let items = faces.map { face in
            var parts = [
                fields(face.box),
                "\"roll\": \(number(face.roll)), \"yaw\": \(number(face.yaw)), \"pitch\": \(number(face.pitch)), "
                    + "\"captureQuality\": \(number(face.captureQuality))",
                "\"keypoints\": {"
                    + zip(Face.Keypoint.allCases, face.keypoints).map { "\"\($0.rawValue)\": \(point($1))" }
                    .joined(separator: ", ") + "}",
            ]
            if !face.landmarks.isEmpty {
                parts.append(
                    "\"landmarks\": ["
                        + face.landmarks.map { "[\(number($0.x)),\(number($0.y)),\(number($0.z))]" }
                        .joined(separator: ",") + "]")
                parts.append(
                    "\"regions\": {"
                        + face.regionPoints.map {
                            "\"\($0.name)\": [" + $0.points.map(point).joined(separator: ",") + "]"
                        }
                        .joined(separator: ", ") + "}")
            }
            if face.irises.count == 2 {
                let (left, right) = (face.irises[0], face.irises[1])
                parts.append(
                    "\"irises\": {\"left\": [\(number(left.x)),\(number(left.y)),\(number(left.z))], \"right\": ["
                        + "\(number(right.x)),\(number(right.y)),\(number(right.z))]}")
            }
            return "{" + parts.joined(separator: ", ") + "}"
        }
        return list("faces", items)
    }

    /// `{"kind": "text", "text": [...]}`: each line's box (`x`, `y`, `width`, `height`, `confidence`), its
    /// `string`, and its `quad` (`[x, y]` top-left, top-right, bottom-right, bottom-left as the text
    /// reads). One line of text a line.
    static func json(_ lines: [TextLine]) -> String {
        list(
            "text",
            lines.map { line in
                "{" + fields(line.box) + ", \"string\": " + JSONText.quoted(line.string) + ", \"quad\": ["
                    + line.quad.map(point).joined(separator: ",") + "]}"
            })
    }

    /// `{"kind": "hands", "hands": [...]}`: each hand's box (`x`, `y`, `width`, `height`, `confidence`), its
    /// `chirality` (`left`, `right` or `unknown`, the subject's own hand) and its `joints` by Vision's
    /// names, each `{"x", "y", "z", "confidence"}`. One hand a line.
    static func json(_ hands: [Hand]) -> String {
        list(
            "hands",
            hands.map { hand in
                "{" + fields(hand.box) + ", \"chirality\": \"\(hand.chirality.rawValue)\", \"joints\": "
                    + joints(Hand.Joint.allCases.map(\.rawValue), hand.joints, [("confidence", hand.jointConfidences)])
                    + "}"
            })
    }

    /// Named joints as `{"name": {"x", "y", "z", and each score}, ...}`, in the order of `names`.
    private static func joints(_ names: [String], _ points: [SIMD3<Double>], _ scores: [(String, [Double])])
        -> String
    {
        "{"
            + zip(names, points).enumerated().map { index, joint in
                let (name, at) = joint
                return "\"\(name)\": {\"x\": \(number(at.x)), \"y\": \(number(at.y)), \"z\": \(number(at.z))"
                    + scores.map { ", \"\($0.0)\": \(number($0.1[index]))" }.joined() + "}"
            }
            .joined(separator: ", ") + "}"
    }

    /// `{"kind": "barcodes", "barcodes": [...]}`: each code's box (`x`, `y`, `width`, `height`,
    /// `confidence`), its `symbology`, its `payload` and its `corners` (`[x, y]` top-left, top-right,
    /// bottom-right, bottom-left as the code reads). One code a line.
    static func json(_ codes: [Barcode]) -> String {
        list(
            "barcodes",
            codes.map { code in
                "{" + fields(code.box) + ", \"symbology\": " + JSONText.quoted(code.symbology) + ", \"payload\": "
                    + JSONText.quoted(code.payload) + ", \"corners\": ["
                    + code.corners.map(point).joined(separator: ",")
                    + "]}"
            })
    }

    /// `{"kind": "rectangles", "rectangles": [...]}`: each quadrilateral's box (`x`, `y`, `width`, `height`,
    /// `confidence`) and its `corners` (`[x, y]` top-left, top-right, bottom-right, bottom-left). One a line.
    static func json(_ quads: [Quadrilateral]) -> String {
        list(
            "rectangles",
            quads.map { quad in
                "{" + fields(quad.box) + ", \"corners\": [" + quad.corners.map(point).joined(separator: ",") + "]}"
            })
    }

    /// `{"kind": "bodies", "bodies": [...]}`: each body's box (`x`, `y`, `width`, `height`, `confidence`; around
    /// the joints seen), its `joints` by MediaPipe's 33 names, each `{"x", "y", "z", "visibility", "presence"}`,
    /// and `vision`, Vision's 19 joints read from them, each `{"x", "y", "confidence"}` (derived, so ignored
    /// when read back). One body a line.
    static func json(_ bodies: [Body]) -> String {
        list(
            "bodies",
            bodies.map { body in
                let vision = body.visionPoints.map { name, point, confidence in
                    "\"\(name)\": {\"x\": \(number(point.x)), \"y\": \(number(point.y)), "
                        + "\"confidence\": \(number(confidence))}"
                }
                return "{" + fields(body.box) + ", \"joints\": "
                    + joints(
                        Body.Joint.allCases.map(\.rawValue), body.joints,
                        [("visibility", body.visibilities), ("presence", body.presences)])
                    + ", \"vision\": {" + vision.joined(separator: ", ") + "}}"
            })
    }

    /// `{"kind": "boxes", "boxes": [...]}`: each box's `x`, `y`, `width`, `height` in pixels (origin
    /// top-left) and its `confidence` in 0...1, most confident first as the node gave them. One box a line.
    static func json(_ boxes: [Box]) -> String {
        list("boxes", boxes.map { "{" + fields($0) + "}" })
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

    /// A coordinate as JSON and SVG write it: whole numbers without a fraction, others to 1/1000.
    package static func number(_ value: Double) -> String {
        guard value.isFinite else { return "0" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int(value)) }
        var text = String(format: "%.3f", value)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text == "-0" ? "0" : text
    }

    /// A number value in full: the shortest text that reads back as the same Double; null when not finite
    /// (JSON has no infinities).
    package static func exactNumber(_ value: Double) -> String {
        guard value.isFinite else { return "null" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int(value)) }
        return "\(value)"
    }
}
