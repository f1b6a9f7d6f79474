import TesseraCore

/// The per-pixel loop point kernels share: each output pixel from the input pixels at the same point.
///
/// Pixels are handed over as RGBA: a gray sample `v` reads as `(v, v, v, 1)`, and a one-channel output
/// keeps the red lane. The loop runs over unsafe row pointers and is inlined into each kernel, so the
/// closure compiles into the kernel's own loop.
enum PointLoop {
    @inline(__always)
    static func load(_ pointer: UnsafePointer<Float>, channels: Int) -> SIMD4<Float> {
        channels == 4
            ? UnsafeRawPointer(pointer).loadUnaligned(as: SIMD4<Float>.self)
            : SIMD4(pointer[0], pointer[0], pointer[0], 1)
    }

    @inline(__always)
    static func store(_ value: SIMD4<Float>, _ pointer: UnsafeMutablePointer<Float>, channels: Int) {
        if channels == 4 {
            UnsafeMutableRawPointer(pointer).storeBytes(of: value, as: SIMD4<Float>.self)
        } else {
            pointer[0] = value.x
        }
    }

    /// `output[p] = body(input[p])` for every pixel `p` of `output.region`; `input` covers it.
    @inline(__always)
    static func map(
        _ output: inout PixelBuffer, _ input: PixelBuffer, _ body: (SIMD4<Float>) -> SIMD4<Float>
    ) {
        map(&output, input, input, input) { a, _, _ in body(a) }
    }

    /// `output[p] = body(first[p], second[p])`; both inputs cover `output.region`.
    @inline(__always)
    static func map(
        _ output: inout PixelBuffer, _ first: PixelBuffer, _ second: PixelBuffer,
        _ body: (SIMD4<Float>, SIMD4<Float>) -> SIMD4<Float>
    ) {
        map(&output, first, second, second) { a, b, _ in body(a, b) }
    }

    /// `output[p] = body(first[p], second[p], third[p])`; every input covers `output.region`.
    ///
    /// The loop is written out for the common mixes of channel counts (all inputs 4 or all 1, the
    /// output 4 or 1) with the counts as constants: tested per pixel, they kept each pixel's loads,
    /// math and stores apart (colorMatrix on a 27 MP RGBA image, one thread: 91 ms, 3.3 ns a pixel;
    /// with a loop per mix, 23 ms).
    @inline(__always)
    static func map(
        _ output: inout PixelBuffer, _ first: PixelBuffer, _ second: PixelBuffer, _ third: PixelBuffer,
        _ body: (SIMD4<Float>, SIMD4<Float>, SIMD4<Float>) -> SIMD4<Float>
    ) {
        let wide = (first.channels == 4, second.channels == 4, third.channels == 4, output.channels == 4)
        switch wide {
        case (true, true, true, true): loop(&output, first, second, third, 4, 4, 4, 4, body)
        case (true, true, true, false): loop(&output, first, second, third, 4, 4, 4, 1, body)
        case (false, false, false, true): loop(&output, first, second, third, 1, 1, 1, 4, body)
        case (false, false, false, false): loop(&output, first, second, third, 1, 1, 1, 1, body)
        default:
            loop(
                &output, first, second, third, first.channels, second.channels, third.channels, output.channels,
                body)
        }
    }

    @inline(__always)
    private static func loop(
        _ output: inout PixelBuffer, _ first: PixelBuffer, _ second: PixelBuffer, _ third: PixelBuffer,
        _ c1: Int, _ c2: Int, _ c3: Int, _ outChannels: Int,
        _ body: (SIMD4<Float>, SIMD4<Float>, SIMD4<Float>) -> SIMD4<Float>
    ) {
        let region = output.region
        let outRow = output.rowLength
        let rows = (first.rowLength, second.rowLength, third.rowLength)
        let starts = (
            first.index(x: region.minX, y: region.minY), second.index(x: region.minX, y: region.minY),
            third.index(x: region.minX, y: region.minY)
        )
        first.samples.withUnsafeBufferPointer { s1 in
            second.samples.withUnsafeBufferPointer { s2 in
                third.samples.withUnsafeBufferPointer { s3 in
                    output.samples.withUnsafeMutableBufferPointer { target in
                        guard let p1 = s1.baseAddress, let p2 = s2.baseAddress, let p3 = s3.baseAddress,
                            let to = target.baseAddress
                        else { return }
                        for row in 0..<region.height {
                            let a = p1 + (starts.0 &+ row &* rows.0)
                            let b = p2 + (starts.1 &+ row &* rows.1)
                            let c = p3 + (starts.2 &+ row &* rows.2)
                            let o = to + row &* outRow
                            for x in 0..<region.width {
                                let value = body(
                                    load(a + x &* c1, channels: c1), load(b + x &* c2, channels: c2),
                                    load(c + x &* c3, channels: c3))
                                store(value, o + x &* outChannels, channels: outChannels)
                            }
                        }
                    }
                }
            }
        }
    }
}

/// Luminance weights: how gray is made from red, green and blue.
enum Luma {
    /// ITU-R BT.601, as OpenCV's `cvtColor(..., COLOR_RGB2GRAY)` and JPEG use.
    static let rec601 = SIMD4<Float>(0.299, 0.587, 0.114, 0)
    /// ITU-R BT.709 (sRGB primaries).
    static let rec709 = SIMD4<Float>(0.2126, 0.7152, 0.0722, 0)
}
