import Foundation
import Testing
import TesseraCore
import TesseraCatalog
import TesseraIO
import TesseraNodes
import TesseraTesting

/// detectBarcodes (zxing-cpp 1.4 from Debian, in the Vision plugin) on the codes of
/// Plugins/Vision/Tests/Fixtures/barcodes, made by Scripts/make-barcode-fixtures.py: QR codes from segno
/// and EAN-13, EAN-8, UPC-A, Code 128 and Code 39 from python-barcode, drawn module by module (so their
/// corners are known) at two module sizes, turned by 0, 30, 90 and 180 degrees, sharp and blurred, and
/// four pasted in perspective onto the people photos; each with what zxing-cpp's own Python wheel reads.
@Suite(.serialized) struct VisionBarcodeTests {
    static let fixtures = VisionPluginTests.plugin.appendingPathComponent("Tests/Fixtures/barcodes")

    struct Case: Sendable, CustomStringConvertible {
        var image: String
        var symbology: String
        var payload: String
        var module: Double
        var corners: [SIMD2<Double>]
        var zxingReads: Bool
        var description: String { image }
    }

    static let cases: [Case] = {
        guard let data = try? Data(contentsOf: fixtures.appendingPathComponent("barcodes.json")),
            let document = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let items = document["cases"] as? [[String: Any]]
        else { return [] }
        return items.compactMap { item in
            guard let image = item["image"] as? String, let symbology = item["symbology"] as? String,
                let payload = item["payload"] as? String, let module = item["module"] as? Double,
                let corners = item["corners"] as? [[Double]], let zxing = item["zxing"] as? [String: Any],
                let read = zxing["read"] as? Bool
            else { return nil }
            return Case(
                image: image, symbology: symbology, payload: payload, module: module,
                corners: corners.map { SIMD2($0[0], $0[1]) }, zxingReads: read)
        }
    }()

    static func codes(_ image: Image, _ parameters: [String: any ParameterValue] = [:]) throws -> [Barcode] {
        let node = try VisionPluginTests.declaration("detectBarcodes").instantiate(
            parameters: parameters, inputs: ["input": .image(image)])
        guard case .barcodes(let codes)? = try node.run().values["barcodes"] else {
            Issue.record("detectBarcodes made no barcodes")
            return []
        }
        return codes
    }

    /// Whether `code` is the case's: its payload and symbology, a UPC-A code also as the EAN-13 code with a
    /// leading 0 it is (zxing-cpp and Apple's Vision report it so).
    static func matches(_ code: Barcode, _ expected: Case) -> Bool {
        if code.payload == expected.payload && code.symbology == expected.symbology { return true }
        return expected.symbology == "upca" && code.symbology == "ean13" && code.payload == "0" + expected.payload
    }

    /// Every code zxing-cpp's Python wheel reads, detectBarcodes reads with the same payload and symbology;
    /// no case reads a wrong payload; a QR code's corners, in the order the code reads (a code turned 180
    /// degrees starts at the image's bottom right), lie within 1.5 modules of where it was drawn. Of the
    /// 100 codes the wheel reads 64 (the others: linear codes turned 30 degrees, which no scan line crosses
    /// whole, and small blurred ones).
    @Test func detectBarcodesReadsWhatZXingReads() throws {
        try #require(Self.cases.count == 100)
        var (ours, theirs) = (0, 0)
        for expected in Self.cases {
            // Decoded once: a file's image decodes again on each read, and the node reads 64 rows at a time.
            let file = try ImageFile.load(path: Self.fixtures.appendingPathComponent(expected.image).path).1
            let codes = try Self.codes(Image(buffer: try file.pixels(), layout: file.layout))
            let code = codes.first { Self.matches($0, expected) }
            if code != nil { ours += 1 }
            if expected.zxingReads { theirs += 1 }
            #expect(code != nil || !expected.zxingReads, "\(expected.image): zxing-cpp reads it, we read \(codes)")
            #expect(codes.allSatisfy { Self.matches($0, expected) }, "\(expected.image): \(codes.map(\.payload))")
            guard let code, expected.symbology == "qr" else { continue }
            let module = expected.module > 0 ? expected.module : 6
            for (found, drawn) in zip(code.corners, expected.corners) {
                let distance = ((found - drawn) * (found - drawn)).sum().squareRoot()
                #expect(distance <= 1.5 * module, "\(expected.image): corner \(found), drawn at \(drawn)")
            }
        }
        #expect(ours >= theirs, "we read \(ours) of 100, zxing-cpp's wheel \(theirs)")
    }

    /// A sheet of identical labels (one code drawn 2 x 2 and 3 x 1 times): each read once, with its own
    /// box. Debian's zxing-cpp 1.4.0 aborts the process on an assertion when it compares two linear codes
    /// with the same text, and reads two of four QR codes drawn 2 x 2; the plugin reads codes, paints them
    /// out and reads again instead.
    @Test(arguments: ["ean13-m2-r0-b0.png", "code39-m4-r0-b0.png", "code128-m2-r90-b0.png", "qr-m2-r0-b0.png"])
    func identicalLabelsAreEachReadOnce(_ name: String) throws {
        let expected = try #require(Self.cases.first { $0.image == name })
        let code = try ImageFile.load(path: Self.fixtures.appendingPathComponent(name).path).1.pixels()
        for (columns, rows) in [(2, 2), (3, 1)] {
            let (width, height) = (code.region.width, code.region.height)
            var sheet = PixelBuffer(region: Rect(width: width * columns, height: height * rows), channels: 1)
            for y in 0..<height * rows {
                for x in 0..<width * columns {
                    sheet.samples[y * width * columns + x] = code.samples[(y % height) * width + x % width]
                }
            }
            let codes = try Self.codes(Image(buffer: sheet, layout: .gray))
            #expect(codes.count == columns * rows, "\(name) \(columns)x\(rows): \(codes.map(\.box))")
            #expect(codes.allSatisfy { Self.matches($0, expected) })
            // Each drawn code's centre has one code read around it.
            for row in 0..<rows {
                for column in 0..<columns {
                    let centre = SIMD2(Double(column * width + width / 2), Double(row * height + height / 2))
                    let around = codes.filter { code in
                        abs(code.box.x + code.box.width / 2 - centre.x) < Double(width) / 2
                            && abs(code.box.y + code.box.height / 2 - centre.y) < Double(height) / 2
                    }
                    #expect(around.count == 1, "\(name) \(columns)x\(rows): \(around.count) codes at \(centre)")
                }
            }
        }
    }

    /// Images that are not codes never stop the process, and give no code: noise, random bars and random
    /// grids of random sizes (a fixed seed). Tiled codes, on which zxing-cpp 1.4 aborts without the
    /// plugin's one-at-a-time reading, are identicalLabelsAreEachReadOnce's.
    @Test func randomImagesNeverAbort() throws {
        var state: UInt64 = 40
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        for round in 0..<12 {
            let (width, height) = (20 + next(300), 20 + next(300))
            var image = PixelBuffer(region: Rect(width: width, height: height), channels: 1)
            let kind = round % 3
            let bars = (0..<width).map { _ in Float(next(2)) }
            let cell = 2 + next(6)
            let grid = (0..<(width / cell + 1) * (height / cell + 1)).map { _ in Float(next(2)) }
            for y in 0..<height {
                for x in 0..<width {
                    image.samples[y * width + x] =
                        switch kind {
                        case 0: Float(next(256)) / 255
                        case 1: bars[x]
                        default: grid[(y / cell) * (width / cell + 1) + x / cell]
                        }
                }
            }
            #expect(try Self.codes(Image(buffer: image, layout: .gray)).isEmpty, "round \(round): a code in noise")
        }
    }

    /// Asked for some symbologies only, the others are not read; an unknown name is refused naming the
    /// valid ones; an image without a code, or of one pixel, gives none.
    @Test func symbologiesChooseWhatIsRead() throws {
        let ean = try ImageFile.load(path: Self.fixtures.appendingPathComponent("ean13-m4-r0-b0.png").path).1
        #expect(try Self.codes(ean, ["symbologies": "qr, code128"]).isEmpty)
        #expect(try Self.codes(ean, ["symbologies": "ean13"]).map(\.symbology) == ["ean13"])
        let declaration = try VisionPluginTests.declaration("detectBarcodes")
        #expect {
            _ = try declaration.instantiate(parameters: ["symbologies": "qr, ean-13"], inputs: ["input": .image(ean)])
                .run()
        } throws: { error in
            "\(error)".contains("'ean-13' is not a symbology: give all or some of aztec, codabar")
        }
        let photo = try VisionPluginTests.photo("phone-2.jpg")
        #expect(try Self.codes(photo).isEmpty)
        let dot = Image(buffer: PixelBuffer(region: Rect(width: 1, height: 1), channels: 1), layout: .gray)
        #expect(try Self.codes(dot).isEmpty)
    }

    /// Through the shared node verifier (its NaN fill outside what the node reads, its tilings), on the QR
    /// code pasted onto a photo.
    @Test func detectBarcodesPassesTheVerifier() throws {
        let photo = try ImageFile.load(path: Self.fixtures.appendingPathComponent("photo-phone-2.jpg").path).1
        let outputs = try NodeVerifier().verify(
            try VisionPluginTests.declaration("detectBarcodes"), inputs: ["input": .image(photo)])
        guard case .barcodes(let codes)? = outputs["barcodes"] else {
            Issue.record("no barcodes")
            return
        }
        #expect(codes.map(\.payload) == ["https://tessera.example/photo/phone-2"])
    }

    /// Scripts/check-values.py's exit status on `file` against Docs/schemas/`schema`.schema.json: 0 when
    /// python3-jsonschema accepts it, 1 when it rejects it.
    static func checkValues(_ file: URL, against schema: String) throws -> Int32 {
        let checker = Process()
        checker.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        let repository = VisionPluginTests.repository
        checker.arguments = [
            repository.appendingPathComponent("Scripts/check-values.py").path,
            repository.appendingPathComponent("Docs/schemas/\(schema).schema.json").path, file.path,
        ]
        checker.standardOutput = FileHandle.nullDevice
        checker.standardError = FileHandle.nullDevice
        try checker.run()
        checker.waitUntilExit()
        return checker.terminationStatus
    }

    /// The barcodes graph through the command line: `--json` prints the codes as
    /// Docs/schemas/barcodes.schema.json describes them (python3-jsonschema, independent of the writer; the
    /// text schema rejects them, so the check can fail), and drawBoxes outlines them.
    @Test func theBarcodesGraphPrintsAndDrawsTheCodes() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-barcodes-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let tessera = try #require(
            [URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(), Bundle.main.bundleURL]
                .map { $0.appendingPathComponent("tessera") }.first {
                    FileManager.default.isExecutableFile(atPath: $0.path)
                })
        _ = try PluginNodeTests.catalog()  // the plugin is built
        let drawn = folder.appendingPathComponent("drawn.png").path
        let json = folder.appendingPathComponent("codes.json")
        let process = Process()
        process.executableURL = tessera
        process.arguments = [
            "run", VisionPluginTests.plugin.appendingPathComponent("barcodes.yaml").path, "--plugin",
            VisionPluginTests.plugin.appendingPathComponent("libvision.so").path, "--set",
            "b.path=\(drawn)", "--set", "a.path=\(json.path)",
        ]
        process.standardOutput = Pipe()
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(stderr)")
        let written = try String(contentsOf: json, encoding: .utf8)
        #expect(written.contains("\"symbology\": \"qr\"") && written.contains("\"payload\": \"https://tessera"))
        #expect(try Self.checkValues(json, against: "barcodes") == 0 && Self.checkValues(json, against: "text") == 1)
        let original = try ImageFile.load(path: Self.fixtures.appendingPathComponent("photo-phone-2.jpg").path).1
        let outlined = try ImageFile.load(path: drawn).1.pixels()
        #expect(try outlined.samples != original.pixels().samples, "no outline drawn")
    }
}
