import TesseraCore

/// A decoder that produces an image's rows once, top to bottom (PNG, JPEG, and pipelines over them:
/// block averages, the `thumbnail` node's resize).
package protocol RowDecoder: AnyObject {
    var width: Int { get }
    var height: Int { get }
    /// Channels in memory: 1 or 4.
    var channels: Int { get }
    /// Decodes the next `count` rows into `target`, `width * channels` Float32 samples per row. After
    /// the last row it reads the rest of the file too, so a damaged ending is reported.
    func readRows(into target: UnsafeMutablePointer<Float>, count: Int) throws
    /// The format of the rows as the file stores them, when ``readPackedRows(into:rowBytes:count:)``
    /// can hand them over as they are; nil (the default) when it cannot.
    var packedFormat: SampleFormat? { get }
    /// Reads the next `count` rows in ``packedFormat``, `rowBytes` apart from `target`.
    func readPackedRows(into target: UnsafeMutableRawPointer, rowBytes: Int, count: Int) throws
}

extension RowDecoder {
    package var packedFormat: SampleFormat? { nil }

    package func readPackedRows(into target: UnsafeMutableRawPointer, rowBytes: Int, count: Int) throws {
        throw ImageError(message: "this decoder gives Float32 rows only")
    }
}

extension RowDecoder {
    /// Decodes every row into one buffer.
    func decodeAll() throws -> PixelBuffer {
        var buffer = PixelBuffer(region: Rect(width: width, height: height), channels: channels)
        try buffer.samples.withUnsafeMutableBufferPointer { samples in
            guard let base = samples.baseAddress else { return }
            try readRows(into: base, count: height)
        }
        return buffer
    }
}

/// A source over a front-to-back decoder that keeps only the rows of the last request.
///
/// Requests that move down the image (a writer's bands, a scheduler's tile rows) decode each row once
/// and hold one band in memory, whatever the image size. A request for rows above the band restarts
/// the decoder from the top of the file: correct for any order, fast for the downward one. A failure is
/// kept, so every later request reports the same error.
package final class RowStreamSource: PixelSource, Sendable {
    private final class State {
        var decoder: (any RowDecoder)?
        /// The next row the decoder will produce.
        var nextRow = 0
        /// Full-width rows of the last request.
        var band: PixelBuffer?
        var failure: (any Error)?
        var restarts = 0
    }

    private let open: @Sendable () throws -> any RowDecoder
    private let state = Locked(State())

    /// `givesFileSamples`: whether the decoder's rows are file samples as decoded (PNG and JPEG rows,
    /// a DCT-scaled JPEG's too), not computed from them (block averages, a resize), so that a plan
    /// may keep the image whole in its file's sample type.
    package init(givesFileSamples: Bool = true, open: @escaping @Sendable () throws -> any RowDecoder) {
        self.givesFileSamples = givesFileSamples
        self.open = open
    }

    package var prefersSequentialRows: Bool { true }
    package let givesFileSamples: Bool

    /// How many times a request went back up and the decoding began again.
    var restarts: Int { state.withLock { $0.restarts } }

    package func render(into target: inout PixelBuffer) throws {
        let region = target.region
        let band = try state.withLock { state -> PixelBuffer in
            if let failure = state.failure { throw failure }
            if let band = state.band, band.region.minY <= region.minY, band.region.maxY >= region.maxY {
                return band
            }
            do {
                return try decodeRows(region.minY..<region.maxY, state: state)
            } catch {
                state.failure = error
                state.decoder = nil
                state.band = nil
                throw error
            }
        }
        target.copy(from: band)
    }

    /// Hands the decoder's rows over as the file stores them when a writer (or a cache of packed
    /// cells) asks for the next whole-width rows in that format; anything else goes through Float32.
    package func encode(
        _ region: Rect, with encoder: SampleEncoder, scratch: inout PixelBuffer, into bytes: UnsafeMutableRawPointer,
        rowBytes: Int
    ) throws {
        let copied = try state.withLock { state -> Bool in
            if let failure = state.failure { throw failure }
            do {
                if state.decoder == nil, region.minY == 0 {
                    state.decoder = try open()
                    state.nextRow = 0
                }
                guard let decoder = state.decoder, let format = decoder.packedFormat, encoder.packed == format,
                    region.minX == 0, region.width == decoder.width, region.minY == state.nextRow
                else { return false }
                try decoder.readPackedRows(into: bytes, rowBytes: rowBytes, count: region.height)
            } catch {
                state.failure = error
                state.decoder = nil
                state.band = nil
                throw error
            }
            state.nextRow = region.maxY
            state.band = nil
            return true
        }
        if !copied { try encodeRendering(region, with: encoder, scratch: &scratch, into: bytes, rowBytes: rowBytes) }
    }

    private func decodeRows(_ rows: Range<Int>, state: State) throws -> PixelBuffer {
        if state.decoder == nil || rows.lowerBound < state.nextRow {
            if state.decoder != nil { state.restarts += 1 }
            state.decoder = nil
            state.decoder = try open()
            state.nextRow = 0
        }
        guard let decoder = state.decoder else { throw ImageError(message: "decoder unavailable") }
        // Reuse the previous band's storage for the rows skipped and for the new band.
        var band = state.band ?? PixelBuffer(region: .empty, channels: decoder.channels)
        state.band = nil
        let skip = rows.lowerBound - state.nextRow
        if skip > 0 {
            band.reshape(to: Rect(x: 0, y: state.nextRow, width: decoder.width, height: Swift.min(skip, 64)))
            while state.nextRow < rows.lowerBound {
                let count = Swift.min(64, rows.lowerBound - state.nextRow)
                try band.samples.withUnsafeMutableBufferPointer { samples in
                    guard let base = samples.baseAddress else { return }
                    try decoder.readRows(into: base, count: count)
                }
                state.nextRow += count
            }
        }
        band.reshape(to: Rect(x: 0, y: rows.lowerBound, width: decoder.width, height: rows.count))
        try band.samples.withUnsafeMutableBufferPointer { samples in
            guard let base = samples.baseAddress else { return }
            try decoder.readRows(into: base, count: rows.count)
        }
        state.nextRow = rows.upperBound
        state.band = band
        return band
    }
}
