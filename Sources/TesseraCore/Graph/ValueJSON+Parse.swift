import Foundation

extension ValueJSON {
    /// The most a parsed value may hold: boxes, contours, and points in all contours. A value beyond
    /// them is refused, not allocated (a plugin or a file may claim anything).
    package static let maxItems = 1 << 20
    package static let maxPoints = 1 << 24
    /// The largest coordinate or size a parsed value may give, in pixels (as the graph's own limit).
    package static let maxCoordinate = Double(1 << 30)
    /// The most pixels a contours' image or traced grid may cover (the default output limit, 2^32).
    package static let maxArea = 1 << 32
    /// The longest JSON text read: checked before anything is decoded.
    package static let maxBytes = 256 << 20

    /// A problem with a value's JSON: what is wrong, and where in the value (`boxes[3].width`).
    package struct ParseError: Error, CustomStringConvertible, Equatable {
        package var message: String
        package var description: String { message }
    }

    /// Reads `text`, the JSON ``encode(_:)`` writes for a value of `type`, back into the value: the inverse
    /// of writing it, to within the 1/1000 of a pixel coordinates are written to. Everything is checked
    /// (the kind, every field's type, finite numbers in range, contour indices, counts under
    /// ``maxItems`` and ``maxPoints``), so a value from outside (a plugin, a file) is either valid or
    /// refused with one line saying where it is wrong.
    package static func parse(_ text: String, as type: PortType) throws(ParseError) -> NodeValue {
        guard type != .image else { throw ParseError(message: "an image is not a JSON value") }
        guard text.utf8.count <= maxBytes else {
            throw ParseError(message: "\(text.utf8.count) bytes of JSON, more than the limit of \(maxBytes)")
        }
        let object: Literal
        do {
            object = try JSONDecoder().decode(JSONLiteral.self, from: Data(text.utf8)).literal
        } catch {
            throw ParseError(message: "not JSON (\(Self.reason(error)))")
        }
        let reader = Reader()
        let root = try reader.object(object)
        let kind = try reader.string(root["kind"], at: "kind")
        guard kind == type.rawValue else {
            throw ParseError(message: "kind is \"\(kind)\", not \"\(type.rawValue)\"")
        }
        switch type {
        case .image: preconditionFailure("refused above")
        case .number:
            // JSON has no infinities or NaN: `json` writes null for them.
            if case .null? = root["value"] { return .number(.nan) }
            return .number(try reader.number(root["value"], at: "value", limit: .greatestFiniteMagnitude))
        case .boxes:
            let items = try reader.array(root["boxes"], at: "boxes", limit: maxItems)
            var boxes: [Box] = []
            boxes.reserveCapacity(items.count)
            for (index, item) in items.enumerated() {
                boxes.append(try reader.box(try reader.object(item, at: "boxes[\(index)]"), at: "boxes[\(index)]"))
            }
            return .boxes(boxes)
        case .faces:
            let items = try reader.array(root["faces"], at: "faces", limit: maxItems)
            var faces: [Face] = []
            var pointsLeft = maxPoints
            for (index, item) in items.enumerated() {
                let at = "faces[\(index)]"
                let face = try reader.object(item, at: at)
                func angle(_ name: String) throws(ParseError) -> Double {
                    try reader.number(face[name], at: "\(at).\(name)", limit: 180)
                }
                let box = try reader.box(face, at: at)
                let (roll, yaw, pitch) = (try angle("roll"), try angle("yaw"), try angle("pitch"))
                let quality = try reader.number(face["captureQuality"], at: "\(at).captureQuality", limit: 1)
                guard quality >= 0 else { throw ParseError(message: "\(at).captureQuality is \(quality), below 0") }
                let named = try reader.object(face["keypoints"], at: "\(at).keypoints")
                var keypoints: [SIMD2<Double>] = []
                for keypoint in Face.Keypoint.allCases {
                    let place = "\(at).keypoints.\(keypoint.rawValue)"
                    let pair = try reader.numbers(named[keypoint.rawValue], at: place, count: 2)
                    keypoints.append(SIMD2(pair[0], pair[1]))
                }
                var landmarks: [SIMD3<Double>] = []
                if face["landmarks"] != nil, face["landmarks"] != .null {
                    let place = "\(at).landmarks"
                    let points = try reader.array(face["landmarks"], at: place, limit: Face.meshPoints)
                    guard points.count == Face.meshPoints, pointsLeft >= points.count else {
                        throw ParseError(message: "\(place) holds \(points.count) points, not \(Face.meshPoints)")
                    }
                    pointsLeft -= points.count
                    for (k, point) in points.enumerated() {
                        let triple = try reader.numbers(point, at: "\(place)[\(k)]", count: 3)
                        landmarks.append(SIMD3(triple[0], triple[1], triple[2]))
                    }
                }
                var irises: [SIMD3<Double>] = []
                if face["irises"] != nil, face["irises"] != .null {
                    let named = try reader.object(face["irises"], at: "\(at).irises")
                    for side in ["left", "right"] {
                        let triple = try reader.numbers(named[side], at: "\(at).irises.\(side)", count: 3)
                        guard triple[2] >= 0 else {
                            throw ParseError(message: "\(at).irises.\(side)'s radius is \(triple[2]), below 0")
                        }
                        irises.append(SIMD3(triple[0], triple[1], triple[2]))
                    }
                }
                faces.append(
                    Face(
                        box: box, roll: roll, yaw: yaw, pitch: pitch, captureQuality: quality, keypoints: keypoints,
                        landmarks: landmarks, irises: irises))
            }
            return .faces(faces)
        case .text:
            // The box is the quad's extent, so only its confidence is read.
            let items = try reader.array(root["text"], at: "text", limit: maxItems)
            var lines: [TextLine] = []
            for (index, item) in items.enumerated() {
                let at = "text[\(index)]"
                let line = try reader.object(item, at: at)
                let confidence = try reader.box(line, at: at).confidence
                let string = try reader.string(line["string"], at: "\(at).string")
                let quad = try reader.quadrilateral(line["quad"], at: "\(at).quad")
                lines.append(TextLine(quad: quad, string: string, confidence: confidence))
            }
            return .text(lines)
        case .barcodes:
            // The box is the corners' extent, so only its confidence is read.
            let items = try reader.array(root["barcodes"], at: "barcodes", limit: maxItems)
            var codes: [Barcode] = []
            for (index, item) in items.enumerated() {
                let at = "barcodes[\(index)]"
                let code = try reader.object(item, at: at)
                let confidence = try reader.box(code, at: at).confidence
                let symbology = try reader.string(code["symbology"], at: "\(at).symbology")
                let payload = try reader.string(code["payload"], at: "\(at).payload")
                let corners = try reader.quadrilateral(code["corners"], at: "\(at).corners")
                codes.append(Barcode(corners: corners, symbology: symbology, payload: payload, confidence: confidence))
            }
            return .barcodes(codes)
        case .rectangles:
            // The box is the corners' extent, so only its confidence is read.
            let items = try reader.array(root["rectangles"], at: "rectangles", limit: maxItems)
            var quads: [Quadrilateral] = []
            for (index, item) in items.enumerated() {
                let at = "rectangles[\(index)]"
                let quad = try reader.object(item, at: at)
                let confidence = try reader.box(quad, at: at).confidence
                quads.append(
                    Quadrilateral(
                        corners: try reader.quadrilateral(quad["corners"], at: "\(at).corners"), confidence: confidence)
                )
            }
            return .rectangles(quads)
        case .hands:
            // The box is the joints' extent, so only its confidence is read.
            let items = try reader.array(root["hands"], at: "hands", limit: maxItems)
            var hands: [Hand] = []
            for (index, item) in items.enumerated() {
                let at = "hands[\(index)]"
                let hand = try reader.object(item, at: at)
                let confidence = try reader.box(hand, at: at).confidence
                let name = try reader.string(hand["chirality"], at: "\(at).chirality")
                guard let chirality = Hand.Chirality(rawValue: name) else {
                    throw ParseError(message: "\(at).chirality is \"\(name)\", not left, right or unknown")
                }
                let (joints, scores) = try reader.joints(
                    hand["joints"], Hand.Joint.allCases.map(\.rawValue), scores: ["confidence"], at: "\(at).joints")
                hands.append(
                    Hand(chirality: chirality, joints: joints, jointConfidences: scores[0], confidence: confidence))
            }
            return .hands(hands)
        case .bodies:
            // The box is the seen joints' extent, and Vision's joints are read from the others: only the
            // confidence and the 33 joints are read.
            let items = try reader.array(root["bodies"], at: "bodies", limit: maxItems)
            var bodies: [Body] = []
            for (index, item) in items.enumerated() {
                let at = "bodies[\(index)]"
                let body = try reader.object(item, at: at)
                let confidence = try reader.box(body, at: at).confidence
                let (joints, scores) = try reader.joints(
                    body["joints"], Body.Joint.allCases.map(\.rawValue), scores: ["visibility", "presence"],
                    at: "\(at).joints")
                bodies.append(
                    Body(joints: joints, visibilities: scores[0], presences: scores[1], confidence: confidence))
            }
            return .bodies(bodies)
        case .contours:
            func size(_ name: String) throws(ParseError) -> Int {
                let value = try reader.integer(root[name], at: name)
                guard value > 0, Double(value) <= maxCoordinate else {
                    throw ParseError(message: "\(name) is \(value), not from 1 to \(Int(maxCoordinate))")
                }
                return value
            }
            let (imageWidth, imageHeight) = (try size("imageWidth"), try size("imageHeight"))
            let (width, height) = (try size("tracedWidth"), try size("tracedHeight"))
            for (name, w, h) in [("image", imageWidth, imageHeight), ("traced grid", width, height)]
            where w * h > maxArea {
                throw ParseError(message: "the \(name) is \(w)x\(h), more than \(maxArea) pixels")
            }
            let items = try reader.array(root["contours"], at: "contours", limit: maxItems)
            var contours: [Contours.Contour] = []
            var pointsLeft = maxPoints
            for (index, item) in items.enumerated() {
                let at = "contours[\(index)]"
                let contour = try reader.object(item, at: at)
                let parent = try reader.integer(contour["parent"], at: "\(at).parent")
                guard parent >= -1, parent < items.count, parent != index else {
                    throw ParseError(message: "\(at).parent is \(parent), not -1 or another contour's index")
                }
                let childItems = try reader.array(contour["children"], at: "\(at).children", limit: items.count)
                var children: [Int] = []
                for (k, child) in childItems.enumerated() {
                    let value = try reader.integer(child, at: "\(at).children[\(k)]")
                    guard value >= 0, value < items.count else {
                        throw ParseError(message: "\(at).children[\(k)] is \(value), not a contour's index")
                    }
                    children.append(value)
                }
                guard case .bool(let isHole)? = contour["isHole"] else {
                    throw ParseError(message: "\(at).isHole is not true or false")
                }
                let pointItems = try reader.array(contour["points"], at: "\(at).points", limit: pointsLeft)
                pointsLeft -= pointItems.count
                var points: [SIMD2<Double>] = []
                points.reserveCapacity(pointItems.count)
                for (k, point) in pointItems.enumerated() {
                    let pair = try reader.numbers(point, at: "\(at).points[\(k)]", count: 2)
                    points.append(SIMD2(pair[0], pair[1]))
                }
                contours.append(Contours.Contour(points: points, parent: parent, children: children, isHole: isHole))
            }
            // The hierarchy is a forest: each contour's children are exactly the contours naming it as
            // their parent, and no chain of parents comes back to where it started.
            for (index, contour) in contours.enumerated() {
                let named = contours.indices.filter { contours[$0].parent == index }
                guard contour.children.sorted() == named else {
                    throw ParseError(
                        message: "contours[\(index)].children is \(contour.children), but the contours whose parent it "
                            + "is are \(named)")
                }
                var current = contour.parent
                var steps = 0
                while current >= 0 {
                    steps += 1
                    guard steps <= contours.count else {
                        throw ParseError(message: "contours[\(index)]'s parents form a cycle")
                    }
                    current = contours[current].parent
                }
            }
            return .contours(
                Contours(
                    contours: contours, width: width, height: height, imageWidth: imageWidth, imageHeight: imageHeight))
        }
    }

    private static func reason(_ error: any Error) -> String {
        if case DecodingError.dataCorrupted(let context) = error { return context.debugDescription }
        return "\(error)"
    }

    /// Reads the parts of a value, each failure naming its place.
    private struct Reader {
        func object(_ value: Literal?, at place: String = "the value") throws(ParseError) -> [String: Literal] {
            guard case .mapping(let object)? = value else { throw ParseError(message: "\(place) is not an object") }
            return object
        }

        func array(_ value: Literal?, at place: String, limit: Int) throws(ParseError) -> [Literal] {
            guard case .list(let array)? = value else {
                throw ParseError(message: "\(place) is missing or not a list")
            }
            guard array.count <= limit else {
                throw ParseError(message: "\(place) holds \(array.count) items, more than the limit of \(limit)")
            }
            return array
        }

        func string(_ value: Literal?, at place: String) throws(ParseError) -> String {
            guard case .string(let string)? = value else {
                throw ParseError(message: "\(place) is missing or not a string")
            }
            return string
        }

        /// A finite number within `limit`.
        func number(_ value: Literal?, at place: String, limit: Double = ValueJSON.maxCoordinate) throws(ParseError)
            -> Double
        {
            guard let number = value?.number else {
                throw ParseError(message: "\(place) is missing or not a number")
            }
            guard number.isFinite, abs(number) <= limit else {
                throw ParseError(message: "\(place) is \(number), out of range")
            }
            return number
        }

        /// A box's `x`, `y`, `width`, `height` (not negative) and `confidence` (0...1) from `object`.
        func box(_ object: [String: Literal], at place: String) throws(ParseError) -> Box {
            func field(_ name: String, minimum: Double = -ValueJSON.maxCoordinate) throws(ParseError) -> Double {
                let value = try number(object[name], at: "\(place).\(name)")
                guard value >= minimum else {
                    throw ParseError(message: "\(place).\(name) is \(value), below \(minimum)")
                }
                return value
            }
            let confidence = try field("confidence", minimum: 0)
            guard confidence <= 1 else { throw ParseError(message: "\(place).confidence is \(confidence), above 1") }
            return Box(
                x: try field("x"), y: try field("y"), width: try field("width", minimum: 0),
                height: try field("height", minimum: 0), confidence: confidence)
        }

        /// A point: exactly `count` numbers, `[x, y]` or `[x, y, z]`, each checked as ``number(_:at:limit:)``.
        func numbers(_ value: Literal?, at place: String, count: Int) throws(ParseError) -> [Double] {
            let items = try array(value, at: place, limit: count)
            guard items.count == count else {
                throw ParseError(message: "\(place) is not " + (count == 2 ? "[x, y]" : "[x, y, z]"))
            }
            var result: [Double] = []
            for (index, item) in items.enumerated() { result.append(try number(item, at: "\(place)[\(index)]")) }
            return result
        }

        /// Named joints, `{"name": {"x", "y", "z", and each of scores}}` for every one of `names` (a hand's, a
        /// body's): their points, and for each score its value at every joint (0...1).
        func joints(_ value: Literal?, _ names: [String], scores: [String], at place: String) throws(ParseError) -> (
            [SIMD3<Double>], [[Double]]
        ) {
            let named = try object(value, at: place)
            var points: [SIMD3<Double>] = []
            var values = Array(repeating: [Double](), count: scores.count)
            for name in names {
                let joint = "\(place).\(name)"
                let fields = try object(named[name], at: joint)
                let (x, y) = (try number(fields["x"], at: "\(joint).x"), try number(fields["y"], at: "\(joint).y"))
                points.append(SIMD3(x, y, try number(fields["z"], at: "\(joint).z")))
                for (k, score) in scores.enumerated() {
                    let amount = try number(fields[score], at: "\(joint).\(score)", limit: 1)
                    guard amount >= 0 else { throw ParseError(message: "\(joint).\(score) is \(amount), below 0") }
                    values[k].append(amount)
                }
            }
            return (points, values)
        }

        /// Four `[x, y]` points: a text line's quad, a barcode's or a rectangle's corners.
        func quadrilateral(_ value: Literal?, at place: String) throws(ParseError) -> [SIMD2<Double>] {
            let points = try array(value, at: place, limit: 4)
            guard points.count == 4 else { throw ParseError(message: "\(place) holds \(points.count) points, not 4") }
            var corners: [SIMD2<Double>] = []
            for (index, point) in points.enumerated() {
                let pair = try numbers(point, at: "\(place)[\(index)]", count: 2)
                corners.append(SIMD2(pair[0], pair[1]))
            }
            return corners
        }

        func integer(_ value: Literal?, at place: String) throws(ParseError) -> Int {
            let double = try number(value, at: place)
            guard double == double.rounded() else {
                throw ParseError(message: "\(place) is \(double), not a whole number")
            }
            return Int(double)
        }
    }
}
