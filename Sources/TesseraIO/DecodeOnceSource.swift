import Synchronization
import TesseraCore

/// A source for formats that decode front to back (PNG, JPEG, odd TIFFs): the first request decodes the
/// whole image, later ones copy from it. A failure is kept too, so every request reports the same error.
///
/// - Cost: the whole image in memory, Float32. Streaming row by row into row-ordered sinks belongs to the
///   scheduler, which can ask for rows in order; this source is the fallback that answers any region.
final class DecodeOnceSource: PixelSource, Sendable {
    private let decode: @Sendable () throws -> PixelBuffer
    private let state = Mutex<Result<PixelBuffer, any Error>?>(nil)

    init(decode: @escaping @Sendable () throws -> PixelBuffer) {
        self.decode = decode
    }

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
