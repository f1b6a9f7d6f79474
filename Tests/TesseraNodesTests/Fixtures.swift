import Foundation
import Testing
import TesseraCore
import TesseraIO

/// The committed reference fixtures (made by the scripts in `Scripts/`, see each test).
enum Fixtures {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    /// An image file from the fixtures, decoded by Tessera.
    static func image(_ name: String) throws -> Image {
        try ImageFile.load(path: folder.appendingPathComponent(name).path).1
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
