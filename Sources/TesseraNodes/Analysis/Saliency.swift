import TesseraCore

/// `saliency`: where the eye goes, or where the objects are, as Vision's attention- and
/// objectness-based saliency requests: a coarse heat map and the salient boxes.
///
///     heat: { op: saliency, input: photo, kind: attention }       # heat: the 64x64 map
///     crop: { op: crop, input: photo, rect: {from: heat.boxes} }  # the most salient box
///
/// **attention** is the spectral residual of Hou and Zhang, "Saliency Detection: A Spectral Residual
/// Approach" (CVPR 2007), computed as OpenCV contrib's `StaticSaliencySpectralResidual` does, which
/// it agrees with (Pearson correlation 0.99 or more on photos): gray (Rec. 601) shrunk to the grid by
/// sampling, not averaging (OpenCV's bilinear `resize`); the log amplitude of its DFT minus that
/// log amplitude averaged over 3x3 frequencies (borders reflected); the inverse DFT with the phase kept;
/// its magnitude blurred by a 5x5 Gaussian of sigma 8, then squared. It marks what stands out from
/// the image's overall texture: edges, small details, faces; not whole objects.
///
/// **objectness** is the minimum barrier distance to the image border, as in Zhang, Sclaroff, Lin,
/// Shen, Price and Měch, "Minimum Barrier Salient Object Detection at 80 FPS" (ICCV 2015), from the
/// paper (its FastMBD raster scans; not the MB+ extensions, and none of the authors' code, whose
/// licence forbids commercial use): the input shrunk to the grid (antialiased bilinear), blurred with
/// a Gaussian of sigma 1 cell, then for each of red, green and blue the smallest, over all paths from
/// a cell to the border, of the path's highest minus its lowest value (three raster passes), summed
/// over the channels. Regions the background does not surround cheaply, whole objects, light up.
///
/// The map is square whatever the input's shape (as Vision's and OpenCV's are); resize it `like:` the
/// input to lay it over the photo. Boxes come from the map stretched to 0...1, as
/// ``Saliency/boxes(in:threshold:limit:imageWidth:imageHeight:)`` describes.
///
/// - Cost: the input is read once, through a shrink to the grid (attention samples two rows of the
///   input per grid row; objectness filters every row, once, in bands of 256 rows, and blurs the grid
///   after), then work on the grid alone: attention two 2-D FFTs (`size` a power of two; other sizes a
///   direct DFT, `2 size³`), objectness three passes of 8 comparisons per cell and channel.
struct Saliency: Node {
    static let info = NodeInfo(
        op: "saliency",
        summary:
            "Finds where attention goes (spectral residual) or where objects are (minimum barrier): a heat map and boxes.",
        access: .global,
        outputs: [
            .init(
                "heatmap", .image,
                doc: "One channel, Float32, size x size cells over the whole input; 0...1 unless normalized is false."),
            .init(
                "boxes", .boxes,
                doc: "Salient rectangles in the input's pixels, most confident first: 8-connected cells at or above "
                    + "threshold, overlapping boxes merged; confidence (0...1) is a box's share of their summed values."
            ),
        ],
        example: """
            photo: { op: load, path: photo.png }
            heat: { op: saliency, input: photo, kind: objectness }
            big: { op: resize, input: heat, like: photo }
            crop: { op: crop, input: photo, rect: { from: heat.boxes }, margin: 16 }
            a: { op: save, input: big, path: heat.png }
            b: { op: save, input: crop, path: crop.png }
            """)

    enum Kind: String, ParameterChoice {
        /// Spectral residual (Hou and Zhang 2007): what draws the eye.
        case attention
        /// Minimum barrier distance to the border (Zhang et al. 2015): whole salient objects.
        case objectness
    }

    @Input(
        doc: "The image; color is read as Rec. 601 gray for attention and as red, green, blue for objectness, "
            + "the stored values taken as sRGB (the models behind both were made on sRGB photos): convert other "
            + "profiles with colorSpace first.")
    var input: Image

    @Parameter(doc: "attention (spectral residual: what draws the eye) or objectness (minimum barrier: whole objects).")
    var kind = Kind.attention

    @Parameter(
        doc:
            "Cells on each side of the square heat map (64 as OpenCV; Vision uses 64 or 68); a power of two is fastest.",
        range: 8...512, suggested: 32...128, unit: "cells")
    var size = 64

    @Parameter(
        doc: "Stretch the map to 0...1; false keeps the method's own scale "
            + "(attention: divided by its maximum, as OpenCV; objectness: the summed barrier distances).")
    var normalized = true

    @Parameter(
        doc: "Cells of the map stretched to 0...1 at or above this value make up the boxes.",
        range: 0...1, suggested: 0.2...0.8)
    var threshold = 0.4

    @Parameter(doc: "At most this many boxes, the most confident.", range: 1...1000, suggested: 1...10)
    var maximumBoxes = 5

    func run() throws -> NodeOutputs {
        let raw: [Double]
        switch kind {
        case .attention: raw = try spectralResidual()
        case .objectness: raw = try minimumBarrier()
        }
        var buffer = PixelBuffer(region: Rect(width: size, height: size), channels: 1)
        for i in 0..<raw.count { buffer.samples[i] = Float(raw[i]) }
        let map = Image(buffer: buffer, layout: .gray)
        let stretched = try Normalize.stretched(map)
        let boxes = Self.boxes(
            in: try stretched.pixels(), threshold: Float(threshold), limit: maximumBoxes, imageWidth: input.width,
            imageHeight: input.height)
        return NodeOutputs(["heatmap": .image(normalized ? stretched : map), "boxes": .boxes(boxes)])
    }

    /// The input shrunk to the `size` x `size` grid by `kernel`, rendered `rows` grid rows at a time (so a
    /// shrink of a large image reads it in bands), non-finite samples replaced by 0.
    func grid(_ shrunk: Image, rowsPerRequest rows: Int) throws -> PixelBuffer {
        var whole = PixelBuffer(region: shrunk.extent, channels: shrunk.channels)
        for band in shrunk.extent.tiles(width: shrunk.width, height: rows) {
            whole.copy(from: try shrunk.pixels(in: band))
        }
        for i in whole.samples.indices where !whole.samples[i].isFinite { whole.samples[i] = 0 }
        return whole
    }
}
