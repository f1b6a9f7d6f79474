import CTesseraSIMD
import TesseraCore

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
    /// The loop is C's (`tsr_fir`), built for AVX2 and AVX-512 beside the baseline: every variant adds the
    /// same rounded products in the same order, so the bits do not depend on the processor.
    @inline(__always)
    static func fir(
        source: UnsafePointer<Float>, step: Int, rowStride: Int, dest: UnsafeMutablePointer<Float>,
        destStride: Int, rows: Int, width: Int, weights: UnsafePointer<Float>, radius: Int
    ) {
        tsr_fir(Samples.vectorLevel, source, step, rowStride, dest, destStride, rows, width, weights, radius)
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
/// (as van Herk and Gil-Werman's running max does). A `SIMD4` holds 4 independent lanes: the channels
/// of a pixel, or 4 neighbouring columns.
struct CosineSweep {
    typealias Vector = SIMD4<Float>

    /// R.
    let radius: Int
    /// ``CosineTables/modulation`` and ``CosineTables/demodulation``.
    let modulation: UnsafePointer<Vector>
    let demodulation: UnsafePointer<Vector>
    /// Room for `count` vectors: each output's share of the suffix sums of its window (already weighted
    /// by the output's demodulation factors, so the forward pass reads one vector, not seven).
    let suffix: UnsafeMutablePointer<Vector>

    /// The 7 component sums of one vector.
    struct Sums {
        var s0 = Vector(), s1 = Vector(), s2 = Vector(), s3 = Vector(), s4 = Vector(), s5 = Vector()
        var s6 = Vector()

        /// Adds sample `x` times its modulation factors `m[0..<6]` (component 0's factor is 1).
        @inline(__always)
        mutating func add(_ x: Vector, _ m: UnsafePointer<Vector>) {
            s0 += x
            s1 += x * m[0]
            s2 += x * m[1]
            s3 += x * m[2]
            s4 += x * m[3]
            s5 += x * m[4]
            s6 += x * m[5]
        }

        /// `start + Σ d[j] sⱼ`, always in this order.
        @inline(__always)
        func demodulated(_ d: UnsafePointer<Vector>, plus start: Vector) -> Vector {
            var value = start + s0 * d[0]
            value += s1 * d[1]
            value += s2 * d[2]
            value += s3 * d[3]
            value += s4 * d[4]
            value += s5 * d[5]
            value += s6 * d[6]
            return value
        }
    }

    @inline(__always)
    static func positiveModulo(_ value: Int, _ modulus: Int) -> Int {
        let r = value % modulus
        return r < 0 ? r + modulus : r
    }

    /// Filters the line whose sample at absolute coordinate `first + i` is the 4 floats at `source + i *
    /// step` (for `i` in `0..<count + 2R`) into `count` outputs: output `i` (coordinate `first + R + i`)
    /// goes to the 4 floats at `dest + i * destStep`.
    @inline(__always)
    func run(
        source: UnsafePointer<Float>, step: Int, first: Int, count: Int, dest: UnsafeMutablePointer<Float>,
        destStep: Int
    ) {
        let radius = self.radius
        let block = 2 &* radius &+ 1
        let period = 2 &* radius
        let modulation = self.modulation
        let demodulation = self.demodulation
        let suffix = self.suffix
        // Tables hold 4R + 1 phases, so a run of up to B coordinates never wraps: the factors of
        // coordinate p, in a run from `low`, are at phase(low) + (p - low).
        @inline(__always) func phase(_ p: Int) -> Int { Self.positiveModulo(p, period) }
        @inline(__always) func sample(_ p: Int) -> Vector {
            SeparablePasses.load(source + (p &- first) &* step)
        }

        // Backward: the suffix sums of the window starts first ... lastStart, each from its block's end,
        // demodulated for the window's centre.
        let lastStart = first &+ count &- 1
        let top = lastStart &+ (block &- Self.positiveModulo(lastStart, block)) % block  // a block start
        if top == lastStart { suffix[count &- 1] = Vector() }  // a window that is one block
        var high = top &- 1
        while high >= first {
            let blockStart = high &- block &+ 1
            let low = max(first, blockStart &+ 1)
            var sums = Sums()
            var p = high
            var m = modulation + (phase(low) &+ (p &- low)) &* 6
            while p >= low && p > lastStart {
                sums.add(sample(p), m)
                p &-= 1
                m -= 6
            }
            if p >= low {
                var d = demodulation + (phase(low &+ radius) &+ (p &- low)) &* 7
                var stored = suffix + (p &- first)
                while p >= low {
                    sums.add(sample(p), m)
                    stored.pointee = sums.demodulated(d, plus: Vector())
                    p &-= 1
                    m -= 6
                    d -= 7
                    stored -= 1
                }
            }
            if blockStart >= first && blockStart <= lastStart { suffix[blockStart &- first] = Vector() }
            high = blockStart &- 1
        }

        // Forward: prefix sums from each block's start; window i ends at firstEnd + i.
        let firstEnd = first &+ period
        let end = firstEnd &+ count
        var start = firstEnd &- Self.positiveModulo(firstEnd, block)  // a block start, >= first
        while start < end {
            let stop = min(start &+ block, end)
            var sums = Sums()
            var p = start
            var m = modulation + phase(start) &* 6
            while p < stop && p < firstEnd {
                sums.add(sample(p), m)
                p &+= 1
                m += 6
            }
            if p < stop {
                var d = demodulation + phase(p &- radius) &* 7
                var stored = UnsafePointer(suffix + (p &- firstEnd))
                var out = dest + (p &- firstEnd) &* destStep
                while p < stop {
                    sums.add(sample(p), m)
                    SeparablePasses.store(sums.demodulated(d, plus: stored.pointee), out)
                    p &+= 1
                    m += 6
                    d += 7
                    stored += 1
                    out += destStep
                }
            }
            start = stop
        }
    }
}

/// The cosine tables laid out for ``CosineSweep``: each factor repeated in 4 lanes, for 4R + 1 phases.
struct CosineTables: Sendable {
    /// 6 vectors per phase: `cos θ₁m, sin θ₁m, cos θ₂m, ...`.
    let modulation: [SIMD4<Float>]
    /// 7 vectors per phase: `c₀, c₁ cos θ₁x, c₁ sin θ₁x, ...`.
    let demodulation: [SIMD4<Float>]

    init(_ cosine: CosineGaussian) {
        let period = 2 * cosine.radius
        let phases = 0...(4 * cosine.radius)
        modulation = phases.flatMap { t in (0..<6).map { SIMD4(repeating: cosine.modulation[t % period * 6 + $0]) } }
        demodulation = phases.flatMap { t in
            (0..<7).map { SIMD4(repeating: cosine.demodulation[t % period * 7 + $0]) }
        }
    }
}
