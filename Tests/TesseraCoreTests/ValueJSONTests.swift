import Foundation
import Testing

@testable import TesseraCore

/// `ValueJSON.parse` reads back what `ValueJSON.encode` writes, and refuses anything else with one line
/// naming the place: values from outside (a plugin, a file) cross into the engine through it.
@Suite struct ValueJSONTests {
    static func boxes(_ value: NodeValue) -> [Box]? {
        guard case .boxes(let boxes) = value else { return nil }
        return boxes
    }

    @Test func writtenValuesReadBack() throws {
        let boxes: [Box] = [
            Box(x: 1.5, y: 2.25, width: 30, height: 40.125, confidence: 0.875), Box(x: -3, y: 0, width: 0, height: 7),
        ]
        #expect(try Self.boxes(ValueJSON.parse(try #require(ValueJSON.encode(.boxes(boxes))), as: .boxes)) == boxes)
        #expect(try Self.boxes(ValueJSON.parse(try #require(ValueJSON.encode(.boxes([]))), as: .boxes)) == [])

        let contours = Contours(
            contours: [
                .init(points: [SIMD2(0, 0), SIMD2(4, 0), SIMD2(4, 3.5)], parent: -1, children: [1]),
                .init(points: [SIMD2(1, 1)], parent: 0, isHole: true),
            ], width: 8, height: 6, imageWidth: 16, imageHeight: 12)
        guard
            case .contours(let back) = try ValueJSON.parse(
                try #require(ValueJSON.encode(.contours(contours))), as: .contours)
        else {
            Issue.record("not contours")
            return
        }
        #expect(back.contours == contours.contours)
        #expect((back.width, back.height, back.imageWidth, back.imageHeight) == (8, 6, 16, 12))

        for number in [0, -2.5, 1e300, 0.1 + 0.2] {
            guard
                case .number(let back) = try ValueJSON.parse(
                    try #require(ValueJSON.encode(.number(number))), as: .number)
            else {
                Issue.record("not a number")
                return
            }
            #expect(back == number)
        }
        guard case .number(let nan) = try ValueJSON.parse(try #require(ValueJSON.encode(.number(.nan))), as: .number)
        else {
            Issue.record("not a number")
            return
        }
        #expect(nan.isNaN)

        let mesh = (0..<Face.meshPoints).map { (index: Int) -> SIMD3<Double> in
            let (row, column) = index.quotientAndRemainder(dividingBy: 40)
            return SIMD3(Double(column), Double(row) + 0.5, -Double(index) / 8)
        }
        let faces = [
            Face(
                box: Box(x: 10, y: 20.5, width: 30, height: 31, confidence: 0.75), roll: -12.5, yaw: 30, pitch: 4.25,
                captureQuality: 0.625, keypoints: (0..<6).map { SIMD2(Double($0), 2) }, landmarks: mesh),
            Face(box: Box(x: 0, y: 0, width: 1, height: 1), keypoints: Array(repeating: SIMD2(0.5, 0.5), count: 6)),
        ]
        let written = try #require(ValueJSON.encode(.faces(faces)))
        guard case .faces(let facesBack) = try ValueJSON.parse(written, as: .faces) else {
            Issue.record("not faces")
            return
        }
        #expect(facesBack == faces)
        // The regions are written from the mesh: the left pupil is the middle of the left eye's outline.
        let eye = Face.regions.first { $0.name == "leftEye" }!.indices
        let pupil = eye.map { SIMD2(mesh[$0].x, mesh[$0].y) }.reduce(SIMD2<Double>(), +) / Double(eye.count)
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(written.utf8)) as? [String: Any])
        let first = try #require((object["faces"] as? [[String: Any]])?.first)
        let regions = try #require(first["regions"] as? [String: [[Double]]])
        #expect(Set(regions.keys).count == 12)
        let written2 = try #require(regions["leftPupil"]?.first)
        #expect(abs(written2[0] - pupil.x) < 1e-3 && abs(written2[1] - pupil.y) < 1e-3)
        // Faces given where boxes are taken become their boxes.
        #expect([Box].from(.faces(faces)) == faces.map { $0.box })
    }

    /// Barcodes go out and come back as they were: symbology, payload with what JSON escapes, corners of a
    /// code read upside down; a boxes port takes them as the corners' extents.
    @Test func barcodesRoundTrip() throws {
        let codes = [
            Barcode(
                corners: [SIMD2(40, 40), SIMD2(160.5, 40), SIMD2(160, 160), SIMD2(40, 160)], symbology: "qr",
                payload: "https://example.org/?a=1&b=\"2\"\n疗"),
            Barcode(
                corners: [SIMD2(300, 90), SIMD2(200, 90), SIMD2(200, 88), SIMD2(300, 88)], symbology: "ean13",
                payload: "4006381333931", confidence: 0.5),
        ]
        let text = try #require(ValueJSON.encode(.barcodes(codes)))
        guard case .barcodes(let back) = try ValueJSON.parse(text, as: .barcodes) else {
            Issue.record("not barcodes")
            return
        }
        #expect(back == codes)
        #expect(codes[0].box == Box(x: 40, y: 40, width: 120.5, height: 120, confidence: 1))
        #expect([Box].from(.barcodes(codes)) == codes.map(\.box))
        #expect(throws: ValueJSON.ParseError.self) {
            try ValueJSON.parse(text.replacingOccurrences(of: "[40,160]", with: ""), as: .barcodes)
        }
    }

    /// Rectangles go out and come back as they were (corners to the writer's three decimals, confidence); the
    /// box is the corners' extent, a boxes port takes them as it, and three corners are refused.
    @Test func rectanglesRoundTrip() throws {
        let quads = [
            Quadrilateral(
                corners: [SIMD2(60, 30), SIMD2(540.25, 50), SIMD2(520, 730.5), SIMD2(40, 700)], confidence: 0.9),
            Quadrilateral(corners: [SIMD2(5, 5), SIMD2(25, 5), SIMD2(25, 15), SIMD2(5, 15)], confidence: 0.5),
        ]
        let text = try #require(ValueJSON.encode(.rectangles(quads)))
        guard case .rectangles(let back) = try ValueJSON.parse(text, as: .rectangles) else {
            Issue.record("not rectangles")
            return
        }
        #expect(back == quads)
        #expect(quads[0].box == Box(x: 40, y: 30, width: 500.25, height: 700.5, confidence: 0.9))
        #expect([Box].from(.rectangles(quads)) == quads.map(\.box))
        #expect(throws: ValueJSON.ParseError.self) {
            try ValueJSON.parse(text.replacingOccurrences(of: "[40,700]", with: ""), as: .rectangles)
        }
    }

    /// Bodies go out and come back as they were (the 33 joints, visibilities, presences, confidence); the box
    /// is around the joints seen (visibility from 0.5), Vision's neck and root lie between the shoulders and
    /// the hips with the lower visibility of the two, and a boxes port takes a body as its box.
    @Test func bodiesRoundTrip() throws {
        let joints: [SIMD3<Double>] = (0..<33).map { (index: Int) -> SIMD3<Double> in
            let i = Double(index)
            return SIMD3(100 + i * 2, 50 + i * 10, -i / 4)
        }
        // The last joints (the legs, from index 25) are hidden.
        let visibilities: [Double] = (0..<33).map { (index: Int) -> Double in
            index < 25 ? Double(50 + index) / 100 : 0.125
        }
        let bodies = [
            Body(
                joints: joints, visibilities: visibilities, presences: Array(repeating: 0.75, count: 33),
                confidence: 0.875),
            Body(joints: joints, visibilities: Array(repeating: 0, count: 33), presences: visibilities, confidence: 1),
        ]
        let text = try #require(ValueJSON.encode(.bodies(bodies)))
        guard case .bodies(let back) = try ValueJSON.parse(text, as: .bodies) else {
            Issue.record("not bodies")
            return
        }
        #expect(back == bodies)
        #expect(bodies[0].box == Box(x: 100, y: 50, width: 48, height: 240, confidence: 0.875))
        #expect(bodies[1].box == Box(x: 100, y: 50, width: 64, height: 320, confidence: 1))
        #expect([Box].from(.bodies(bodies)) == bodies.map { $0.box })
        let vision = bodies[0].visionPoints
        let names = vision.map { $0.name }
        #expect(names.count == 19 && Set(names).count == 19)
        let neck = try #require(vision.first { $0.name == "neck" })
        #expect(neck.point == SIMD2(123, 165) && neck.confidence == 0.61)
        let root = try #require(vision.first { $0.name == "root" })
        #expect(root.point == SIMD2(147, 285) && root.confidence == 0.73)
        #expect(text.contains("\"vision\": {\"nose\": {\"x\": 100, \"y\": 50, \"confidence\": 0.5}"))
        #expect(throws: ValueJSON.ParseError.self) {
            try ValueJSON.parse(text.replacingOccurrences(of: "\"rightFootIndex\"", with: "\"rightToe\""), as: .bodies)
        }
        #expect(throws: ValueJSON.ParseError.self) {
            try ValueJSON.parse(
                text.replacingOccurrences(of: "\"presence\": 0.75", with: "\"presence\": 2"), as: .bodies)
        }
    }

    @Test func textAndHandsRoundTrip() throws {
        // A string with what JSON must escape, and one read upside down (its top-left corner bottom right).
        let lines = [
            TextLine(
                quad: [SIMD2(10, 20), SIMD2(130.5, 22), SIMD2(129, 44), SIMD2(9, 42)],
                string: "Total: $1,234.56 \"net\"\\ 7:00\tnow 疗", confidence: 0.96),
            TextLine(quad: [SIMD2(90, 60), SIMD2(20, 60), SIMD2(20, 50), SIMD2(90, 50)], string: "", confidence: 0.5),
        ]
        let text = try #require(ValueJSON.encode(.text(lines)))
        guard case .text(let linesBack) = try ValueJSON.parse(text, as: .text) else {
            Issue.record("not text")
            return
        }
        #expect(linesBack == lines)
        #expect(lines[0].box == Box(x: 9, y: 20, width: 121.5, height: 24, confidence: 0.96))
        #expect([Box].from(.text(lines)) == lines.map(\.box))

        let joints = (0..<21).map { SIMD3(100 + Double($0), 200 - Double($0) / 2, -Double($0) / 4) }
        let hands = [
            Hand(
                chirality: .right, joints: joints, jointConfidences: (0..<21).map { Double($0) / 20 },
                confidence: 0.875),
            Hand(
                chirality: .unknown, joints: joints.reversed(), jointConfidences: Array(repeating: 1, count: 21),
                confidence: 1),
        ]
        let written = try #require(ValueJSON.encode(.hands(hands)))
        guard case .hands(let handsBack) = try ValueJSON.parse(written, as: .hands) else {
            Issue.record("not hands")
            return
        }
        #expect(handsBack == hands)
        #expect(hands[0].box == Box(x: 100, y: 190, width: 20, height: 10, confidence: 0.875))
        #expect(hands[0].joint(.littleTip) == joints[20] && hands[0].joint(.thumbCMC) == joints[1])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(written.utf8)) as? [String: Any])
        let first = try #require((object["hands"] as? [[String: Any]])?.first)
        #expect(first["chirality"] as? String == "right")
        #expect((first["joints"] as? [String: Any])?.keys.sorted() == Hand.Joint.allCases.map(\.rawValue).sorted())
    }

    @Test(arguments: [
        ("{", PortType.boxes, "not JSON"),
        ("[]", .boxes, "the value is not an object"),
        (#"{"kind": "boxes"}"#, .number, "kind is \"boxes\", not \"number\""),
        (#"{"kind": "boxes"}"#, .boxes, "boxes is missing or not a list"),
        (
            #"{"kind": "boxes", "boxes": [{"x": true, "y": 0, "width": 1, "height": 1, "confidence": 1}]}"#, .boxes,
            "boxes[0].x is missing or not a number"
        ),
        (
            #"{"kind": "boxes", "boxes": [{"x": 0, "y": 0, "width": -1, "height": 1, "confidence": 1}]}"#, .boxes,
            "boxes[0].width is -1.0, below 0.0"
        ),
        (
            #"{"kind": "boxes", "boxes": [{"x": 1e300, "y": 0, "width": 1, "height": 1, "confidence": 1}]}"#, .boxes,
            "boxes[0].x is 1e+300, out of range"
        ),
        (
            #"{"kind": "boxes", "boxes": [{"x": 0, "y": 0, "width": 1, "confidence": 1}]}"#, .boxes,
            "boxes[0].height is missing or not a number"
        ),
        (#"{"kind": "number", "value": "7"}"#, .number, "value is missing or not a number"),
        (
            #"{"kind": "contours", "imageWidth": 4, "imageHeight": 4, "tracedWidth": 4, "tracedHeight": 0, "contours": []}"#,
            .contours, "tracedHeight is 0, not from 1 to 1073741824"
        ),
        (
            #"{"kind": "contours", "imageWidth": 4, "imageHeight": 4, "tracedWidth": 4, "tracedHeight": 4, "contours": [{"parent": 3, "children": [], "isHole": false, "points": []}]}"#,
            .contours, "contours[0].parent is 3, not -1 or another contour's index"
        ),
        (
            #"{"kind": "contours", "imageWidth": 4, "imageHeight": 4, "tracedWidth": 4, "tracedHeight": 4, "contours": [{"parent": -1, "children": [1], "isHole": false, "points": []}]}"#,
            .contours, "contours[0].children[0] is 1, not a contour's index"
        ),
        (
            #"{"kind": "contours", "imageWidth": 4, "imageHeight": 4, "tracedWidth": 4, "tracedHeight": 4, "contours": [{"parent": -1, "children": [], "isHole": 0, "points": []}]}"#,
            .contours, "contours[0].isHole is not true or false"
        ),
        (
            #"{"kind": "contours", "imageWidth": 4, "imageHeight": 4, "tracedWidth": 4, "tracedHeight": 4, "contours": [{"parent": -1, "children": [], "isHole": false, "points": [[1, 2, 3]]}]}"#,
            .contours, "contours[0].points[0] holds 3 items, more than the limit of 2"
        ),
        (
            #"{"kind": "contours", "imageWidth": 4.5, "imageHeight": 4, "tracedWidth": 4, "tracedHeight": 4, "contours": []}"#,
            .contours, "imageWidth is 4.5, not a whole number"
        ),
        (
            #"{"kind": "boxes", "boxes": [{"x": 0, "y": 0, "width": 1, "height": 1, "confidence": 1.5}]}"#,
            .boxes, "boxes[0].confidence is 1.5, above 1"
        ),
        (
            #"{"kind": "contours", "imageWidth": 1073741824, "imageHeight": 1073741824, "tracedWidth": 4, "tracedHeight": 4, "contours": []}"#,
            .contours, "the image is 1073741824x1073741824, more than 4294967296 pixels"
        ),
        (
            #"{"kind": "contours", "imageWidth": 4, "imageHeight": 4, "tracedWidth": 4, "tracedHeight": 4, "contours": [{"parent": -1, "children": [], "isHole": false, "points": []}, {"parent": 0, "children": [], "isHole": true, "points": []}]}"#,
            .contours, "contours[0].children is [], but the contours whose parent it is are [1]"
        ),
        (
            #"{"kind": "contours", "imageWidth": 4, "imageHeight": 4, "tracedWidth": 4, "tracedHeight": 4, "contours": [{"parent": 1, "children": [1], "isHole": false, "points": []}, {"parent": 0, "children": [0], "isHole": true, "points": []}]}"#,
            .contours, "contours[0]'s parents form a cycle"
        ),
        (
            #"{"kind": "faces", "faces": [{"x": 0, "y": 0, "width": 1, "height": 1, "confidence": 1}]}"#, .faces,
            "faces[0].roll is missing"
        ),
        (
            #"{"kind": "faces", "faces": [{"x": 0, "y": 0, "width": 1, "height": 1, "confidence": 1, "roll": 200, "yaw": 0, "pitch": 0, "captureQuality": 0}]}"#,
            .faces, "faces[0].roll is 200.0, out of range"
        ),
        (
            #"{"kind": "faces", "faces": [{"x": 0, "y": 0, "width": 1, "height": 1, "confidence": 1, "roll": 0, "yaw": 0, "pitch": 0, "captureQuality": 1, "keypoints": {"rightEye": [0, 0]}}]}"#,
            .faces, "faces[0].keypoints.leftEye is missing or not a list"
        ),
        (
            #"{"kind": "faces", "faces": [{"x": 0, "y": 0, "width": 1, "height": 1, "confidence": 1, "roll": 0, "yaw": 0, "pitch": 0, "captureQuality": 1, "keypoints": {"rightEye": [0, 0], "leftEye": [0, 0], "noseTip": [0, 0], "mouth": [0, 0], "rightEar": [0, 0], "leftEar": [0, 0]}, "landmarks": [[0, 0, 0]]}]}"#,
            .faces, "faces[0].landmarks holds 1 points, not 468"
        ),
        (
            #"{"kind": "text", "text": [{"x": 0, "y": 0, "width": 1, "height": 1, "confidence": 1, "string": 7, "quad": []}]}"#,
            .text, "text[0].string is missing or not a string"
        ),
        (
            #"{"kind": "text", "text": [{"x": 0, "y": 0, "width": 1, "height": 1, "confidence": 1, "string": "a", "quad": [[0, 0], [1, 0], [1, 1]]}]}"#,
            .text, "text[0].quad holds 3 points, not 4"
        ),
        (
            #"{"kind": "hands", "hands": [{"x": 0, "y": 0, "width": 1, "height": 1, "confidence": 1, "chirality": "both", "joints": {}}]}"#,
            .hands, "hands[0].chirality is \"both\", not left, right or unknown"
        ),
        (
            #"{"kind": "hands", "hands": [{"x": 0, "y": 0, "width": 1, "height": 1, "confidence": 1, "chirality": "left", "joints": {"wrist": {"x": 0, "y": 0, "z": 0, "confidence": 1}}}]}"#,
            .hands, "hands[0].joints.thumbCMC is not an object"
        ),
    ])
    func badValuesAreRefusedByPlace(_ text: String, _ type: PortType, _ message: String) {
        #expect {
            _ = try ValueJSON.parse(text, as: type)
        } throws: { error in
            "\(error)".hasPrefix(message)
        }
    }

    /// Nesting deep enough to overflow a recursive reader is refused by the JSON parser's own limit.
    @Test func deepNestingIsRefused() {
        let text = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(throws: ValueJSON.ParseError.self) { try ValueJSON.parse(text, as: .boxes) }
    }
}
