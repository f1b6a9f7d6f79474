import TesseraCore

/// A source for images that can only be produced whole: a JPEG turned by its EXIF orientation, and the
/// TIFF kinds read through libtiff's RGBA interface. The first request decodes everything, later ones
/// copy from it. A failure is kept too, so every request reports the same error.
///
/// - Cost: the whole image in memory, Float32. Upright PNG and JPEG stream instead (``RowStreamSource``).
final class DecodeOnceSource: PixelSource, Sendable {
    private let decode: @Sendable () throws -> PixelBuffer
    private let state = Locked<Result<PixelBuffer, any Error>?>(nil)

    init(decode: @escaping @Sendable () throws -> PixelBuffer) {
        self.decode = decode
    }

    /// Both kinds are scaled file samples, turned or as libtiff's RGBA interface gives them.
    var givesFileSamples: Bool { true }

    func render(into target: inout PixelBuffer) throws {
        let whole = try state.withLock { state in
            if let state { return try state.get() }
            let result = Result { try decode() }
            state = result
            return try result.get()
        }
        target.copy(from: whole)
    }
}
