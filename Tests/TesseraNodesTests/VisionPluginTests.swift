import Foundation
import Testing
import TesseraCore
import TesseraCatalog
import TesseraGraph
import TesseraPluginHost
import TesseraRunner
import TesseraIO
import TesseraNodes
import TesseraTesting

/// The Vision plugin (Plugins/Vision), built by its Makefile (which fetches its pinned runtime; see
/// PluginNodeTests.built), loaded
/// through the C ABI and held to MediaPipe's own results: fixtures made by Scripts/make-vision-fixtures.py,
/// which runs the same models through MediaPipe 0.10.21's Python package, with the issue's tolerances.
@Suite(.serialized) struct VisionPluginTests {
    static let repository = PluginNodeTests.repository
    static let plugin = repository.appendingPathComponent("Plugins/Vision")
    static let fixtures = plugin.appendingPathComponent("Tests/Fixtures/mediapipe")
    static let photos = [
        "four-fingers-1.jpg", "four-fingers-2.jpg", "four-fingers-3.jpg", "four-fingers-4.jpg", "phone-1.jpg",
        "phone-2.jpg", "phone-3.jpg", "phone-4.jpg", "astronaut.png",
    ]

    static func declaration(_ op: String) throws -> NodeDeclaration {
        try #require(try PluginNodeTests.catalog().declaration(op: op))
    }

    static func photo(_ name: String) throws -> Image {
        let folder = name == "astronaut.png" ? "Examples/images" : "Examples/images/people"
        return try ImageFile.load(path: repository.appendingPathComponent("\(folder)/\(name)").path).1
    }

    static func reference(_ name: String) throws -> [String: Any] {
        let stem = (name as NSString).deletingPathExtension
        let data = try Data(contentsOf: fixtures.appendingPathComponent("\(stem).json"))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    /// `op` on `image` through the shared node verifier, its first output.
    static func run(_ op: String, _ image: Image, _ parameters: [String: any ParameterValue] = [:]) throws -> NodeValue
    {
        let declaration = try declaration(op)
        let outputs = try NodeVerifier().verify(declaration, parameters: parameters, inputs: ["input": .image(image)])
        return try #require(outputs[declaration.outputs[0].name])
    }

    static func faces(_ image: Image, _ op: String = "detectFaces", range: String = "short") throws -> [Face] {
        guard case .faces(let faces) = try run(op, image, ["range": range]) else {
            Issue.record("\(op) made no faces")
            return []
        }
        return faces
    }

    static func iou(_ a: Box, _ b: [Double]) -> Double {
        let overlapX = max(0, min(a.x + a.width, b[0] + b[2]) - max(a.x, b[0]))
        let overlapY = max(0, min(a.y + a.height, b[1] + b[3]) - max(a.y, b[1]))
        let overlap = overlapX * overlapY
        return overlap / (a.width * a.height + b[2] * b[3] - overlap)
    }

    /// The same faces as MediaPipe's detector, each box within IoU 0.95 and each keypoint within 1 % of
    /// the face's width.
    @Test(arguments: photos, ["short", "full"])
    func detectFacesFindsMediaPipesFaces(_ name: String, _ range: String) throws {
        let expected = try #require(try Self.reference(name)[range] as? [[String: Any]])
        let found = try Self.faces(try Self.photo(name), range: range)
        #expect(found.count == expected.count, "\(name): \(found.count) faces, MediaPipe \(expected.count)")
        for reference in expected {
            let box = try #require(reference["box"] as? [Double])
            let points = try #require(reference["keypoints"] as? [[Double]])
            let face = try #require(found.max { Self.iou($0.box, box) < Self.iou($1.box, box) })
            #expect(Self.iou(face.box, box) >= 0.95, "\(name): IoU \(Self.iou(face.box, box))")
            let worst =
                zip(face.keypoints, points).map { ours, theirs in
                    ((ours.x - theirs[0]) * (ours.x - theirs[0]) + (ours.y - theirs[1]) * (ours.y - theirs[1]))
                        .squareRoot()
                }.max() ?? .infinity
            #expect(worst <= 0.01 * box[2], "\(name): a keypoint \(worst) px off, face \(box[2]) px wide")
            #expect(abs(face.box.confidence - (reference["score"] as? Double ?? -1)) < 0.01)
        }
    }

    /// Each face mesh MediaPipe finds, within a mean 1 % of the face's width, with Vision's regions.
    @Test(arguments: photos)
    func faceLandmarksMatchMediaPipesMesh(_ name: String) throws {
        let expected = try #require(try Self.reference(name)["mesh"] as? [[[Double]]])
        let found = try Self.faces(try Self.photo(name), "faceLandmarks")
        #expect(found.count == expected.count, "\(name): \(found.count) meshes, MediaPipe \(expected.count)")
        for mesh in expected {
            let xs = mesh.map { $0[0] }
            let width = (xs.max() ?? 0) - (xs.min() ?? 0)
            let center = SIMD2(xs.reduce(0, +), mesh.map { $0[1] }.reduce(0, +)) / Double(mesh.count)
            let face = try #require(
                found.min { a, b in
                    let ca = SIMD2(a.box.x + a.box.width / 2, a.box.y + a.box.height / 2) - center
                    let cb = SIMD2(b.box.x + b.box.width / 2, b.box.y + b.box.height / 2) - center
                    return (ca * ca).sum() < (cb * cb).sum()
                })
            try #require(face.landmarks.count == 468)
            let mean =
                zip(face.landmarks, mesh).map { ours, theirs in
                    ((ours.x - theirs[0]) * (ours.x - theirs[0]) + (ours.y - theirs[1]) * (ours.y - theirs[1]))
                        .squareRoot()
                }.reduce(0, +) / 468
            #expect(mean <= 0.01 * width, "\(name): mean distance \(mean) px, face \(width) px wide")
            #expect(face.regionPoints.map(\.name).count == 12)
        }
    }

    /// The person mask agrees with MediaPipe's selfie segmentation (IoU at 0.5 of at least 0.9), the
    /// fast level with its landscape model, the accurate level after its edge refinement too.
    @Test(arguments: photos)
    func segmentPeopleMatchesMediaPipe(_ name: String) throws {
        let stem = (name as NSString).deletingPathExtension
        let image = try Self.photo(name)
        for (level, reference) in [("balanced", "selfie"), ("accurate", "selfie"), ("fast", "selfie-landscape")] {
            let mask = try Self.run("segmentPeople", image, ["qualityLevel": level]).image().pixels()
            let expected = try ImageFile.load(
                path: Self.fixtures.appendingPathComponent("\(stem)-\(reference).png").path
            )
            .1.pixels()
            #expect(mask.region == expected.region && mask.channels == 1)
            var both = 0
            var either = 0
            for (a, b) in zip(mask.samples, expected.samples) {
                if a >= 0.5 && b >= 0.5 { both += 1 }
                if a >= 0.5 || b >= 0.5 { either += 1 }
            }
            let iou = Double(both) / Double(max(either, 1))
            #expect(iou >= 0.9, "\(name) \(level): IoU \(iou)")
        }
    }

    /// `image` turned counterclockwise (as seen) by `degrees` about its center, or mirrored left to right,
    /// sampled bilinearly; what falls outside is black.
    static func transformed(_ image: Image, degrees: Double = 0, mirrored: Bool = false) throws -> Image {
        let source = try image.pixels()
        let (width, height, channels) = (source.region.width, source.region.height, source.channels)
        var out = PixelBuffer(region: source.region, channels: channels)
        let (c, s) = (cos(degrees * .pi / 180), sin(degrees * .pi / 180))
        let center = SIMD2(Double(width - 1), Double(height - 1)) / 2
        for y in 0..<height {
            for x in 0..<width {
                let q = SIMD2(Double(x), Double(y)) - center
                var p = SIMD2(q.x * c - q.y * s, q.x * s + q.y * c) + center
                if mirrored { p.x = Double(width - 1) - p.x }
                let (x0, y0) = (Int(p.x.rounded(.down)), Int(p.y.rounded(.down)))
                let (fx, fy) = (Float(p.x - Double(x0)), Float(p.y - Double(y0)))
                for (dy, wy) in [(0, 1 - fy), (1, fy)] {
                    for (dx, wx) in [(0, 1 - fx), (1, fx)] {
                        let (u, v) = (x0 + dx, y0 + dy)
                        guard u >= 0, v >= 0, u < width, v < height else { continue }
                        for k in 0..<channels {
                            out.samples[(y * width + x) * channels + k] +=
                                source.samples[(v * width + u) * channels + k] * wx * wy
                        }
                    }
                }
            }
        }
        return Image(buffer: out, layout: image.layout)
    }

    /// Turning the photo by a known angle changes the face's roll by that angle, within 3 degrees.
    @Test(arguments: [
        ("astronaut.png", 20.0), ("phone-2.jpg", -15.0), ("four-fingers-4.jpg", 25.0), ("phone-3.jpg", -30.0),
        ("phone-1.jpg", 35.0),
    ])
    func rollFollowsATurnedPhoto(_ name: String, _ degrees: Double) throws {
        let image = try Self.photo(name)
        let upright = try #require(try Self.faces(image).first)
        let turned = try #require(try Self.faces(try Self.transformed(image, degrees: degrees)).first)
        #expect(abs(turned.roll - upright.roll - degrees) <= 3, "\(name): roll \(upright.roll) -> \(turned.roll)")
    }

    /// A mirrored photo negates yaw within 5 degrees (and roll within 3).
    @Test(arguments: [("phone-3.jpg", "short"), ("four-fingers-1.jpg", "full"), ("astronaut.png", "short")])
    func aMirroredPhotoNegatesYaw(_ name: String, _ range: String) throws {
        let image = try Self.photo(name)
        let face = try #require(try Self.faces(image, range: range).first)
        let mirrored = try #require(try Self.faces(try Self.transformed(image, mirrored: true), range: range).first)
        #expect(abs(mirrored.yaw + face.yaw) <= 5, "\(name): yaw \(face.yaw) mirrored \(mirrored.yaw)")
        #expect(abs(mirrored.roll + face.roll) <= 3, "\(name): roll \(face.roll) mirrored \(mirrored.roll)")
    }

    /// Capture quality falls when the face is blurred, darkened or turned away from upright.
    @Test func captureQualityFallsWhenTheFaceIsBlurredDarkenedOrTurned() throws {
        let image = try Self.photo("astronaut.png")
        let sharp = try #require(try Self.faces(image).first).captureQuality
        #expect(sharp > 0.6, "a sharp, well lit, frontal portrait: \(sharp)")
        let blurred = try BlurTests().blur(image, sigma: 3, edge: "clamp")
        let dark = try Self.scaled(image, by: 0.2)
        let turned = try Self.transformed(image, degrees: 35)
        for (what, changed) in [("blurred", blurred), ("darkened", dark), ("turned", turned)] {
            let quality = try #require(try Self.faces(changed).first).captureQuality
            #expect(quality < sharp - 0.05, "\(what): \(quality), sharp \(sharp)")
        }
    }

    static func scaled(_ image: Image, by factor: Float) throws -> Image {
        var pixels = try image.pixels()
        for index in pixels.samples.indices where image.channels == 1 || index % 4 != 3 {
            pixels.samples[index] *= factor
        }
        return Image(buffer: pixels, layout: image.layout)
    }

    /// drawFaces, an image node with a value input, through the shared verifier: it changes pixels only
    /// near the faces it is given.
    /// The person mask is a kernel the scheduler renders tile by tile (plugin ABI version 3's set_kernel):
    /// at every level any tiling gives the same bits, and the guided filter reads no photo pixel outside
    /// the region it declares.
    @Test(arguments: ["fast", "balanced", "accurate"])
    func segmentPeoplePassesTheVerifier(_ level: String) throws {
        let outputs = try NodeVerifier().verify(
            try Self.declaration("segmentPeople"), parameters: ["qualityLevel": level],
            inputs: ["input": .image(try Self.photo("phone-2.jpg"))])
        let mask = try #require(outputs["mask"]).image()
        #expect(mask.source is KernelSource, "the mask is rendered where it is read, not handed over whole")
    }

    @Test func drawFacesPassesTheVerifier() throws {
        let image = try Self.photo("phone-2.jpg")
        let faces = try Self.faces(image, "faceLandmarks")
        let outputs = try NodeVerifier().verify(
            try Self.declaration("drawFaces"), inputs: ["input": .image(image), "faces": .faces(faces)])
        let drawn = try #require(outputs["output"]).image().pixels()
        let original = try image.pixels()
        // The face's box and its mesh's, whose jaw and temples reach past the detector's box.
        let first = try #require(faces.first)
        let xs = first.landmarks.map(\.x) + [first.box.x, first.box.x + first.box.width]
        let ys = first.landmarks.map(\.y) + [first.box.y, first.box.y + first.box.height]
        let face = Box(
            x: xs.min() ?? 0, y: ys.min() ?? 0, width: (xs.max() ?? 0) - (xs.min() ?? 0),
            height: (ys.max() ?? 0) - (ys.min() ?? 0))
        let (changedInside, changedOutside) = Self.changed(from: original, to: drawn, near: face, within: 4)
        #expect(changedOutside == 0 && changedInside > 500, "\(changedInside) inside, \(changedOutside) outside")
    }

    /// How many pixels of an RGBA drawing differ from the original (RGBA, the same size) within `margin`
    /// of `box`, and how many beyond it.
    static func changed(from original: PixelBuffer, to drawn: PixelBuffer, near box: Box, within margin: Double) -> (
        inside: Int, outside: Int
    ) {
        var (inside, outside) = (0, 0)
        let (width, height) = (original.region.width, original.region.height)
        for y in 0..<height {
            for x in 0..<width {
                let at = (y * width + x) * 4
                guard (0..<3).contains(where: { abs(drawn.samples[at + $0] - original.samples[at + $0]) > 1e-6 })
                else { continue }
                let near =
                    Double(x) >= box.x - margin && Double(x) <= box.x + box.width + margin
                    && Double(y) >= box.y - margin
                    && Double(y) <= box.y + box.height + margin
                if near { inside += 1 } else { outside += 1 }
            }
        }
        return (inside, outside)
    }

    /// frameFace: the head takes the asked share of a frame of the asked ratio around the face; with no face
    /// it frames the fallback boxes, or stops with a plain message naming the input.
    @Test func frameFaceFramesTheHeadOrFallsBack() throws {
        let declaration = try Self.declaration("frameFace")
        let photo = try Self.photo("astronaut.png")
        let faces = try Self.faces(photo, "faceLandmarks")
        let outputs = try declaration.instantiate(
            parameters: ["aspectRatio": Ratio.terms(width: 3, height: 4), "headHeight": 0.6],
            inputs: ["input": .image(photo), "faces": .faces(faces)]
        ).run().values
        guard case .boxes(let frames)? = outputs["frame"], let frame = frames.first,
            case .number(let head)? = outputs["headHeight"], case .number(let eyes)? = outputs["eyeHeight"]
        else {
            Issue.record("outputs: \(outputs.keys.sorted())")
            return
        }
        #expect(abs(frame.width / frame.height - 0.75) < 1e-3 && abs(head - 0.6) < 1e-3, "\(frame), head \(head)")
        #expect(frame.x >= 0 && frame.y >= 0 && frame.x + frame.width <= 512 && frame.y + frame.height <= 512)
        let face = try #require(faces.first)
        #expect(frame.x < face.box.x && frame.x + frame.width > face.box.x + face.box.width)
        #expect(eyes > 0.4 && eyes < 0.8, "eyes at \(eyes)")

        let blank = Image(buffer: PixelBuffer(region: Rect(width: 64, height: 48), channels: 1), layout: .gray)
        let fallback = Box(x: 10, y: 10, width: 20, height: 10, confidence: 0.5)
        let framed = try declaration.instantiate(
            parameters: [:], inputs: ["input": .image(blank), "faces": .faces([]), "fallback": .boxes([fallback])]
        ).run().values
        guard case .boxes(let fallen)? = framed["frame"] else { return }
        #expect(fallen.first.map { abs($0.width / $0.height - 35.0 / 45) < 1e-3 && $0.confidence == 0.5 } == true)
        #expect {
            _ = try declaration.instantiate(parameters: [:], inputs: ["input": .image(blank), "faces": .faces([])])
                .run()
        } throws: { error in
            "\(error)".contains("frameFace: faces: there is no face to frame")
        }
    }

    /// Missing models are one clear line naming the file and how to get it.
    @Test func missingModelsAreNamed() throws {
        let declaration = try Self.declaration("detectFaces")
        let node = try declaration.instantiate(
            parameters: ["models": FilePath(written: "/nonexistent-models", resolved: "/nonexistent-models")],
            inputs: ["input": .image(try Self.photo("astronaut.png"))])
        #expect {
            _ = try node.run()
        } throws: { error in
            "\(error)".contains("/nonexistent-models/face_detection_short_range.tflite is missing")
        }
    }

    // MARK: The passport photo, through the command line

    /// `tessera run Plugins/Vision/passport.yaml` on `photo`, its output in a temporary folder: the exit
    /// status, stderr, and the photo written (nil when none was).
    static func passport(_ photo: Image, environment: [String: String] = [:]) throws -> (
        status: Int32, stderr: String, written: (ImageInfo, PixelBuffer)?
    ) {
        try runGraph("passport.yaml", on: photo, writing: "out", to: "passport.jpg", environment: environment)
    }

    /// `tessera run Plugins/Vision/GRAPH --plugin libvision.so` on `photo` (saved as photo.png in a temporary
    /// folder), its save node `save` writing `output` in that folder, with `settings` as `--set`s and
    /// `environment` added: the exit status, stderr, and the file written (nil when none was). The process
    /// must end by exiting, and leave no half-written file beside them.
    static func runGraph(
        _ graph: String, on photo: Image, writing save: String, to output: String, settings: [String] = [],
        environment: [String: String] = [:]
    ) throws -> (status: Int32, stderr: String, written: (ImageInfo, PixelBuffer)?) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "tessera-vision-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("photo.png").path
        try ImageFile.save(photo, to: input)
        let outputPath = folder.appendingPathComponent(output).path
        let tessera = try #require(
            [URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(), Bundle.main.bundleURL]
                .map { $0.appendingPathComponent("tessera") }.first {
                    FileManager.default.isExecutableFile(atPath: $0.path)
                })
        _ = try PluginNodeTests.catalog()  // the plugin is built
        let process = Process()
        process.executableURL = tessera
        process.arguments =
            [
                "run", plugin.appendingPathComponent(graph).path, "--plugin",
                plugin.appendingPathComponent("libvision.so").path, "--set", "photo.path=\(input)", "--set",
                "\(save).path=\(outputPath)",
            ] + settings.flatMap { ["--set", $0] }
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = Pipe()
        try process.run()
        let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationReason == .exit)
        // Decoded now: the folder goes when this returns.
        var written: (ImageInfo, PixelBuffer)? = nil
        if FileManager.default.fileExists(atPath: outputPath) {
            let (info, image) = try ImageFile.load(path: outputPath)
            written = (info, try image.pixels())
        }
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter {
            $0 != "photo.png" && $0 != output
        }
        #expect(leftovers.isEmpty, "half-written files: \(leftovers)")
        return (process.terminationStatus, stderr, written)
    }

    /// The models a run compiles are kept in the folder TESSERA_VISION_CACHE names (one file each: the full
    /// range detector, the mesh, the iris model and the selfie model for the passport graph) and loaded from it by the next
    /// run, which leaves them as they are and makes the same photo. A damaged cached model is compiled
    /// again; a folder that cannot be made means no cache. Neither is a failure.
    @Test func compiledModelsAreCachedBetweenRuns() throws {
        let cache = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-vision-cache-\(UUID())")
        defer { try? FileManager.default.removeItem(at: cache) }
        let photo = try Self.photo("astronaut.png")
        let first = try Self.passport(photo, environment: ["TESSERA_VISION_CACHE": cache.path])
        #expect(first.status == 0, "\(first.stderr)")
        func blobs() throws -> [String: Date] {
            let names = try FileManager.default.contentsOfDirectory(atPath: cache.path)
            return try Dictionary(
                uniqueKeysWithValues: names.map { name in
                    let attributes = try FileManager.default.attributesOfItem(
                        atPath: cache.appendingPathComponent(name).path)
                    return (name, attributes[.modificationDate] as? Date ?? .distantPast)
                })
        }
        let made = try blobs()
        #expect(made.count == 4, "\(made.keys.sorted())")
        let second = try Self.passport(photo, environment: ["TESSERA_VISION_CACHE": cache.path])
        #expect(second.status == 0, "\(second.stderr)")
        #expect(try blobs() == made, "the second run compiled again")
        #expect(second.written?.1.samples == first.written?.1.samples)
        // A damaged cache (a blob cut short by a full disk, or two processes writing at once) is compiled again.
        for name in made.keys {
            let path = cache.appendingPathComponent(name).path
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
            try Data("not a compiled model".utf8).write(to: URL(fileURLWithPath: path))
        }
        let damaged = try Self.passport(photo, environment: ["TESSERA_VISION_CACHE": cache.path])
        #expect(damaged.status == 0, "\(damaged.stderr)")
        #expect(damaged.written?.1.samples == first.written?.1.samples)
        let nowhere = try Self.passport(photo, environment: ["TESSERA_VISION_CACHE": "/proc/no-such/cache"])
        #expect(nowhere.status == 0, "\(nowhere.stderr)")
        #expect(nowhere.written?.1.samples == first.written?.1.samples)
    }

    /// The bundled portrait passes: 827 x 1063 pixels at 600 dpi (35 x 45 mm), a white background.
    @Test func thePassportGraphMakesAPassportPhoto() throws {
        let result = try Self.passport(try Self.photo("astronaut.png"))
        #expect(result.status == 0, "\(result.stderr)")
        let (info, pixels) = try #require(result.written)
        #expect(pixels.region.width == 827 && pixels.region.height == 1063)
        #expect(
            info.resolution.map { abs($0.x - 600) < 0.5 && abs($0.y - 600) < 0.5 } == true,
            "\(String(describing: info.resolution))")
        // The top corners are background: white.
        var darkest: Float = 1
        for y in 0..<20 {
            for x in 0..<20 {
                for c in 0..<min(3, pixels.channels) {
                    darkest = min(darkest, pixels.samples[(y * 827 + x) * pixels.channels + c])
                }
            }
        }
        #expect(darkest > 0.9, "the corner's darkest sample is \(darkest)")
    }

    /// Two faces, no face, a leaning head, a dark photo: each refused with the graph's message, a non-zero
    /// exit and no file.
    @Test func thePassportGraphRefusesUnsuitablePhotos() throws {
        let portrait = try Self.photo("astronaut.png")
        let pixels = try portrait.pixels()
        var twice = PixelBuffer(
            region: Rect(width: pixels.region.width * 2, height: pixels.region.height), channels: pixels.channels)
        for y in 0..<pixels.region.height {
            for side in 0..<2 {
                let row = y * pixels.region.width * pixels.channels
                let target = (y * twice.region.width + side * pixels.region.width) * pixels.channels
                twice.samples.replaceSubrange(
                    target..<(target + pixels.region.width * pixels.channels),
                    with: pixels.samples[row..<(row + pixels.region.width * pixels.channels)])
            }
        }
        let blank = Image(buffer: PixelBuffer(region: Rect(width: 300, height: 400), channels: 1), layout: .gray)
        let cases: [(String, Image, String)] = [
            (
                "two faces", Image(buffer: twice, layout: portrait.layout),
                "the photo must show exactly one face (the count is 2"
            ),
            ("no face", blank, "the photo must show exactly one face (the count is 0"),
            (
                "leaning", try Self.transformed(portrait, degrees: 20),
                "the head leans: hold it straight (roll of face 1 is"
            ),
            ("dark", try Self.scaled(portrait, by: 0.15), "the face is not sharp, lit or open-eyed enough"),
        ]
        for (what, photo, message) in cases {
            let result = try Self.passport(photo)
            #expect(result.status == 1, "\(what): \(result.stderr)")
            #expect(result.stderr.contains(message), "\(what): \(result.stderr)")
            #expect(result.written == nil, "\(what): a passport photo was written")
        }
    }
}
