import TesseraCore
import TesseraScheduler

// The cache windows of `tessera run --plan`: what the run will keep of each image while its readers go
// down it (RenderPlan.Window), found before any pixel as the run finds it, from the readers' kernels.

extension Graph {
    /// Sets `plan`'s windows. The nodes that only compose kernels (point, area and geometry nodes whose
    /// parameters are all set in the file) are configured with stand-ins of their inputs (a size, no
    /// pixels) and run, which builds their kernels; each kernel, and each stage of a kernel chain, is
    /// asked which inputs its tiles read with overlapping margins and how many rows
    /// (``GraphRunner/cachedReads(of:extent:tileSize:)``, as the run asks). The image behind a node
    /// configured only at run time (a crop by an analysis' box) has no window in the plan; nor does a
    /// source decoded smaller, whose readers map it at run time.
    static func setWindows(
        of plan: inout RenderPlan, nodes: [GraphNode], opened: [String: [String: NodeValue]], tileSize: Int,
        floatTiles: Bool = false
    ) {
        var standIns: [String: Image] = [:]
        var reads: [String: [Int]] = [:]
        // The stand-in for image `name` (as the plan names images: `node.port`), which kernels record.
        func standIn(_ name: String, like image: Image) -> Image {
            let source = StandIn(
                name: name, sequential: image.source.prefersSequentialRows,
                givesFileSamples: image.source.givesFileSamples,
                keptRows: (image.source as? any KeepsDecodedRows)?.keptRows ?? 0)
            let made = image.withSource(source)
            standIns[name] = made
            return made
        }
        // Records what the kernel making `image` (and the stages within it) reads of the stand-ins.
        func record(_ image: Image) {
            guard let kernelSource = image.source as? KernelSource else { return }
            for (index, rows) in cachedReads(of: kernelSource, extent: image.extent, tileSize: tileSize) {
                guard let input = kernelSource.inputs[index].image.source as? StandIn else { continue }
                reads[input.name, default: []].append(rows)
            }
            for input in kernelSource.inputs { record(input.image) }
        }
        for node in nodes {
            if let outputs = opened[node.name] {
                for (port, value) in outputs {
                    guard case .image(let image) = value else { continue }
                    _ = standIn("\(node.name).\(port)", like: image)
                }
                continue
            }
            guard [.point, .area, .geometry].contains(node.declaration.access),
                let configured = node.configuredBeforeRun({ standIns["\($0.node).\($0.port)"] }),
                let outputs = try? configured.run().values
            else { continue }
            for (port, value) in outputs {
                guard case .image(let image) = value else { continue }
                record(image)
                _ = standIn(
                    "\(node.name).\(port.isEmpty ? node.declaration.outputs.first?.name ?? "" : port)", like: image)
            }
        }
        for index in plan.images.indices {
            let image = plan.images[index]
            let name = "\(image.node).\(image.port)"
            guard let made = standIns[name] else { continue }
            // The format its pixels move in: the file's samples, or Float32 (nil) where computed.
            if !floatTiles { plan.images[index].format = made.nativeFormat }
            guard image.shrinkOnLoad == nil else { continue }
            switch image.decision {
            case .unread, .materialize: continue
            case .stream, .shared: break
            }
            // In the order the run asks: a decoder when it is scheduled, a shared image then, its
            // readers as they are configured.
            var heights = made.source.prefersSequentialRows ? [tileSize] : []
            if image.decision == .shared { heights.append(tileSize) }
            // Margins within the rows the source keeps decoded are read again from it (as the run does).
            let keptRows = (made.source as? any KeepsDecodedRows)?.keptRows ?? 0
            let margins = reads[name] ?? []
            heights += margins.filter {
                !RenderPlan.Window.sourceKeeps(readHeight: $0, tileSize: tileSize, keptRows: keptRows)
            }
            if heights.isEmpty, !margins.isEmpty { plan.images[index].keptRows = keptRows }
            var window: RenderPlan.Window?
            for height in heights {
                let grown = RenderPlan.Window(
                    readHeight: height, tileSize: tileSize, width: made.width, height: made.height,
                    sequential: made.source.prefersSequentialRows,
                    bytesPerPixel: (floatTiles ? nil : made.nativeFormat)?.bytesPerPixel
                        ?? made.channels * MemoryLayout<Float>.size,
                    after: window)
                if let current = window, current.cells >= grown.cells { continue }
                window = grown
            }
            plan.images[index].window = window
        }
    }
}

/// An image in the plan's build of the kernels: its name, its size, no pixels.
private final class StandIn: PixelSource, KeepsDecodedRows {
    let name: String
    let sequential: Bool
    let givesFileSamples: Bool
    let keptRows: Int

    init(name: String, sequential: Bool, givesFileSamples: Bool, keptRows: Int) {
        self.name = name
        self.sequential = sequential
        self.givesFileSamples = givesFileSamples
        self.keptRows = keptRows
    }

    var prefersSequentialRows: Bool { sequential }
    func keepRows() {}

    func render(into buffer: inout PixelBuffer) throws {
        throw ImageError(message: "the plan's stand-in for '\(name)' was read (it has a size, not pixels)")
    }
}
