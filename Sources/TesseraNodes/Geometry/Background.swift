import TesseraCore

/// What geometry nodes that uncover new canvas (rotate, pad) share: the layout of an image laid over a
/// background color, and pixel access by absolute coordinates.
enum Background {
    /// The layout that holds `input`'s pixels and `color`: gray stays gray over a gray color, alpha
    /// appears when the color is not opaque.
    static func layout(of input: PixelLayout, over color: SIMD4<Float>) -> PixelLayout {
        let gray = input.isGray && color.x == color.y && color.y == color.z
        let alpha = input.hasAlpha || color.w < 1
        switch (gray, alpha) {
        case (true, false): return .gray
        case (true, true): return .grayAlpha
        case (false, false): return .rgb
        case (false, true): return .rgba
        }
    }

    /// A `[r, g, b, a]` parameter as a pixel.
    static func color(_ values: [Double]) -> SIMD4<Float> {
        SIMD4(values.map(Float.init))
    }
}
