/// The 1-D passes of the Gaussian blur, over rows of Float32 samples in scratch buffers.
///
/// Every pass computes each output sample by one fixed sequence of additions and multiplications that
/// depends only on the sample's absolute coordinate, never on where the rendered region starts or which
/// SIMD lane the sample falls in: that is what makes the blur bit-identical for any tiling.
enum SeparablePasses {
    @inline(__always)
    static func load<V: SIMD>(_ pointer: UnsafePointer<Float>) -> V where V.Scalar == Float {
        UnsafeRawPointer(pointer).loadUnaligned(as: V.self)
    }

    @inline(__always)
    static func store<V: SIMD>(_ value: V, _ pointer: UnsafeMutablePointer<Float>) where V.Scalar == Float {
        UnsafeMutableRawPointer(pointer).storeBytes(of: value, as: V.self)
    }

    /// A symmetric FIR along one axis: for `row` in `0..<rows` and `i` in `0..<width`,
    ///
    ///     dest[row * destStride + i] = w₀ c[i] + Σₖ wₖ (c[i - k * step] + c[i + k * step]),   k = 1...radius
    ///
    /// where `c = source + (row + radius) * rowStride`. Rows of a tile (`step` = a row's stride, `rowStride`
    /// the same) make a vertical pass; one row of interleaved pixels (`step` = channels, `rows` 1) makes a
    /// horizontal one. `width` must be a multiple of 16: the samples past the wanted ones are computed too.
    static func fir(
        source: UnsafePointer<Float>, step: Int, rowStride: Int, dest: UnsafeMutablePointer<Float>,
        destStride: Int, rows: Int, width: Int, weights: UnsafePointer<Float>, radius: Int
    ) {
        let center = weights[0]
        for row in 0..<rows {
            let middle = source + (row &+ radius) &* rowStride
            let out = dest + row &* destStride
            var i = 0
            while i < width {
                let c = middle + i
                var sum: SIMD16<Float> = load(c) * center
                var k = 1
                var offset = step
                while k <= radius {
                    let pair: SIMD16<Float> = load(c - offset) + load(c + offset)
                    sum += pair * weights[k]
                    k &+= 1
                    offset &+= step
                }
                store(sum, out + i)
                i &+= 16
            }
        }
    }
}

/// The cosine-series Gaussian (``CosineGaussian``) along one line of samples, in O(1) per sample.
///
/// Each of the 7 components is a window sum `Σ f(m) φⱼ(m)` over `m` in `x - R ... x + R`. A running sum
/// would make each value depend on where the line starts (floating-point rounding accumulates from
/// there), so the sums are anchored to absolute coordinates instead: cut the axis into blocks of
/// `B = 2R + 1` starting at multiples of B. A window is exactly B long, so it holds one block start `s`
/// (if it starts on one, the whole window is that block): its sum is the suffix sum of the block before
/// `s`, from the window's start, plus the prefix sum of the block from `s` to the window's end. Suffix
/// sums run backward from each block's end, prefix sums forward from each block's start: every window
/// sum adds the same samples in the same order whatever the tile, and reads nothing outside the window
/// (as van Herk and Gil-Werman's running max does). A vector `V` holds independent lanes: 4 channels of
/// a pixel, or neighbouring columns.
struct CosineSweep {
    /// R.
    let radius: Int
    /// Period 2R: ``CosineGaussian/modulation`` and ``CosineGaussian/demodulation``.
    let modulation: UnsafePointer<Float>
    let demodulation: UnsafePointer<Float>
    /// Room for `7 * count` vectors: the suffix sums of each output's window start.
    let suffix: UnsafeMutablePointer<Float>

    /// The 7 component sums of one lane vector.
    struct Sums<V: SIMD> where V.Scalar == Float {
        var s0 = V(), s1 = V(), s2 = V(), s3 = V(), s4 = V(), s5 = V(), s6 = V()

        /// Adds sample `x` times its modulation factors `m[0..<6]` (component 0's factor is 1).
        @inline(__always)
        mutating func add(_ x: V, _ m: UnsafePointer<Float>) {
            s0 += x
            s1 += x * m[0]
            s2 += x * m[1]
            s3 += x * m[2]
            s4 += x * m[3]
            s5 += x * m[4]
            s6 += x * m[5]
        }

        @inline(__always)
        func store(_ pointer: UnsafeMutablePointer<Float>) {
            let n = V.scalarCount
            SeparablePasses.store(s0, pointer)
            SeparablePasses.store(s1, pointer + n)
            SeparablePasses.store(s2, pointer + 2 &* n)
            SeparablePasses.store(s3, pointer + 3 &* n)
            SeparablePasses.store(s4, pointer + 4 &* n)
            SeparablePasses.store(s5, pointer + 5 &* n)
            SeparablePasses.store(s6, pointer + 6 &* n)
        }
    }

    @inline(__always)
    static func positiveModulo(_ value: Int, _ modulus: Int) -> Int {
        let r = value % modulus
        return r < 0 ? r + modulus : r
    }

    /// Filters the line whose sample at absolute coordinate `first + i` is `source + i * step` (for `i`
    /// in `0..<count + 2R`) into `count` outputs, output `i` (coordinate `first + R + i`) at
    /// `dest + i * destStep`.
    @inline(__always)
    func run<V: SIMD>(
        _: V.Type, source: UnsafePointer<Float>, step: Int, first: Int, count: Int, dest: UnsafeMutablePointer<Float>,
        destStep: Int
    ) where V.Scalar == Float {
        let radius = self.radius
        let block = 2 &* radius &+ 1
        let period = 2 &* radius
        let lanes = V.scalarCount
        let modulation = self.modulation
        let demodulation = self.demodulation
        let suffix = self.suffix

        // Backward: the suffix sums of the window starts first ..< first + count, each from its block's end.
        let lastStart = first &+ count &- 1
        var p = lastStart &+ (block &- Self.positiveModulo(lastStart, block)) % block  // a block start >= lastStart
        var k = 0  // p's place in its block
        var q = Self.positiveModulo(p, period)
        var sums = Sums<V>()
        var x = source + (p &- first) &* step
        while p >= first {
            if k == 0 {
                sums = Sums<V>()  // a window starting on a block start has an empty suffix
            } else {
                sums.add(SeparablePasses.load(x), modulation + q &* 6)
            }
            if p <= lastStart { sums.store(suffix + (p &- first) &* 7 &* lanes) }
            p &-= 1
            x -= step
            k = k == 0 ? block &- 1 : k &- 1
            q = q == 0 ? period &- 1 : q &- 1
        }

        // Forward: prefix sums from each block's start; window i ends at first + 2R + i.
        let firstEnd = first &+ period
        let end = firstEnd &+ count
        p = firstEnd &- Self.positiveModulo(firstEnd, block)  // the block start <= firstEnd, >= first
        k = 0
        q = Self.positiveModulo(p, period)
        var qx = Self.positiveModulo(p &- radius, period)  // the phase of the window's centre
        sums = Sums<V>()
        x = source + (p &- first) &* step
        var out = dest
        var stored = suffix
        while p < end {
            if k == 0 { sums = Sums<V>() }
            sums.add(SeparablePasses.load(x), modulation + q &* 6)
            if p >= firstEnd {
                let d = demodulation + qx &* 7
                let n = lanes
                var value = (SeparablePasses.load(stored) + sums.s0) * d[0]
                value += (SeparablePasses.load(stored + n) + sums.s1) * d[1]
                value += (SeparablePasses.load(stored + 2 &* n) + sums.s2) * d[2]
                value += (SeparablePasses.load(stored + 3 &* n) + sums.s3) * d[3]
                value += (SeparablePasses.load(stored + 4 &* n) + sums.s4) * d[4]
                value += (SeparablePasses.load(stored + 5 &* n) + sums.s5) * d[5]
                value += (SeparablePasses.load(stored + 6 &* n) + sums.s6) * d[6]
                SeparablePasses.store(value as V, out)
                out += destStep
                stored += 7 &* n
            }
            p &+= 1
            x += step
            k = k == block &- 1 ? 0 : k &+ 1
            q = q == period &- 1 ? 0 : q &+ 1
            qx = qx == period &- 1 ? 0 : qx &+ 1
        }
    }
}

extension SeparablePasses {
    @inline(__always)
    static func load<V: SIMD>(_ pointer: UnsafeMutablePointer<Float>) -> V where V.Scalar == Float {
        load(UnsafePointer(pointer))
    }
}
