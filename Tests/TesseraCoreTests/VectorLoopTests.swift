import CTesseraSIMD
import Testing
import TesseraCore

/// The C loops built for several vector widths (`CTesseraSIMD`): every width this processor runs gives
/// the bits of a plain scalar loop doing the same operations in the same order, so a result does not
/// depend on the machine it was computed on.
@Suite struct VectorLoopTests {
    /// The widths to check: the baseline and every wider one this processor has.
    static let levels: [tsr_simd_level] = [tsr_simd_baseline, tsr_simd_avx2, tsr_simd_avx512].filter {
        $0.rawValue <= tsr_simd_best().rawValue
    }

    /// Deterministic samples in 0...1 with a few outside it, from a linear congruential generator.
    static func samples(_ count: Int, seed: UInt64) -> [Float] {
        var state = seed
        return (0..<count).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Float(state >> 40) / Float(1 << 24) * 1.2 - 0.1
        }
    }

    @Test func firGivesTheScalarSumsAtEveryWidth() {
        // A vertical pass (step = a row) and a horizontal one over RGB pixels (step 3), widths that are
        // not a multiple of 64 (the wide loop's block) so the 16-sample tail runs too.
        let weights: [Float] = [0.199, 0.176, 0.121, 0.065, 0.027, 0.009, 0.002]
        let radius = weights.count - 1
        for (step, rowStride, rows, width) in [(112, 112, 9, 112), (3, 3, 1, 80)] {
            let source = Self.samples(rowStride * (rows + 2 * radius) + 2 * radius * step + 64, seed: UInt64(step))
            var expected = [Float](repeating: 0, count: rows * width)
            for row in 0..<rows {
                for i in 0..<width {
                    let c = (row + radius) * rowStride + i
                    var sum = source[c] * weights[0]
                    for k in 1...radius {
                        let pair = source[c - k * step] + source[c + k * step]
                        sum += pair * weights[k]
                    }
                    expected[row * width + i] = sum
                }
            }
            for level in Self.levels {
                var dest = [Float](repeating: .nan, count: rows * width)
                source.withUnsafeBufferPointer { source in
                    dest.withUnsafeMutableBufferPointer { dest in
                        tsr_fir(
                            level, source.baseAddress!, step, rowStride, dest.baseAddress!, width, rows, width, weights,
                            radius)
                    }
                }
                let differing = zip(dest, expected).filter { $0.bitPattern != $1.bitPattern }.count
                #expect(differing == 0, "level \(level.rawValue), step \(step): \(differing) sums differ")
            }
        }
    }

    @Test func encode8RoundsAsQuantizeAtEveryWidth() {
        // Ties (k + 0.5) / 255, NaN, infinities, signed zeros and values outside 0...1, then noise; 83
        // samples, so the tail after the 16-wide loop runs too.
        var values: [Float] = [.nan, -.nan, .infinity, -.infinity, -0.0, 0, 1, 1.0001, -0.0001, 2]
        values += (0..<40).map { (Float($0 * 6) + 0.5) / 255 }
        values += Self.samples(33, seed: 7)
        let expected = values.map { UInt8(quantize($0, maxValue: 255)) }
        for level in Self.levels {
            var bytes = [UInt8](repeating: 0xAA, count: values.count)
            tsr_encode8(level, values, values.count, &bytes)
            #expect(bytes == expected, "level \(level.rawValue)")
        }
    }

    @Test func decode8ScalesAsTheDecodersAtEveryWidth() {
        let bytes = (0..<300).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let expected = bytes.map { Float($0) * (1 / 255) }
        for level in Self.levels {
            var floats = [Float](repeating: .nan, count: bytes.count)
            tsr_decode8(level, bytes, bytes.count, &floats)
            let differing = zip(floats, expected).filter { $0.bitPattern != $1.bitPattern }.count
            #expect(differing == 0, "level \(level.rawValue): \(differing) samples differ")
        }
    }

    /// The pixel conversions against the per-pixel formulas they stand for, over counts that leave a
    /// tail after the four-pixel loop (the stores of 12 floats or bytes must not pass the last pixel:
    /// the byte after it keeps its value).
    @Test func pixelConversionsMatchTheirFormulasAtEveryWidth() {
        for count in [1, 3, 4, 7, 61] {
            let bytes = (0..<(3 * count)).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
            let rgba = Self.samples(4 * count, seed: UInt64(count))
            let scale = SIMD4<Float>(1 / 255, 1 / 255, 1 / 255, 0)
            let decoded = (0..<count).flatMap { i -> [Float] in
                let pixel = SIMD4<Float>(Float(bytes[3 * i]), Float(bytes[3 * i + 1]), Float(bytes[3 * i + 2]), 0)
                let value = pixel * scale + SIMD4(0, 0, 0, 1)
                return [value.x, value.y, value.z, value.w]
            }
            let rgbFloat = (0..<count).flatMap { i in rgba[(4 * i)..<(4 * i + 3)] }
            let rgb8 = rgbFloat.map { UInt8(quantize($0, maxValue: 255)) }
            for level in Self.levels {
                var floats = [Float](repeating: .nan, count: 4 * count + 1)
                tsr_decode_rgb8(level, bytes, count, &floats)
                #expect(floats.dropLast().map(\.bitPattern) == decoded.map(\.bitPattern) && floats.last!.isNaN)
                var narrow = [Float](repeating: -7, count: 3 * count + 1)
                tsr_encode_rgb_float(level, rgba, count, &narrow)
                #expect(narrow.dropLast().map(\.bitPattern) == rgbFloat.map(\.bitPattern) && narrow.last == -7)
                var small = [UInt8](repeating: 0xAA, count: 3 * count + 1)
                tsr_encode_rgb8(level, rgba, count, &small)
                #expect(Array(small.dropLast()) == rgb8 && small.last == 0xAA, "level \(level.rawValue), \(count)")
            }
        }
    }

    /// The 8-bit mix against `(a m + b (255 - m)) / 255` rounded in Double (never a tie: the fraction is
    /// a multiple of 1/255), for gray and RGB, over every mask value and a tail.
    @Test func mix8IsTheRoundedExactMixAtEveryWidth() {
        for bands in [1, 3] {
            let count = 256 + 13
            let mask = (0..<count).map { UInt8(truncatingIfNeeded: $0) }
            let a = (0..<(count * bands)).map { UInt8(truncatingIfNeeded: $0 &* 53 &+ 7) }
            let b = (0..<(count * bands)).map { UInt8(truncatingIfNeeded: $0 &* 29 &+ 200) }
            let expected = (0..<(count * bands)).map { i -> UInt8 in
                let m = Double(mask[i / bands])
                return UInt8(((Double(a[i]) * m + Double(b[i]) * (255 - m)) / 255).rounded())
            }
            for level in Self.levels {
                var out = [UInt8](repeating: 0, count: count * bands + 1)
                tsr_mix8(level, a, b, mask, bands, count, &out)
                #expect(Array(out.dropLast()) == expected && out.last == 0, "level \(level.rawValue), \(bands) bands")
            }
        }
    }
}
