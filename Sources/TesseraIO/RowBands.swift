import TesseraCore

/// Feeds a row-oriented encoder: renders the image in bands of rows, top to bottom, and hands each band
/// over as 8- or 16-bit interleaved samples.
enum RowBands {
    static let height = 64

    /// Drives a shim writer: `rows(bytes, rowBytes, count, error)` takes each band and `finish(error)`
    /// completes the file; both return 0 or -1 with a message, as the C shims do. With a `background`,
    /// alpha is flattened over it (``Samples/encoder(channels:fileChannels:depth:background:)``).
    static func write(
        _ image: Image, format: String, fileChannels: Int, sixteenBit: Bool, background: SIMD3<Float>? = nil,
        rows: (UnsafePointer<UInt8>, Int, UInt32, UnsafeMutablePointer<CChar>) -> Int32,
        finish: (UnsafeMutablePointer<CChar>) -> Int32
    ) throws {
        var error = ShimError()
        try encode(image, fileChannels: fileChannels, sixteenBit: sixteenBit, background: background) {
            bytes, rowBytes, count in
            if rows(bytes, rowBytes, UInt32(count), &error.buffer) != 0 {
                throw ImageError(message: "cannot write \(format): \(error.message)")
            }
        }
        if finish(&error.buffer) != 0 {
            throw ImageError(message: "cannot write \(format): \(error.message)")
        }
    }

    static func encode(
        _ image: Image, fileChannels: Int, sixteenBit: Bool, background: SIMD3<Float>? = nil,
        _ consume: (UnsafePointer<UInt8>, _ rowBytes: Int, _ rows: Int) throws -> Void
    ) throws {
        let rowBytes = image.width * fileChannels * (sixteenBit ? 2 : 1)
        var raw = [UInt8](repeating: 0, count: rowBytes * Swift.min(height, image.height))
        var pixels = PixelBuffer(region: .empty, channels: image.channels)
        let encoder = Samples.encoder(
            channels: image.channels, fileChannels: fileChannels, depth: sixteenBit ? .uint16 : .uint8,
            background: background)
        for band in image.extent.tiles(width: image.width, height: height) {
            try raw.withUnsafeMutableBytes { bytes in
                guard let base = bytes.baseAddress else { return }
                try image.encode(band, with: encoder, scratch: &pixels, into: base, rowBytes: rowBytes)
            }
            try raw.withUnsafeBufferPointer { bytes in
                guard let base = bytes.baseAddress else { return }
                try consume(base, rowBytes, band.height)
            }
        }
    }
}
