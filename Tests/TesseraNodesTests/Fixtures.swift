import Foundation
import Testing
import TesseraCore
import TesseraIO

/// The committed reference fixtures (made by the scripts in `Scripts/`, see each test).
enum Fixtures {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    /// An image file from the fixtures, decoded by Tessera.
    static func image(_ name: String) throws -> Image {
        try ImageFile.load(path: path(name)).1
    }

    /// The path of the fixture `name`.
    static func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

    /// The path of the codec fixture `name` (Tests/TesseraIOTests/Fixtures, Scripts/make-fixtures.py).
    static func codecPath(_ name: String) -> String {
        folder.deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("TesseraIOTests/Fixtures").appendingPathComponent(name).path
    }

    /// A decoded image as a reference array (a fixture made as an image file, not as `.f32`).
    static func reference(of buffer: PixelBuffer) -> (width: Int, height: Int, channels: Int, samples: [Float]) {
        (buffer.region.width, buffer.region.height, buffer.channels, buffer.samples)
    }

    /// The part of a reference array inside `region` (from its top-left).
    static func cropped(
        _ reference: (width: Int, height: Int, channels: Int, samples: [Float]), to region: Rect
    ) -> (width: Int, height: Int, channels: Int, samples: [Float]) {
        var samples: [Float] = []
        for y in region.minY..<region.maxY {
            let start = (y * reference.width + region.minX) * reference.channels
            samples += reference.samples[start..<(start + region.width * reference.channels)]
        }
        return (region.width, region.height, reference.channels, samples)
    }

    /// A reference array in the `.f32` format: three little-endian UInt32 (width, height, channels),
    /// then Float32 samples row by row, interleaved.
    static func reference(_ name: String) throws -> (width: Int, height: Int, channels: Int, samples: [Float]) {
        let data = try Data(contentsOf: folder.appendingPathComponent(name))
        let header = (0..<3).map { i in
            data[(i * 4)..<(i * 4 + 4)].enumerated().reduce(0) { $0 | Int($1.element) << (8 * $1.offset) }
        }
        let count = header[0] * header[1] * header[2]
        var samples = [Float](repeating: 0, count: count)
        samples.withUnsafeMutableBytes { target in
            _ = data[12..<(12 + count * 4)].copyBytes(to: target)
        }
        return (header[0], header[1], header[2], samples)
    }
}

/// The largest and the mean absolute difference between `buffer` and a reference, over the channels
/// both have (`channels` limits it, e.g. 3 to skip alpha).
func difference(
    _ buffer: PixelBuffer, _ reference: (width: Int, height: Int, channels: Int, samples: [Float]),
    channels: Int? = nil
) -> (max: Float, mean: Float) {
    precondition(buffer.region.width == reference.width && buffer.region.height == reference.height)
    let compared = Swift.min(channels ?? 4, buffer.channels, reference.channels)
    var largest: Float = 0
    var total: Double = 0
    for pixel in 0..<(reference.width * reference.height) {
        for c in 0..<compared {
            let d = abs(buffer.samples[pixel * buffer.channels + c] - reference.samples[pixel * reference.channels + c])
            largest = Swift.max(largest, d.isNaN ? .infinity : d)
            total += Double(d)
        }
    }
    return (largest, Float(total / Double(reference.width * reference.height * compared)))
}

extension NodeValue {
    /// The image this value holds; fails the test otherwise.
    func image(sourceLocation: Testing.SourceLocation = #_sourceLocation) throws -> Image {
        guard case .image(let image) = self else {
            Issue.record("expected an image, found \(type.phrase)", sourceLocation: sourceLocation)
            throw NodeConfigurationError("not an image")
        }
        return image
    }
}
