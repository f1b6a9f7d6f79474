/// The pixels of a file that can also be decoded smaller, and faster: a JPEG, which libjpeg decodes at
/// 1/2, 1/4 or 1/8 of its size by DCT scaling (shrink-on-load).
///
/// Read as any source, it gives the full decode. When every node that reads the image only shrinks it
/// (a `resize` to a thumbnail), the engine's plan picks a shrink, ``decodingSmaller(by:)`` makes that
/// decode, and those nodes read it (``Image/smallerDecode``) and map it onto their output as they would
/// the full image: the graph sees the full size, and only the time changes.
package struct ShrinkableSource: PixelSource {
    /// The full decode: what reading this source gives.
    package let full: Image
    /// The shrinks the file can be decoded at, besides 1.
    package let shrinks: [Int]
    /// The decode the plan chose, when it chose one.
    package let chosen: SmallerDecode?
    private let decode: @Sendable (Int) throws -> SmallerDecode

    /// A source over `full` that `decode` can also make at any of `shrinks`.
    package init(full: Image, shrinks: [Int], decode: @escaping @Sendable (_ shrink: Int) throws -> SmallerDecode) {
        self.full = full
        self.shrinks = shrinks
        self.decode = decode
        chosen = nil
    }

    private init(_ source: ShrinkableSource, chosen: SmallerDecode) {
        full = source.full
        shrinks = source.shrinks
        decode = source.decode
        self.chosen = chosen
    }

    /// This source with its smaller decode at `shrink` made (its header read; no pixel is decoded yet).
    package func decodingSmaller(by shrink: Int) throws -> ShrinkableSource {
        ShrinkableSource(self, chosen: try decode(shrink))
    }

    /// This source with its chosen decode's pixels served by `image` instead (the scheduler's wrapper
    /// around them); unchanged when none was chosen.
    package func servingSmallerDecode(from image: Image) -> ShrinkableSource {
        guard var chosen else { return self }
        chosen.image = image
        return ShrinkableSource(self, chosen: chosen)
    }

    package func render(into buffer: inout PixelBuffer) throws { try full.source.render(into: &buffer) }
    package var preferredTileSize: (width: Int, height: Int)? { full.source.preferredTileSize }
    package var keptChunkCount: Int { full.source.keptChunkCount }
    package var prefersSequentialRows: Bool { full.source.prefersSequentialRows }
    package var givesFileSamples: Bool { full.source.givesFileSamples }

    package func encode(
        _ region: Rect, with encoder: SampleEncoder, scratch: inout PixelBuffer, into bytes: UnsafeMutableRawPointer,
        rowBytes: Int
    ) throws {
        try full.source.encode(region, with: encoder, scratch: &scratch, into: bytes, rowBytes: rowBytes)
    }
}

/// An image decoded smaller than the image it stands for (``ShrinkableSource``).
package struct SmallerDecode: Sendable {
    /// The decoded pixels: `ceil(side / shrink)` on each side.
    package var image: Image
    package var shrink: Int
    /// The part of ``image`` the file's pixels cover, in its pixels: all of it but for partial blocks at
    /// its far edges (or near ones, once an orientation turns it), which hold fewer of the file's pixels.
    /// A reader maps this part, not the whole decoded image, onto the full image's geometry.
    package var part: (x: Double, y: Double, width: Double, height: Double)

    package init(image: Image, shrink: Int, part: (x: Double, y: Double, width: Double, height: Double)) {
        self.image = image
        self.shrink = shrink
        self.part = part
    }
}

extension Image {
    /// The smaller decode the engine chose to read this image from (shrink-on-load), if it chose one.
    package var smallerDecode: SmallerDecode? { (source as? ShrinkableSource)?.chosen }
}
