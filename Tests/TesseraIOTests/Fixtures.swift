import Foundation
import Testing
import TesseraCore

/// One fixture from `Fixtures/manifest.json`, made by an independent encoder (Scripts/make-fixtures.py).
struct Fixture: Decodable, CustomTestStringConvertible, Sendable {
    var file: String
    var format: String
    var width: Int
    var height: Int
    var layout: String
    var bitDepth: Int
    var sampleType: String
    var expected: String
    var tolerance: Double
    var orientation: Int?
    var expectedStored: String?
    var storedWidth: Int?
    var storedHeight: Int?

    var testDescription: String { file }
    var path: String { Fixture.folder.appendingPathComponent(file).path }
    var isLossless: Bool { tolerance == 0 }
    var pixelLayout: PixelLayout { PixelLayout(rawValue: layout) ?? .rgba }

    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    static let all: [Fixture] = {
        struct Manifest: Decodable { var fixtures: [Fixture] }
        do {
            let data = try Data(contentsOf: folder.appendingPathComponent("manifest.json"))
            return try JSONDecoder().decode(Manifest.self, from: data).fixtures
        } catch {
            Issue.record("cannot read the fixture manifest: \(error)")
            return []
        }
    }()

    /// The expected samples, in file channels, as floats in the file's units (0...2^bits-1 or float).
    func expectedSamples(stored: Bool = false) throws -> [Double] {
        let data = try Data(
            contentsOf: Fixture.folder.appendingPathComponent(stored ? expectedStored ?? expected : expected))
        switch (sampleType, bitDepth) {
        case ("float", _):
            return stride(from: 0, to: data.count, by: 4).map { i in
                Double(
                    Float(
                        bitPattern: UInt32(
                            littleEndian: data[i..<i + 4].withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) })))
            }
        case (_, 16):
            return stride(from: 0, to: data.count, by: 2).map { i in Double(UInt16(data[i]) | UInt16(data[i + 1]) << 8)
            }
        default:
            return data.map(Double.init)
        }
    }
}

/// Compares decoded pixels with a fixture's expected samples, in the fixture's units.
///
/// Memory holds gray as 1 channel and everything else as RGBA: gray+alpha is (g, g, g, a) and RGB has
/// alpha 1. Each expected file channel is checked against its place, and the implied channels too.
func expectPixels(
    _ pixels: PixelBuffer, match fixture: Fixture, stored: Bool = false,
    sourceLocation: SourceLocation = #_sourceLocation
) throws {
    let width = stored ? fixture.storedWidth ?? fixture.width : fixture.width
    let height = stored ? fixture.storedHeight ?? fixture.height : fixture.height
    #expect(pixels.region == Rect(width: width, height: height), sourceLocation: sourceLocation)
    let expected = try fixture.expectedSamples(stored: stored)
    let layout = fixture.pixelLayout
    let fileChannels = layout.fileChannels
    #expect(expected.count == width * height * fileChannels, "raw size", sourceLocation: sourceLocation)
    let isFloat = fixture.sampleType == "float"
    let maximum = isFloat ? 1 : Double((1 << fixture.bitDepth) - 1)
    var worst = 0.0
    var firstBad: String?
    for y in 0..<height {
        for x in 0..<width {
            for c in 0..<fileChannels {
                let memoryChannel = layout == .grayAlpha && c == 1 ? 3 : c
                let decoded = Double(pixels[x, y, memoryChannel])
                let want = expected[(y * width + x) * fileChannels + c]
                let difference: Double
                if isFloat {
                    difference = decoded.bitPattern == want.bitPattern ? 0 : abs(decoded - want) + 1e-9
                } else {
                    difference = abs((decoded * maximum).rounded() - want)
                }
                if difference > worst {
                    worst = difference
                    if difference > fixture.tolerance && firstBad == nil {
                        firstBad =
                            "(\(x), \(y)) channel \(c): decoded \(decoded * (isFloat ? 1 : maximum)), expected \(want)"
                    }
                }
            }
            if layout == .grayAlpha {
                #expect(pixels[x, y, 1] == pixels[x, y, 0] && pixels[x, y, 2] == pixels[x, y, 0])
            }
            if layout == .rgb { #expect(pixels[x, y, 3] == 1, sourceLocation: sourceLocation) }
        }
    }
    #expect(
        worst <= fixture.tolerance,
        "\(fixture.file): largest difference \(worst) > \(fixture.tolerance); first at \(firstBad ?? "-")",
        sourceLocation: sourceLocation)
}

/// A fresh folder for a test's outputs, removed when `body` returns.
func withTemporaryFolder<T>(_ body: (URL) throws -> T) throws -> T {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-tests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    return try body(folder)
}
