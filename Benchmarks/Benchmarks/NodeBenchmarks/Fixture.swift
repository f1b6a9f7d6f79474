import Foundation
import Tessera

/// The benchmark inputs: a 4K RGB photo stand-in and a gray mask, as uncompressed 8-bit TIFFs, written
/// once and reused by every benchmark (and every later run) while they keep their size.
///
/// The pixels are procedural rather than an upscaled photo so that the fixture needs no other tool and
/// is the same on every machine: smooth gradients (what most of a photo is) plus a fine hashed texture
/// (so that nothing downstream sees a constant image it could special-case).
enum Fixture {
    static let width = 3840
    static let height = 2160
    static var pixels: Int { width * height }

    /// `TESSERA_BENCH_DIR` moves the inputs and outputs (default /tmp/tessera-bench).
    static let folder = ProcessInfo.processInfo.environment["TESSERA_BENCH_DIR"] ?? "/tmp/tessera-bench"
    static var photo: String { folder + "/photo-4k.tif" }
    static var mask: String { folder + "/mask-4k.tif" }

    /// Where a job writes, without the extension.
    static func output(_ name: String) -> String { folder + "/out-\(name)" }

    /// Writes the inputs unless they are already there with the right size.
    static func prepare() throws {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let rgb = Image(
            width: width, height: height, layout: .rgb, depth: .uint8, source: PatternSource(kind: .photo))
        let gray = Image(
            width: width, height: height, layout: .gray, depth: .uint8, source: PatternSource(kind: .mask))
        for (path, image) in [(photo, rgb), (mask, gray)] where !hasSize(path, of: image) {
            // Strips, no compression: the format every benchmark reads, so decoding costs only a copy.
            try ImageFile.save(image, to: path)
        }
    }

    private static func hasSize(_ path: String, of image: Image) -> Bool {
        guard let info = try? ImageFile.info(path: path) else { return false }
        return info.width == image.width && info.height == image.height && info.layout == image.layout
    }
}

/// Procedural pixels for any region: the same value for a pixel whatever region asks for it.
private struct PatternSource: PixelSource {
    enum Kind { case photo, mask }
    let kind: Kind

    func render(into buffer: inout PixelBuffer) throws {
        let region = buffer.region
        let channels = buffer.channels
        let w = Float(Fixture.width)
        let h = Float(Fixture.height)
        buffer.samples.withUnsafeMutableBufferPointer { samples in
            var i = 0
            for y in region.minY..<region.maxY {
                for x in region.minX..<region.maxX {
                    // A small integer hash: texture of about +-6 levels of 255.
                    var n = UInt32(truncatingIfNeeded: x &* 73_856_093 ^ y &* 19_349_663)
                    n = (n ^ (n >> 13)) &* 0x5bd1_e995
                    let grain = Float(n >> 24) / 255 * 0.05 - 0.025
                    let fx = Float(x) / w
                    let fy = Float(y) / h
                    switch kind {
                    case .photo:
                        samples[i] = clamp(0.15 + 0.7 * fx + grain)
                        samples[i + 1] = clamp(0.2 + 0.6 * fy + grain)
                        samples[i + 2] = clamp(0.8 - 0.5 * (fx + fy) / 2 + grain)
                        samples[i + 3] = 1
                    case .mask:
                        // A soft disc: 1 in the middle, 0 at the corners.
                        let dx = fx - 0.5
                        let dy = fy - 0.5
                        samples[i] = clamp(1.6 - 3 * (dx * dx + dy * dy).squareRoot())
                    }
                    i += channels
                }
            }
        }
    }

    private func clamp(_ v: Float) -> Float { min(max(v, 0), 1) }
}
