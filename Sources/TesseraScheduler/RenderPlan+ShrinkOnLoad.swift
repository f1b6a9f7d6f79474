import TesseraCore

extension RenderPlan {
    /// A source decoded smaller than its size because every node reading its pixels only shrinks it
    /// (shrink-on-load): a JPEG decoded at 1/2, 1/4 or 1/8 by libjpeg's DCT scaling, several times
    /// faster, with the rest of the shrink left to the readers (``RenderPlan/decodeShrink(readersShrink:available:)``).
    public struct ShrinkOnLoad: Sendable, Equatable {
        /// The decode is 1/`shrink` of the image on each side, rounded up.
        public var shrink: Int
        /// How many times smaller the readers make the image: the least over the readers, each on the
        /// side it shrinks least.
        public var readersShrink: Double

        public init(shrink: Int, readersShrink: Double) {
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

    /// The least part of a shrink that a smaller decode leaves to the readers' filters.
    ///
    /// A DCT-scaled decode is a block shrink: sharper than a filtered one, and clipped to 0...255 at the
    /// small size rather than pixel by pixel. The readers' antialiasing filter hides the difference the
    /// more of the shrink it does. libvips' `thumbnail` leaves it 2 (speed first); here the result must
    /// stay within about 2/255 of a full decode resized, so it leaves 6. Measured with `thumbnail`'s
    /// resize (lanczos3; bicubic and bilinear within 0.3 of it) against the same resize of a full decode,
    /// largest and mean difference in levels of 255, for the shrink left to the resize:
    ///
    /// | image                                   | left 2      | left 4     | left 6      |
    /// |-----------------------------------------|-------------|------------|-------------|
    /// | a 6400x4270 photo (issue 15's, soft)    | 6.0 / 0.31  | 1.7 / 0.15 | 1.0 / 0.10  |
    /// | 6400x4270 mosaic of sharp photos, 4:2:0 | 12.5 / 0.65 | 4.9 / 0.26 | 3.9 / 0.13  |
    /// | the same mosaic, 4:4:4                  | 12.6 / 0.66 | 3.1 / 0.26 | 1.4 / 0.13  |
    /// | 8 phone photos, 384-512 px              | 11.5 / 1.1  | 3.9 / 0.33 | 2.4 / 0.19  |
    /// | RGB noise, 3001x2003, 4:2:0             | 20.2 / 3.1  | 4.3 / 0.71 | 1.7 / 0.31  |
    ///
    /// (the worst of decoding at 1/2, 1/4 and 1/8; the mosaic's 3.9 is a saturated red rim with a
    /// highlight at 1/2, 2.1 at 1/4, 1.3 at 1/8). Synthetic patterns of saturated 1-pixel detail are
    /// further off, and leaving more does not bring them in: at 1/2 leaving 8, a zone plate 5.7, small
    /// sharp rectangles on white 13.5, colored 1-pixel lines 15 (mean 8: libjpeg clips each decoded
    /// pixel, and the full decode clips the ringing around such detail, which a smaller decode never
    /// makes). `load`'s `shrink: 1` decodes whole.
    public static let shrinkLeftToReaders = 6.0

    /// The shrink to decode an image at when every reader shrinks it by `readersShrink`: the largest of
    /// `available` (2, 4, 8 for a JPEG) that leaves the readers a factor of at least
    /// ``shrinkLeftToReaders``; 1 when none does. A 6400x4270 photo to 640 px (10x): 1; to 320 (20x): 2;
    /// to 100 (64x): 8.
    public static func decodeShrink(readersShrink: Double, available: [Int]) -> Int {
        available.filter { $0 > 1 && readersShrink >= shrinkLeftToReaders * Double($0) }.max() ?? 1
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
