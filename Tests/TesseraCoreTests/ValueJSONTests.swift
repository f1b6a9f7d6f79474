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
