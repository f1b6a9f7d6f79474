/// A barcode or 2D code found in an image, as Vision's barcode observations (`VNBarcodeObservation`) carry
/// it: its symbology, its payload, its four corners and the box around them. Coordinates are pixels of the
/// analysed image, origin top-left, y down.
public struct Barcode: Sendable, Equatable {
    /// The box around ``corners``, with the reader's confidence (1 for a code whose error correction or
    /// check digit held: a decoder either reads a code or does not).
    public var box: Box
    /// The code's corners as the code reads: top-left, top-right, bottom-right, bottom-left (a QR code turned
    /// upside down has its top-left corner at the image's bottom right). A linear code's are the ends of the
    /// scan lines that read it, so its quadrilateral may be thin.
    public var corners: [SIMD2<Double>]
    /// Vision's symbology name without its prefix, in lowerCamelCase: `qr`, `microQR`, `aztec`, `dataMatrix`,
    /// `pdf417`, `maxiCode`, `code39`, `code93`, `code128`, `codabar`, `ean8`, `ean13`, `upca`, `upce`,
    /// `itf`, `gs1DataBar`, `gs1DataBarExpanded`.
    public var symbology: String
    /// The payload as text (UTF-8, as the code's character set or ECI says).
    public var payload: String

    public init(corners: [SIMD2<Double>], symbology: String, payload: String, confidence: Double = 1) {
        self.corners = corners
        self.symbology = symbology
        self.payload = payload
        box = Box(around: corners.map(\.x), corners.map(\.y), confidence: confidence)
    }
}
