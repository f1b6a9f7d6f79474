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
            ? SIMD4(pointer[0], pointer[1], pointer[2], pointer[3]) : SIMD4(pointer[0], pointer[0], pointer[0], 1)
    }

    @inline(__always)
    static func store(_ value: SIMD4<Float>, _ pointer: UnsafeMutablePointer<Float>, channels: Int) {
        if channels == 4 {
            pointer[0] = value.x
            pointer[1] = value.y
            pointer[2] = value.z
            pointer[3] = value.w
        } else {
            pointer[0] = value.x
        }
    }

    /// `output[p] = body(input[p])` for every pixel `p` of `output.region`; `input` covers it.
    @inline(__always)
    static func map(
        _ output: inout PixelBuffer, _ input: PixelBuffer, _ body: (SIMD4<Float>) -> SIMD4<Float>
    ) {
        let region = output.region
        let outChannels = output.channels
        let inChannels = input.channels
        let outRow = output.rowLength
        let inRow = input.rowLength
        let inStart = input.index(x: region.minX, y: region.minY)
        input.samples.withUnsafeBufferPointer { source in
            output.samples.withUnsafeMutableBufferPointer { target in
                guard let from = source.baseAddress, let to = target.baseAddress else { return }
                for row in 0..<region.height {
                    let a = from + (inStart &+ row &* inRow)
                    let o = to + row &* outRow
                    for x in 0..<region.width {
                        store(
                            body(load(a + x &* inChannels, channels: inChannels)), o + x &* outChannels,
                            channels: outChannels)
                    }
                }
            }
        }
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
    @inline(__always)
    static func map(
        _ output: inout PixelBuffer, _ first: PixelBuffer, _ second: PixelBuffer, _ third: PixelBuffer,
        _ body: (SIMD4<Float>, SIMD4<Float>, SIMD4<Float>) -> SIMD4<Float>
    ) {
        let region = output.region
        let outChannels = output.channels
        let outRow = output.rowLength
        let channels = (first.channels, second.channels, third.channels)
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
                                    load(a + x &* channels.0, channels: channels.0),
                                    load(b + x &* channels.1, channels: channels.1),
                                    load(c + x &* channels.2, channels: channels.2))
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
