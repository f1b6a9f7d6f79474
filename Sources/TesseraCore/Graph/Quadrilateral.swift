/// A quadrilateral found in an image, as Vision's rectangle observations (`VNRectangleObservation`, which
/// both its rectangle and its document segmentation requests give) carry it: a page, a card or a sign seen
/// in perspective, its four corners and the box around them. Coordinates are pixels of the analysed image,
/// origin top-left, y down.
public struct Quadrilateral: Sendable, Equatable {
    /// The box around ``corners``, with the detector's confidence.
    public var box: Box
    /// Top-left, top-right, bottom-right, bottom-left, as the image shows them (clockwise on screen).
    public var corners: [SIMD2<Double>]

    public init(corners: [SIMD2<Double>], confidence: Double) {
        self.corners = corners
        box = Box(around: corners.map(\.x), corners.map(\.y), confidence: confidence)
    }
}
