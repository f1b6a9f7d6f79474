import TesseraCore

/// What the gradient nodes share: how a position along the gradient (`t`) becomes a color, and the
/// choices they offer (their size is ``SourceSize``'s, as `constant`'s).
enum Gradient {
    /// How positions and distances are measured.
    enum Units: String, ParameterChoice {
        /// Pixels from the top-left corner, x right and y down (Core Image's points, with the origin moved to
        /// the top-left as everywhere in Tessera).
        case pixels
        /// Fractions of the width (x) and of the height (y), from the top-left corner: [0.5, 0.5] is the
        /// middle. Distances are measured in these units too, so a radial gradient is an ellipse with the
        /// image's aspect, and a radius of 0.5 reaches the middle of each edge.
        case relative
    }

    /// How `t` runs from color0 to color1.
    enum Falloff: String, ParameterChoice {
        /// Straight from one color to the other (CILinearGradient, CIRadialGradient).
        case linear
        /// Smoothstep, `3t² - 2t³`: no visible edge where the gradient starts and stops
        /// (CISmoothLinearGradient, CISmoothRadialGradient).
        case smooth
    }

    /// What lies beyond the two ends: SVG's `spreadMethod`.
    enum Spread: String, ParameterChoice {
        /// The end colors continue (Core Image's gradients).
        case pad
        /// The gradient runs back and forth: color0, color1, color0, ...
        case reflect
        /// The gradient starts over: color0 to color1, color0 to color1, ...
        case `repeat`
    }

    /// Two colors and how to go from one to the other, prepared once for a kernel.
    struct Ramp: Sendable {
        /// The colors premultiplied by their alpha: mixing them never darkens toward a transparent end
        /// (as CSS gradients interpolate).
        let start: SIMD4<Float>
        let end: SIMD4<Float>
        let falloff: Falloff
        let spread: Spread

        init(_ color0: [Double], _ color1: [Double], falloff: Falloff, spread: Spread = .pad) {
            func premultiplied(_ color: [Double]) -> SIMD4<Float> {
                let c = SIMD4(color.map(Float.init))
                return c * SIMD4(c.w, c.w, c.w, 1)
            }
            start = premultiplied(color0)
            end = premultiplied(color1)
            self.falloff = falloff
            self.spread = spread
        }

        /// RGBA, unless both colors are opaque.
        var layout: PixelLayout { start.w < 1 || end.w < 1 ? .rgba : .rgb }

        /// The straight (not premultiplied) color at position `t` (0 at color0, 1 at color1).
        @inline(__always)
        func color(at t: Double) -> SIMD4<Float> {
            var u: Double
            switch spread {
            case .pad: u = Swift.min(Swift.max(t, 0), 1)
            case .repeat: u = t - t.rounded(.down)
            case .reflect:
                let v = t - 2 * (t / 2).rounded(.down)  // 0 ..< 2
                u = v > 1 ? 2 - v : v
            }
            if falloff == .smooth { u = u * u * (3 - 2 * u) }
            let w = Float(u)
            let mixed = start + (end - start) * w
            let alpha = mixed.w
            return alpha > 0 ? mixed / SIMD4(alpha, alpha, alpha, 1) : SIMD4()
        }
    }

    /// The scale from pixels to the units positions are given in, per axis.
    static func scale(_ units: Units, width: Int, height: Int) -> SIMD2<Double> {
        units == .pixels ? SIMD2(1, 1) : SIMD2(1 / Double(width), 1 / Double(height))
    }

    /// Fills `output` with `color(at: t(x, y))`, `x` and `y` being the pixel's centre in the given units.
    @inline(__always)
    static func render(
        _ output: inout PixelBuffer, ramp: Ramp, scale: SIMD2<Double>, t: (SIMD2<Double>) -> Double
    ) {
        let region = output.region
        let rowLength = output.rowLength
        output.samples.withUnsafeMutableBufferPointer { samples in
            guard let base = samples.baseAddress else { return }
            for row in 0..<region.height {
                let y = (Double(region.minY + row) + 0.5) * scale.y
                let line = base + row &* rowLength
                for column in 0..<region.width {
                    let x = (Double(region.minX + column) + 0.5) * scale.x
                    PointLoop.store(ramp.color(at: t(SIMD2(x, y))), line + column &* 4, channels: 4)
                }
            }
        }
    }
}
