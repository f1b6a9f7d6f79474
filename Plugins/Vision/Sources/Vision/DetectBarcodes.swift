import TesseraPluginSDK
import ZXingShim

/// Reads barcodes and 2D codes, as Vision's barcode request (`VNDetectBarcodesRequest`) does: zxing-cpp
/// (Debian's libzxing-dev) on the photo's luma at full resolution.
struct DetectBarcodes: Node {
    static let info = NodeInfo(
        op: "detectBarcodes",
        summary:
            "Reads barcodes and 2D codes (QR, Data Matrix, Aztec, PDF417, EAN, UPC, Code 128 and more): symbology, "
            + "payload and corner points, as Vision's barcode observations (zxing-cpp).",
        access: .global,
        outputs: [
            .init(
                "barcodes", .barcodes,
                doc: "The codes read, in the order zxing-cpp found them: drawBoxes and crop take them as boxes, save "
                    + "writes them as .json, require counts them.")
        ],
        example: """
            photo: { op: load, path: photo.jpg }
            codes: { op: detectBarcodes, input: photo, symbologies: "qr, ean13" }
            drawn: { op: drawBoxes, input: photo, boxes: codes }
            a: { op: save, input: codes, path: codes.json }
            b: { op: save, input: drawn, path: codes.png }
            """)

    @Input(doc: "The photo, as stored (sRGB values); read as luma, alpha ignored.") var input: Image
    @Parameter(
        doc: "The symbologies to read, separated by commas, by Vision's names: qr, microQR, aztec, dataMatrix, "
            + "pdf417, maxiCode, code39, code93, code128, codabar, ean8, ean13, upca, upce, itf, gs1DataBar, "
            + "gs1DataBarExpanded; or all. Fewer is faster and reads fewer false codes.")
    var symbologies = "all"
    @Parameter(
        doc: "Look harder (zxing-cpp's tryHarder, tryRotate and tryDownscale): codes turned a quarter or more, "
            + "small in a large photo or on a busy background; false reads the upright ones faster.")
    var tryHarder = true

    /// Vision's symbology names and zxing-cpp's BarcodeFormat bits.
    static let formats: [(name: String, bit: Int32)] = [
        ("aztec", 1 << 0), ("codabar", 1 << 1), ("code39", 1 << 2), ("code93", 1 << 3), ("code128", 1 << 4),
        ("gs1DataBar", 1 << 5), ("gs1DataBarExpanded", 1 << 6), ("dataMatrix", 1 << 7), ("ean8", 1 << 8),
        ("ean13", 1 << 9), ("itf", 1 << 10), ("maxiCode", 1 << 11), ("pdf417", 1 << 12), ("qr", 1 << 13),
        ("upca", 1 << 14), ("upce", 1 << 15), ("microQR", 1 << 16),
    ]

    /// The names in `symbologies`, the spaces and tabs around them trimmed here (Foundation's
    /// `trimmingCharacters` took about 30 µs a node, read twice a run: perf).
    var names: [String] {
        let blank: (Character) -> Bool = { $0.isWhitespace && !$0.isNewline }
        return symbologies.split(separator: ",").compactMap { part in
            var name = part.drop(while: blank)
            while let last = name.last, blank(last) { name = name.dropLast() }
            return name.isEmpty ? nil : String(name)
        }
    }

    func validate(in context: ValidationContext) -> [NodeProblem] {
        problem.map { [NodeProblem(parameter: "symbologies", $0)] } ?? []
    }

    /// What is wrong with `symbologies`, or nil.
    var problem: String? { problem(names) }

    /// What is wrong with `names` (as ``names`` reads them), or nil.
    func problem(_ names: [String]) -> String? {
        let known = Self.formats.map(\.name)
        let unknown = names.filter { $0 != "all" && !known.contains($0) }
        guard names.isEmpty || !unknown.isEmpty else { return nil }
        return "\(unknown.first.map { "'\($0)' is" } ?? "nothing is") not a symbology: give all or some of "
            + known.joined(separator: ", ")
    }

    func run() throws -> NodeOutputs {
        // `names` splits and trims the string each time it is read: once here, not once a format.
        let given = names
        if let problem = problem(given) { throw NodeProblem(parameter: "symbologies", problem) }
        let names = Set(given)
        let mask = names.contains("all") ? 0 : Self.formats.filter { names.contains($0.name) }.reduce(0) { $0 | $1.bit }
        let (width, height) = (input.width, input.height)
        guard width > 0, height > 0 else { return NodeOutputs(["barcodes": .barcodes([])]) }
        guard width <= 1 << 15, height <= 1 << 15, width * height <= 1 << 28 else {
            throw VisionError(
                "a \(width)x\(height) image is larger than zxing-cpp reads (at most 32768 pixels a side and 268 "
                    + "megapixels): crop or resize it first")
        }
        let gray = try Self.luma(input)
        let codes = try Self.read(gray, width: width, height: height, formats: mask, tryHarder: tryHarder)
        return NodeOutputs(["barcodes": .barcodes(codes)])
    }

    /// The image's luma as 8-bit samples, `(306 R + 601 G + 117 B + 512) / 1024` of the 8-bit values, as
    /// zxing-cpp makes it from RGB. The samples come as bytes (rounded as writers round, NaN to 0): a gray
    /// image straight into the result, a color one as RGB in bands of 256 rows, so no copy of the whole
    /// photo is held; an 8-bit file's are its own bytes, never Float32 on the way.
    /// - Cost: 3 bytes read a pixel of a color photo and three multiply-adds; through Float32 it is 16 bytes
    ///   and a clamped float conversion a sample, nearly a third of the node's time over the 100 fixture codes
    ///   (perf).
    static func luma(_ image: Image) throws -> [UInt8] {
        let (width, height) = (image.width, image.height)
        var gray = [UInt8](repeating: 0, count: width * height)
        var scratch = PixelBuffer(region: .empty, channels: image.channels)
        let whole = Rect(x: 0, y: 0, width: width, height: height)
        if image.layout.isGray {
            try gray.withUnsafeMutableBytes { out in
                guard let base = out.baseAddress else { return }
                let encoder = image.encoder(for: SampleFormat(depth: .uint8, bands: 1))
                try image.encode(whole, with: encoder, scratch: &scratch, into: base, rowBytes: width)
            }
            return gray
        }
        let encoder = image.encoder(for: SampleFormat(depth: .uint8, bands: 3))
        let rows = min(256, height)
        var rgb = [UInt8](repeating: 0, count: width * rows * 3)
        for top in stride(from: 0, to: height, by: rows) {
            let band = Rect(x: 0, y: top, width: width, height: min(rows, height - top))
            try rgb.withUnsafeMutableBytes { rgb in
                guard let base = rgb.baseAddress else { return }
                try image.encode(band, with: encoder, scratch: &scratch, into: base, rowBytes: width * 3)
            }
            rgb.withUnsafeBufferPointer { rgb in
                gray.withUnsafeMutableBufferPointer { out in
                    guard let rgb = rgb.baseAddress, let out = out.baseAddress?.advanced(by: top &* width) else {
                        return
                    }
                    for index in 0..<band.area {
                        let r = Int(rgb[3 &* index]), g = Int(rgb[3 &* index &+ 1]), b = Int(rgb[3 &* index &+ 2])
                        out[index] = UInt8(truncatingIfNeeded: (306 &* r &+ 601 &* g &+ 117 &* b &+ 512) &>> 10)
                    }
                }
            }
        }
        return gray
    }

    /// What zxing-cpp reads in `gray`.
    static func read(_ gray: [UInt8], width: Int, height: Int, formats: Int32, tryHarder: Bool) throws -> [Barcode] {
        final class Found {
            var codes: [Barcode] = []
        }
        let found = Found()
        var error = [CChar](repeating: 0, count: 256)
        let count = gray.withUnsafeBufferPointer { pixels in
            withExtendedLifetime(found) {
                tessera_zxing_read(
                    pixels.baseAddress, Int32(width), Int32(height), Int32(width), formats, tryHarder ? 1 : 0,
                    tryHarder ? 1 : 0, tryHarder ? 1 : 0, Unmanaged.passUnretained(found).toOpaque(),
                    { context, format, text, length, corners in
                        guard let context, let corners else { return }
                        let found = Unmanaged<Found>.fromOpaque(context).takeUnretainedValue()
                        let bytes = text.map { UnsafeRawBufferPointer(start: $0, count: length) }
                        let payload = bytes.map { String(decoding: $0, as: UTF8.self) } ?? ""
                        let name = DetectBarcodes.formats.first { $0.bit == format }?.name ?? "unknown"
                        // Whole pixels, as zxing-cpp gives them.
                        let points = (0..<4).map { SIMD2(Double(corners[2 * $0]), Double(corners[2 * $0 + 1])) }
                        found.codes.append(Barcode(corners: points, symbology: name, payload: payload))
                    }, &error, error.count)
            }
        }
        guard count >= 0 else {
            throw VisionError(String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return found.codes
    }
}
