import CTesseraSIMD

/// A sample type as stored in files: 8- or 16-bit unsigned integers, 32- or 64-bit floats.
package protocol FileSample {
    /// The value as a float, before scaling.
    var floatValue: Float { get }
    /// `value` clamped to 0...1 and scaled by `maxValue` (integers), or kept as is (floats).
    static func encode(_ value: Float, maxValue: Float) -> Self
}

/// Rounds `value` (clamped to 0...1, NaN to 0) times `maxValue` (at most 65535) to the nearest integer,
/// ties to even as OpenCV's `saturate_cast` does. Adding 2^23 puts the rounded integer in the low bits
/// of the mantissa: no conversion that can trap, so the loops around it vectorize.
@inlinable
package func quantize(_ value: Float, maxValue: Float) -> UInt32 {
    let clamped: Float = value > 0 ? (value < 1 ? value : 1) : 0
    return (clamped * maxValue + 8_388_608).bitPattern & 0xFFFF
}

extension UInt8: FileSample {
    @inlinable package var floatValue: Float { Float(self) }
    @inlinable package static func encode(_ value: Float, maxValue: Float) -> UInt8 {
        UInt8(truncatingIfNeeded: quantize(value, maxValue: maxValue))
    }
}

extension UInt16: FileSample {
    @inlinable package var floatValue: Float { Float(self) }
    @inlinable package static func encode(_ value: Float, maxValue: Float) -> UInt16 {
        UInt16(truncatingIfNeeded: quantize(value, maxValue: maxValue))
    }
}

extension Double: FileSample {
    @inlinable package var floatValue: Float { Float(self) }
    @inlinable package static func encode(_ value: Float, maxValue: Float) -> Double { Double(value) }
}

extension Float: FileSample {
    @inlinable package var floatValue: Float { self }
    @inlinable package static func encode(_ value: Float, maxValue: Float) -> Float { value }
}

/// Moves rows of pixels between file layouts (1 to 4 interleaved samples) and memory (1 or 4 Float32).
package enum Samples {
    /// Decodes `count` pixels whose first `fileChannels` samples (of `stride` per pixel) are gray, gray and
    /// alpha, RGB or RGBA. `scale` maps a stored value to 0...1 (1 / 255, 1 / 65535, or 1 for floats).
    /// Gray and alpha becomes (g, g, g, a); RGB gets alpha 1.
    ///
    /// Specialized here for each stored type: the readers call it from another module, where the
    /// optimizer did not specialize it, and decoding ran 2 to 4 times slower through the generic body.
    @_specialize(where T == UInt8)
    @_specialize(where T == UInt16)
    @_specialize(where T == Float)
    @_specialize(where T == Double)
    @inlinable
    package static func decode<T: FileSample>(
        _ source: UnsafePointer<T>, fileChannels: Int, stride: Int, count: Int, scale: Float,
        into target: UnsafeMutablePointer<Float>
    ) {
        // 8-bit rows, every reader's commonest: the C loops' scaling (resolved when specialized).
        let bytes = T.self == UInt8.self && scale == 1 / 255
        if bytes, stride == fileChannels, fileChannels == 1 || fileChannels == 4 {
            return decode8(
                UnsafeRawPointer(source).assumingMemoryBound(to: UInt8.self), count: count &* fileChannels,
                into: target)
        }
        switch fileChannels {
        case 1:
            for i in 0..<count { target[i] = source[stride &* i].floatValue * scale }
        case 2:
            for i in 0..<count {
                let s = source + stride &* i
                let g = s[0].floatValue * scale
                let d = target + 4 &* i
                d[0] = g
                d[1] = g
                d[2] = g
                d[3] = s[1].floatValue * scale
            }
        case 3:
            if bytes, stride == 3 {
                return decodeRGB8(
                    UnsafeRawPointer(source).assumingMemoryBound(to: UInt8.self), count: count, into: target)
            }
            for i in 0..<count {
                let s = source + stride &* i
                let d = target + 4 &* i
                d[0] = s[0].floatValue * scale
                d[1] = s[1].floatValue * scale
                d[2] = s[2].floatValue * scale
                d[3] = 1
            }
        default:
            if stride == 4 {
                for i in 0..<(4 &* count) { target[i] = source[i].floatValue * scale }
            } else {
                for i in 0..<count {
                    let s = source + stride &* i
                    let d = target + 4 &* i
                    for c in 0..<4 { d[c] = s[c].floatValue * scale }
                }
            }
        }
    }

    /// Encodes `count` pixels of `channels` (1 or 4) Float32 samples into `fileChannels` stored samples.
    /// Integers are clamped to 0...1 and scaled by `maxValue`; 4 to 1 channels keeps red (the gray of a
    /// gray layout), 4 to 2 keeps red and alpha, 4 to 3 drops alpha.
    @_specialize(where T == UInt8)
    @_specialize(where T == UInt16)
    @_specialize(where T == Float)
    @_specialize(where T == Double)
    @inlinable
    package static func encode<T: FileSample>(
        _ source: UnsafePointer<Float>, channels: Int, count: Int, fileChannels: Int, maxValue: Float,
        into target: UnsafeMutablePointer<T>
    ) {
        switch (channels, fileChannels) {
        case (1, 1), (4, 4):
            if T.self == UInt8.self, maxValue == 255 {
                return encode8(source, count: channels &* count, into: UnsafeMutableRawPointer(target))
            }
            for i in 0..<(channels &* count) { target[i] = T.encode(source[i], maxValue: maxValue) }
        case (1, _):
            // Gray into a wider file: replicate the gray, opaque alpha where the file has alpha.
            let opaque = T.encode(1, maxValue: maxValue)
            let alphaIndex = fileChannels == 2 || fileChannels == 4 ? fileChannels - 1 : -1
            for i in 0..<count {
                let v = T.encode(source[i], maxValue: maxValue)
                for c in 0..<fileChannels { target[fileChannels &* i &+ c] = c == alphaIndex ? opaque : v }
            }
        case (_, 1):
            for i in 0..<count { target[i] = T.encode(source[4 &* i], maxValue: maxValue) }
        case (_, 2):
            for i in 0..<count {
                target[2 &* i] = T.encode(source[4 &* i], maxValue: maxValue)
                target[2 &* i &+ 1] = T.encode(source[4 &* i &+ 3], maxValue: maxValue)
            }
        default:
            for i in 0..<count {
                let s = source + 4 &* i
                let d = target + 3 &* i
                d[0] = T.encode(s[0], maxValue: maxValue)
                d[1] = T.encode(s[1], maxValue: maxValue)
                d[2] = T.encode(s[2], maxValue: maxValue)
            }
        }
    }
}

extension Samples {
    /// Decodes `count` packed pixels of `fileChannels` samples of `depth` at `row` (integers scaled to
    /// 0...1) into 1 (gray) or 4 Float32 channels, as ``decode(_:fileChannels:stride:count:scale:into:)``.
    package static func decode(
        row: UnsafeRawPointer, depth: SampleDepth, fileChannels: Int, count: Int,
        into target: UnsafeMutablePointer<Float>
    ) {
        switch depth {
        case .uint8:
            decode(
                row.assumingMemoryBound(to: UInt8.self), fileChannels: fileChannels, stride: fileChannels,
                count: count, scale: 1 / 255, into: target)
        case .uint16:
            decode(
                row.assumingMemoryBound(to: UInt16.self), fileChannels: fileChannels, stride: fileChannels,
                count: count, scale: 1 / 65535, into: target)
        case .float32:
            decode(
                row.assumingMemoryBound(to: Float.self), fileChannels: fileChannels, stride: fileChannels,
                count: count, scale: 1, into: target)
        }
    }

    /// 8-bit RGB to Float32 RGBA, alpha 1: the same values as ``decode(_:fileChannels:stride:count:scale:into:)``,
    /// in C at the processor's vector width (the generic loop converts sample by sample).
    package static func decodeRGB8(_ source: UnsafePointer<UInt8>, count: Int, into target: UnsafeMutablePointer<Float>)
    {
        tsr_decode_rgb8(vectorLevel, source, count, target)
    }

    /// Float32 RGBA to 8-bit RGB, alpha dropped, rounded as ``quantize(_:maxValue:)``, in C at the
    /// processor's vector width.
    package static func encodeRGB8(_ source: UnsafePointer<Float>, count: Int, into target: UnsafeMutablePointer<UInt8>)
    {
        tsr_encode_rgb8(vectorLevel, source, count, target)
    }

    /// The vector width of the C loops (`CTesseraSIMD`): the widest this processor has. Every width gives
    /// the same bits.
    package static let vectorLevel = tsr_simd_best()

    /// `count` Float32 samples rounded to 8-bit as ``quantize(_:maxValue:)`` does (NaN and negatives to 0,
    /// above 1 to 255), in C at the processor's vector width.
    package static func encode8(_ source: UnsafePointer<Float>, count: Int, into target: UnsafeMutableRawPointer) {
        tsr_encode8(vectorLevel, source, count, target.assumingMemoryBound(to: UInt8.self))
    }

    /// `count` 8-bit samples scaled to 0...1 as the decoders do (times `1 / 255`), in C at the processor's
    /// vector width.
    package static func decode8(_ source: UnsafePointer<UInt8>, count: Int, into target: UnsafeMutablePointer<Float>) {
        tsr_decode8(vectorLevel, source, count, target)
    }

    /// Float32 RGBA to Float32 RGB, alpha dropped, in C at the processor's vector width.
    package static func encodeRGBFloat(
        _ source: UnsafePointer<Float>, count: Int, into target: UnsafeMutablePointer<Float>
    ) {
        tsr_encode_rgb_float(vectorLevel, source, count, target)
    }

    /// The encoder a writer hands the image: `channels` Float32 samples a pixel in, `fileChannels`
    /// samples of `depth` a pixel out (8-bit and 16-bit rounded as ``encode(_:channels:count:fileChannels:maxValue:into:)``).
    /// With a `background` (red, green, blue), 4 channels written as 1 or 3 are laid over it by their
    /// alpha first, `value * alpha + background * (1 - alpha)` (to 1 channel, over the background's
    /// Rec. 709 luminance), instead of dropping the alpha.
    package static func encoder(
        channels: Int, fileChannels: Int, depth: SampleDepth, background: SIMD3<Float>? = nil
    ) -> SampleEncoder {
        if let background, channels == 4, fileChannels == 1 || fileChannels == 3, depth != .float32 {
            let maxValue: Float = depth == .uint8 ? 255 : 65535
            let format =
                "\(depth), 4 channels over (\(background.x), \(background.y), \(background.z)) to \(fileChannels)"
            let bytes = fileChannels * (depth == .uint8 ? 1 : 2)
            return SampleEncoder(format: format, bytesPerPixel: bytes) { from, count, to in
                if depth == .uint8 {
                    flatten(
                        from, count: count, over: background, fileChannels: fileChannels, maxValue: maxValue,
                        into: to.assumingMemoryBound(to: UInt8.self))
                } else {
                    flatten(
                        from, count: count, over: background, fileChannels: fileChannels, maxValue: maxValue,
                        into: to.assumingMemoryBound(to: UInt16.self))
                }
            }
        }
        let format = "\(depth), \(channels) channels to \(fileChannels)"
        let packed = SampleFormat(depth: depth, bands: fileChannels)
        return switch depth {
        case .uint8 where channels == 4 && fileChannels == 3:
            SampleEncoder(format: format, bytesPerPixel: 3, packed: packed) { from, count, to in
                encodeRGB8(from, count: count, into: to.assumingMemoryBound(to: UInt8.self))
            }
        case .uint8:
            SampleEncoder(format: format, bytesPerPixel: fileChannels, packed: packed) { from, count, to in
                encode(
                    from, channels: channels, count: count, fileChannels: fileChannels, maxValue: 255,
                    into: to.assumingMemoryBound(to: UInt8.self))
            }
        case .uint16:
            SampleEncoder(format: format, bytesPerPixel: fileChannels * 2, packed: packed) { from, count, to in
                encode(
                    from, channels: channels, count: count, fileChannels: fileChannels, maxValue: 65535,
                    into: to.assumingMemoryBound(to: UInt16.self))
            }
        case .float32 where channels == 4 && fileChannels == 3:
            SampleEncoder(format: format, bytesPerPixel: 12, packed: packed) { from, count, to in
                encodeRGBFloat(from, count: count, into: to.assumingMemoryBound(to: Float.self))
            }
        case .float32:
            SampleEncoder(format: format, bytesPerPixel: fileChannels * 4, packed: packed) { from, count, to in
                encode(
                    from, channels: channels, count: count, fileChannels: fileChannels, maxValue: 1,
                    into: to.assumingMemoryBound(to: Float.self))
            }
        }
    }

    /// `count` RGBA pixels laid over `background` by their alpha (clamped to 0...1), as 3 samples, or as
    /// 1 (the red, which is the gray of a gray layout, over the background's luminance).
    @inlinable
    package static func flatten<T: FileSample>(
        _ source: UnsafePointer<Float>, count: Int, over background: SIMD3<Float>, fileChannels: Int,
        maxValue: Float, into target: UnsafeMutablePointer<T>
    ) {
        if fileChannels == 1 {
            let gray = 0.2126 * background.x + 0.7152 * background.y + 0.0722 * background.z
            for i in 0..<count {
                let s = source + 4 &* i
                let a = Swift.min(Swift.max(s[3], 0), 1)
                target[i] = T.encode(s[0] * a + gray * (1 - a), maxValue: maxValue)
            }
            return
        }
        for i in 0..<count {
            let s = source + 4 &* i
            let d = target + 3 &* i
            let a = Swift.min(Swift.max(s[3], 0), 1)
            d[0] = T.encode(s[0] * a + background.x * (1 - a), maxValue: maxValue)
            d[1] = T.encode(s[1] * a + background.y * (1 - a), maxValue: maxValue)
            d[2] = T.encode(s[2] * a + background.z * (1 - a), maxValue: maxValue)
        }
    }
}
