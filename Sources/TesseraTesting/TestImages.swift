import TesseraCore

/// Images to verify nodes with: smooth gradients with noise and a varying alpha, of odd sizes so that
/// tiles never divide them evenly. The same seed gives the same pixels on every machine.
///
///     try NodeVerifier().verify(MyNode.self, inputs: ["input": .image(TestImages.rgba())])
public enum TestImages {
    /// An 8-bit RGBA image (RGB when `alpha` is false): red rises left to right, green top to bottom,
    /// blue falls left to right, each with noise; alpha rises from 0.2 at the top to 1 at the bottom.
    public static func rgba(width: Int = 61, height: Int = 47, alpha: Bool = true, seed: UInt64 = 1) -> Image {
        var random = SplitMix(seed: seed)
        var buffer = PixelBuffer(region: Rect(width: width, height: height), channels: 4)
        for y in 0..<height {
            for x in 0..<width {
                let fx = Float(x) / Float(width)
                let fy = Float(y) / Float(height)
                buffer[x, y, 0] = Swift.min(1, fx * 0.8 + random.unit() * 0.2)
                buffer[x, y, 1] = Swift.min(1, fy * 0.8 + random.unit() * 0.2)
                buffer[x, y, 2] = Swift.min(1, (1 - fx) * 0.5 + random.unit() * 0.5)
                buffer[x, y, 3] = alpha ? Swift.min(1, 0.2 + fy * 0.8 + random.unit() * 0.05) : 1
            }
        }
        return Image(buffer: buffer, layout: alpha ? .rgba : .rgb, depth: .uint8)
    }

    /// An 8-bit gray image: a diagonal gradient with noise.
    public static func gray(width: Int = 53, height: Int = 41, seed: UInt64 = 2) -> Image {
        var random = SplitMix(seed: seed)
        var buffer = PixelBuffer(region: Rect(width: width, height: height), channels: 1)
        for y in 0..<height {
            for x in 0..<width {
                buffer[x, y, 0] = Swift.min(1, Float(x + y) / Float(width + height) * 0.7 + random.unit() * 0.3)
            }
        }
        return Image(buffer: buffer, layout: .gray, depth: .uint8)
    }
}

/// A small deterministic random generator (SplitMix64), so that a verifier's failure, or a test's
/// random data, reproduces from its seed.
public struct SplitMix: RandomNumberGenerator, Sendable {
    public var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in 0..<1 with 24 random bits: every value a `Float` holds exactly.
    public mutating func unit() -> Float { Float(next() >> 40) / Float(1 << 24) }
}

extension PixelBuffer {
    /// Whether `other` holds the same region, channels and bits (NaN included, and 0 apart from -0):
    /// what "the same output" means for a verifier.
    public func hasSameBits(as other: PixelBuffer) -> Bool {
        region == other.region && channels == other.channels
            && zip(samples, other.samples).allSatisfy { $0.bitPattern == $1.bitPattern }
    }
}
