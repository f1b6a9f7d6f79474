import TesseraCore
import TesseraIO

extension Resize {
    /// `input` resized to `size` by the `resize` node's kernels, as an image made row by row, top to
    /// bottom, from the input read top to bottom: what the `thumbnail` node returns.
    ///
    /// The `resize` node returns its two passes as kernels over its input, which the scheduler feeds
    /// (and caches) as it feeds any node's output. A node that decodes its own input has no node output
    /// beneath it to schedule, and a front-to-back decoder read by tiles out of order starts again from
    /// the top (RowStreamSource). So here the decoder is read once, in order, by one reader, and the
    /// image it makes is itself a front-to-back source, which the scheduler asks for in order.
    ///
    /// - Cost: the two passes of the kernels, as the node's. Memory: the input rows one batch of
    ///   output rows reads, filtered to the output's width (16 output rows: 16 * scale plus the
    ///   filter's reach), and 64 input rows, whatever the image's size.
    ///
    /// `part`, when given, is the part of the input mapped onto the output (`ImageInfo.content`: a
    /// shrunk image's partial blocks); by default the whole input.
    static func streamed(
        _ input: Image, to size: (width: Int, height: Int), interpolation: Interpolation,
        part: (x: Double, y: Double, width: Double, height: Double)? = nil
    ) -> Image {
        let kernel = Kernel(
            input: (input.width, input.height), output: size, layout: input.layout, interpolation: interpolation,
            part: part)
        return Image(
            width: size.width, height: size.height, layout: input.layout, depth: input.depth,
            source: RowStreamSource(givesFileSamples: false) { Rows(input: input, kernel: kernel) })
    }

    /// The rows of a resize, in order: input rows filtered across into a window as wide as the output,
    /// then each batch of output rows filtered down from the window.
    final class Rows: RowDecoder {
        let width: Int
        let height: Int
        let channels: Int
        private let input: Image
        private let rowsPass: Kernel
        private let columnsPass: Kernel
        /// Input rows filtered across: the output's width, input rows `window.region.minY..<maxY`.
        private var window: PixelBuffer
        /// The next window's storage, swapped with the window at each slide (nothing allocated per batch).
        private var nextWindow: PixelBuffer
        /// Input rows being filtered, whole width.
        private var inputRows: PixelBuffer
        /// Input rows filtered across, before they join the window.
        private var filtered: PixelBuffer
        private var output: PixelBuffer
        private var nextRow = 0

        /// Output rows made at a time.
        static let batch = 16
        /// Input rows read and filtered across at a time.
        static let inputRows = 64

        init(input: Image, kernel: Kernel) {
            self.input = input
            let stages = kernel.stages
            rowsPass = stages.rows
            columnsPass = stages.columns
            width = kernel.outputExtent.width
            height = kernel.outputExtent.height
            channels = input.channels
            window = PixelBuffer(region: .empty, channels: input.channels)
            nextWindow = PixelBuffer(region: .empty, channels: input.channels)
            inputRows = PixelBuffer(region: .empty, channels: input.channels)
            filtered = PixelBuffer(region: .empty, channels: input.channels)
            output = PixelBuffer(region: .empty, channels: input.channels)
        }

        func readRows(into target: UnsafeMutablePointer<Float>, count: Int) throws {
            var done = 0
            while done < count {
                let rows = Swift.min(count - done, Self.batch)
                output.reshape(to: Rect(x: 0, y: nextRow, width: width, height: rows))
                let needed = columnsPass.inputRegion(for: output.region, input: 0)
                try slide(to: needed.minY..<needed.maxY)
                columnsPass.render(into: &output, from: [window])
                output.samples.withUnsafeBufferPointer { samples in
                    guard let base = samples.baseAddress else { return }
                    (target + done * width * channels).update(from: base, count: rows * width * channels)
                }
                nextRow += rows
                done += rows
            }
        }

        /// Makes the window hold exactly the input rows `rows` (filtered across): the rows it holds are
        /// kept, the others read and filtered. Output rows read input rows further down as they go down,
        /// so the input is read in order and never twice.
        private func slide(to rows: Range<Int>) throws {
            let held = window.region.minY..<window.region.maxY
            let firstNew =
                held.contains(rows.lowerBound) ? Swift.max(held.upperBound, rows.lowerBound) : rows.lowerBound
            nextWindow.reshape(to: Rect(x: 0, y: rows.lowerBound, width: width, height: rows.count))
            if firstNew > rows.lowerBound { nextWindow.copy(from: window) }
            // A few input rows at a time: a big shrink reads hundreds of full-width rows per batch.
            for top in stride(from: firstNew, to: rows.upperBound, by: Self.inputRows) {
                let count = Swift.min(Self.inputRows, rows.upperBound - top)
                inputRows.reshape(to: Rect(x: 0, y: top, width: input.width, height: count))
                try input.render(into: &inputRows)
                filtered.reshape(to: Rect(x: 0, y: top, width: width, height: count))
                rowsPass.render(into: &filtered, from: [inputRows])
                nextWindow.copy(from: filtered)
            }
            swap(&window, &nextWindow)
        }
    }
}
