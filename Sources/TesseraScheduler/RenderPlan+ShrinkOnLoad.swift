import TesseraCore

extension RenderPlan {
    /// A source decoded smaller than its size because every node reading its pixels only shrinks it
    /// (shrink-on-load): a JPEG decoded at 1/2, 1/4 or 1/8 by libjpeg's DCT scaling, several times
    /// faster, with the rest of the shrink left to the readers (``RenderPlan/decodeShrink(readersShrink:available:)``).
    package struct ShrinkOnLoad: Sendable, Equatable {
        /// The decode is 1/`shrink` of the image on each side, rounded up.
        package var shrink: Int
        /// How many times smaller the readers make the image: the least over the readers, each on the
        /// side it shrinks least.
        package var readersShrink: Double

        package init(shrink: Int, readersShrink: Double) {
            self.shrink = shrink
            self.readersShrink = readersShrink
        }

        /// "decoded at 1/2 scale, 3200x2135 (every reader shrinks it by 20 or more, the rest of it by 10)".
        func summary(decodedSize: (width: Int, height: Int)?) -> String {
            "decoded at 1/\(shrink) scale" + (decodedSize.map { ", \($0.width)x\($0.height)" } ?? "")
                + " (every reader shrinks it by \(RenderPlan.decimal(readersShrink)) or more, the rest of it by "
                + "\(RenderPlan.decimal(readersShrink / Double(shrink))))"
        }
    }

    /// The least part of a shrink that each smaller decode leaves to the readers' filters, by the
    /// decode's shrink; a shrink not listed is never chosen by the plan (`load`'s `shrink` still gives it).
    ///
    /// A DCT-scaled decode is a block shrink: sharper than a filtered one, and clipped to 0...255 at the
    /// small size rather than pixel by pixel. The readers' antialiasing filter hides the difference the
    /// more of the shrink it does. libvips' `thumbnail` leaves it 2 (speed first); here the result must
    /// stay within 2/255 of a full decode resized. Measured with `resize` (lanczos3; bicubic 0.1 to 0.2
    /// less) of `load`'s `shrink` against the same resize of a full decode, largest difference in levels
    /// of 255, by the decode and the shrink left to the resize (Scripts/shrink-on-load-accuracy.sh):
    ///
    /// | image                                       | 1/2 left 7, 10, 12, 16 | 1/4 left 6, 8 | 1/8 left 6 |
    /// |---------------------------------------------|------------------------|---------------|------------|
    /// | 6400x4264 photo (issue 15's, soft)          | 0.5, 0.4, 0.3, 0.2     | 0.8, 0.5      | 0.9        |
    /// | 3072x2048 mosaic of sharp photos, 4:2:0     | 3.4, 2.2, 1.7, 1.1     | 1.8, 1.3      | 1.2        |
    /// | 1024x768 mosaic of the example photos       | 4.5, 3.4, 2.6, 1.8     | 2.5, 1.8      | 1.0        |
    /// | that 3072 mosaic x2 with noise (camera-like)| 1.3, 0.9, 0.8, 0.6     | 1.3, 0.8      | 1.1        |
    ///
    /// So 1/8 leaves 6 (48x or more), 1/4 leaves 8 (32x), and 1/2 is not chosen: it would have to leave
    /// 16 or more, where 1/4 serves. (The 4x4 reduced IDCT of 1/2 is the furthest of the three from a
    /// 2x2 block mean: on the 3072 mosaic 30.8 levels a pixel, 3.7 after a further 6x6 block mean; 1/8's
    /// DC is the block mean but for clipping, 1.2 after the same.) Synthetic patterns of saturated
    /// 1-pixel detail are further off whatever is left: at 1/2 leaving 8, a zone plate 5.7, small sharp
    /// rectangles on white 13.5, colored 1-pixel lines 15 (libjpeg clips each decoded pixel, and the full
    /// decode clips the ringing around such detail, which a smaller decode never makes). `load`'s
    /// `shrink: 1` decodes whole.
    package static let shrinkLeftToReaders: [Int: Double] = [4: 8, 8: 6]

    /// The shrink to decode an image at when every reader shrinks it by `readersShrink`: the largest of
    /// `available` (2, 4, 8 for a JPEG) that leaves the readers at least its
    /// ``shrinkLeftToReaders``; 1 when none does. A 6400x4270 photo to 320 px (20x): 1; to 200 (32x): 4;
    /// to 100 (64x): 8.
    package static func decodeShrink(readersShrink: Double, available: [Int]) -> Int {
        available.filter { shrink in
            shrinkLeftToReaders[shrink].map { readersShrink >= $0 * Double(shrink) } ?? false
        }.max() ?? 1
    }

    /// The smaller decode of a source with `facts` read by `readers` (each reader once per pass it reads
    /// in), or nil: every reader must only shrink it (a reader that needs its pixels, as a crop, a blur,
    /// a save, an analysis or a resize upward, rules it out), and by enough.
    static func shrinkOnLoad(_ facts: SourceFacts, readers: [Node]) -> ShrinkOnLoad? {
        guard !facts.shrinks.isEmpty, !readers.isEmpty else { return nil }
        var least = Double.infinity
        for reader in readers {
            guard let shrink = reader.inputShrink, reader.pixelInputs.count == 1 else { return nil }
            least = Swift.min(least, shrink)
        }
        let shrink = decodeShrink(readersShrink: least, available: facts.shrinks)
        return shrink > 1 ? ShrinkOnLoad(shrink: shrink, readersShrink: least) : nil
    }
}

extension RenderPlan.SourceFacts {
    /// The facts of the source decoded at 1/`shrink` (each side rounded up).
    func shrunk(by shrink: Int) -> Self {
        guard shrink > 1 else { return self }
        var facts = self
        facts.width = (width + shrink - 1) / shrink
        facts.height = (height + shrink - 1) / shrink
        return facts
    }
}
