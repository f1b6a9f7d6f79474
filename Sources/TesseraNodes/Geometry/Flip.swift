import TesseraCore

/// `flip`: mirrors an image left to right, top to bottom, or both (a 180-degree turn). Pixels are
/// copied, never resampled: the output is exact.
struct Flip: Node {
    static let info = NodeInfo(
        op: "flip",
        summary: "Mirrors an image left to right (horizontal), top to bottom (vertical) or both; pixels are copied.",
        access: .geometry,
        outputs: [.init("output", .image, doc: "The mirrored image, with the input's size, layout and depth.")],
        example: """
            photo: { op: load, path: photo.png }
            mirrored: { op: flip, input: photo, direction: horizontal }
            out: { op: save, input: mirrored, path: mirrored.png }
            """)

    /// Which axis the image is mirrored across.
    enum Direction: String, ParameterChoice {
        /// Left becomes right (numpy's `fliplr`).
        case horizontal
        /// Top becomes bottom (numpy's `flipud`).
        case vertical
        /// Both: the image turned by 180 degrees.
        case both
    }

    @Input(doc: "The image.")
    var input: Image

    @Parameter(doc: "horizontal swaps left and right, vertical top and bottom, both does both (a half turn).")
    var direction = Direction.horizontal

    func prepare(_ inputs: [String: ImageShape]) -> Preparation {
        guard let input = inputs["input"] else { return Preparation() }
        return Preparation(outputSizes: ["output": .init(width: input.width, height: input.height)])
    }

    func run() throws -> NodeOutputs {
        let kernel = Kernel(
            width: input.width, height: input.height,
            horizontal: direction != .vertical, vertical: direction != .horizontal)
        return NodeOutputs(
            .image(
                Image(mapping: input, with: kernel)))
    }

    struct Kernel: MoveKernel {
        var width: Int
        var height: Int
        var horizontal: Bool
        var vertical: Bool

        func source(x: Int, y: Int) -> (x: Int, y: Int) {
            (horizontal ? width - 1 - x : x, vertical ? height - 1 - y : y)
        }

        var rowStep: (dx: Int, dy: Int) { (horizontal ? -1 : 1, 0) }

        /// The output region mirrored: output column `x` reads input column `width - 1 - x`.
        func inputRegion(for output: Rect, input index: Int) -> Rect {
            Rect(
                x: horizontal ? width - output.maxX : output.minX, y: vertical ? height - output.maxY : output.minY,
                width: output.width, height: output.height)
        }

        func render(into output: inout PixelBuffer, from inputs: [PixelBuffer]) {
            let input = inputs[0]
            let region = output.region
            let channels = output.channels
            let outRow = output.rowLength
            let (width, height, horizontal, vertical) = (width, height, horizontal, vertical)
            input.samples.withUnsafeBufferPointer { source in
                output.samples.withUnsafeMutableBufferPointer { target in
                    guard let from = source.baseAddress, let to = target.baseAddress else { return }
                    for row in 0..<region.height {
                        let y = region.minY + row
                        let sourceY = vertical ? height - 1 - y : y
                        let o = to + row * outRow
                        if !horizontal {
                            (o).update(from: from + input.index(x: region.minX, y: sourceY), count: outRow)
                            continue
                        }
                        // The source row's pixel for the output's last column comes first.
                        let start = from + input.index(x: width - region.maxX, y: sourceY)
                        let last = region.width - 1
                        if channels == 4 {
                            for x in 0..<region.width {
                                (o + x &* 4).update(from: start + (last &- x) &* 4, count: 4)
                            }
                        } else {
                            for x in 0..<region.width { o[x] = start[last &- x] }
                        }
                    }
                }
            }
        }
    }
}
