/// A line of text found in an image, as Vision's recognized text observations carry it: the line's
/// quadrilateral (text on a slant or upside down has a turned one), the box around it, and the string read
/// from it with a confidence. Coordinates are pixels of the analysed image, origin top-left, y down.
public struct TextLine: Sendable, Equatable {
    /// The box around ``quad``; its confidence is the line's: the recognizer's when the line was read,
    /// else the detector's.
    public var box: Box
    /// The line's corners as the text reads: top-left, top-right, bottom-right, bottom-left (a line upside
    /// down in the image has its top-left corner at the image's bottom right).
    public var quad: [SIMD2<Double>]
    /// The text read from the line; empty when only detection ran.
    public var string: String

    public init(quad: [SIMD2<Double>], string: String, confidence: Double) {
        self.quad = quad
        self.string = string
        box = Box(around: quad.map(\.x), quad.map(\.y), confidence: confidence)
    }
}
