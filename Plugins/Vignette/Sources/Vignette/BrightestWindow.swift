import TesseraPluginSDK

/// Where an image is brightest: a **global** node with value outputs, written as a built-in global node
/// is (saliency, detectContours), which a plugin can export from plugin ABI version 2 on. Its box feeds
/// `crop` and `drawBoxes`, its number `save`, like a built-in's.
struct BrightestWindow: Node {
    static let info = NodeInfo(
        op: "brightestWindow",
        summary: "Finds the square window of an image with the highest mean luma (a Swift plugin's global node).",
        access: .global,
        outputs: [
            .init(
                "box", .boxes, doc: "One box: the window, its confidence the window's mean luma (Rec. 709), in 0...1."),
            .init("mean", .number, doc: "The whole image's mean luma."),
            .init("mask", .image, doc: "Gray, 1 inside the window and 0 elsewhere."),
        ],
        example: """
            photo: { op: load, path: photo.png }
            bright: { op: brightestWindow, input: photo, size: 64 }
            spot: { op: crop, input: photo, rect: { from: bright.box } }
            out: { op: save, input: spot, path: spot.png }
            """)

    @Input(doc: "The image; color is read as Rec. 709 luma of the stored values, alpha ignored.") var input: Image
    @Parameter(doc: "The window's side, cut to the image's shorter side.", range: 1...4096, unit: "px")
    var size = 32

    func run() throws -> NodeOutputs {
        let pixels = try input.pixels()
        let (width, height) = (input.width, input.height)
        let side = min(size, width, height)
        // Luma summed over every rectangle from the origin (a summed-area table, one row and column of 0).
        var sums = [Double](repeating: 0, count: (width + 1) * (height + 1))
        var total = 0.0
        for y in 0..<height {
            var row = 0.0
            for x in 0..<width {
                let luma: Double
                if pixels.channels == 1 {
                    luma = Double(pixels.samples[y * width + x])
                } else {
                    let p = (y * width + x) * 4
                    luma =
                        0.2126 * Double(pixels.samples[p]) + 0.7152 * Double(pixels.samples[p + 1]) + 0.0722
                        * Double(pixels.samples[p + 2])
                }
                row += luma
                total += luma
                sums[(y + 1) * (width + 1) + x + 1] = sums[y * (width + 1) + x + 1] + row
            }
        }
        // The first window, in reading order, with the largest sum.
        var best = (sum: -Double.infinity, x: 0, y: 0)
        for y in 0...(height - side) {
            for x in 0...(width - side) {
                let sum =
                    sums[(y + side) * (width + 1) + x + side] - sums[y * (width + 1) + x + side]
                    - sums[(y + side) * (width + 1) + x] + sums[y * (width + 1) + x]
                if sum > best.sum { best = (sum, x, y) }
            }
        }
        let area = Double(side * side)
        // The mask is a kernel without inputs: the host renders it tile by tile where it is read, and the
        // node never holds an image of the input's size.
        let mask = Image(
            width: width, height: height, layout: .gray, depth: .uint8,
            kernel: Square(square: Rect(x: best.x, y: best.y, width: side, height: side)), inputs: [])
        return NodeOutputs([
            "box": .boxes([
                Box(
                    x: Double(best.x), y: Double(best.y), width: Double(side), height: Double(side),
                    confidence: min(max(best.sum / area, 0), 1))
            ]),
            "mean": .number(total / Double(width * height)),
            "mask": .image(mask),
        ])
    }
}

/// 1 inside `square`, 0 elsewhere.
struct Square: ImageKernel {
    let square: Rect

    func render(into output: inout PixelBuffer, from inputs: [PixelBuffer]) throws {
        let region = output.region
        let inside = region.intersection(square)
        for index in output.samples.indices { output.samples[index] = 0 }
        guard !inside.isEmpty else { return }
        for y in inside.minY..<inside.maxY {
            for x in inside.minX..<inside.maxX {
                output.samples[(y - region.minY) * region.width + x - region.minX] = 1
            }
        }
    }
}
