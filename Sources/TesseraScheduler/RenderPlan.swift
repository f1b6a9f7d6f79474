import TesseraCore

/// What a run will do, decided from the graph before any pixel is computed.
///
/// A run is a sequence of passes: each sink, each global node (saliency, normalize) and each output a
/// program keeps reads its input images whole, one after another. A pass pulls tiles through the
/// chain of images upstream of it. This plan records, for every image, which nodes read it in which
/// pass; an image a source makes (a decoded file) that is read in several passes is kept whole for the
/// run (in its file's sample type where that is exact), in memory or, past ``RunOptions/diskThreshold``,
/// in a temporary file that is unlinked as soon as it is made, so no exit leaves it behind (libvips'
/// random-access loads do the same). Within each pass, how every image is served (streamed, a window
/// of rows, kept whole for the pass) is that pass's own plan (``PassPlan``), made from the requests its
/// readers make, when the pass begins; ``passPlans`` holds those known before the run.
///
/// A source whose every reader only shrinks it, by enough, is decoded smaller (shrink-on-load:
/// ``ImagePlan/shrinkOnLoad``), and served as above at that size.
///
/// The planner is pure: it reads the graph's declarations and what the sources' headers said, and
/// computes no pixels and starts no threads.
package struct RenderPlan: Sendable {
    /// A node that reads images whole, and what it renders.
    package struct Pass: Sendable, Equatable {
        package enum Kind: String, Sendable {
            case sink, global
            /// An output a program keeps (``Graph/run(options:supplying:keeping:)``).
            case kept
        }
        package var node: String
        package var op: String
        package var kind: Kind
        /// The images rendered in this pass (as ``ImagePlan/image`` names them), upstream last.
        package var images: [String]
        /// The pixels the pass is estimated to render: what progress counts it as.
        package var estimatedPixels: Int
    }

    /// How an image is served across the run.
    package enum Decision: Sendable, Equatable {
        /// Nothing reads its pixels.
        case unread
        /// Each pass that reads it decides (``PassPlan``); one that is not a source's is computed again
        /// in each pass that reads it.
        case perPass
        /// Kept whole for the run: `bytes` (nil if the size is known only at run time), in memory or in a
        /// file.
        case materialize(bytes: Int?, inFile: Bool)
    }

    /// One reader of an image.
    package struct Reader: Sendable, Equatable {
        package var node: String
        /// The index of the pass in ``RenderPlan/passes``.
        package var pass: Int

        package init(node: String, pass: Int) {
            self.node = node
            self.pass = pass
        }
    }

    /// One image: a node's image output.
    package struct ImagePlan: Sendable, Equatable {
        /// `node` for a node's first output, `node.port` for another, as graph files refer to it.
        package var image: String
        package var node: String
        package var port: String
        package var op: String
        package var readers: [Reader]
        package var decision: Decision
        /// Why, in words, for `tessera run --plan`.
        package var reason: String
        /// Known before running for sources (from their headers), estimated from the inputs otherwise.
        package var size: (width: Int, height: Int)?
        /// Whether ``size`` was read from a header rather than estimated.
        package var sizeIsKnown: Bool
        /// A source decoded smaller than ``size`` because every reader shrinks it (nil: decoded whole).
        package var shrinkOnLoad: ShrinkOnLoad? = nil

        package static func == (a: ImagePlan, b: ImagePlan) -> Bool {
            a.image == b.image && a.readers == b.readers && a.decision == b.decision
                && a.size?.width == b.size?.width && a.size?.height == b.size?.height
                && a.shrinkOnLoad == b.shrinkOnLoad
        }

        /// The size its pixels are made at: ``size``, or the smaller decode's.
        package var decodedSize: (width: Int, height: Int)? {
            guard let size, let shrink = shrinkOnLoad?.shrink else { return size }
            return ((size.width + shrink - 1) / shrink, (size.height + shrink - 1) / shrink)
        }

        /// The passes that read it, in order, each once.
        package var passes: [Int] { Array(Set(readers.map(\.pass))).sorted() }
    }

    /// What a source's header said, for the plan's sizes and storage.
    package struct SourceFacts: Sendable {
        package var width: Int
        package var height: Int
        package var layout: PixelLayout
        package var depth: SampleDepth
        /// Decoded front to back (PNG, JPEG): going back up starts the decoding over.
        package var sequential: Bool
        /// Its samples are file samples (``PixelSource/givesFileSamples``): it is kept in its depth.
        package var givesFileSamples: Bool
        /// The shrinks it can also be decoded at, faster (a JPEG: 2, 4, 8; ``ShrinkableSource``).
        package var shrinks: [Int]

        package init(
            width: Int, height: Int, layout: PixelLayout, depth: SampleDepth, sequential: Bool,
            givesFileSamples: Bool, shrinks: [Int] = []
        ) {
            self.width = width
            self.height = height
            self.layout = layout
            self.depth = depth
            self.sequential = sequential
            self.givesFileSamples = givesFileSamples
            self.shrinks = shrinks
        }

        package init(_ image: Image) {
            self.init(
                width: image.width, height: image.height, layout: image.layout, depth: image.depth,
                sequential: image.source.prefersSequentialRows, givesFileSamples: image.source.givesFileSamples,
                shrinks: (image.source as? ShrinkableSource)?.shrinks ?? [])
        }

        /// Bytes to keep the image whole: its file channels in its depth when that is exact, Float32
        /// samples otherwise.
        package var storedBytes: Int {
            saturatingProduct(width, height, storedFormat.bytesPerPixel)
        }
    }

    package var passes: [Pass]
    /// Every image output of the nodes that run, in running order.
    package var images: [ImagePlan] {
        didSet { index = Self.index(images) }
    }
    /// Where each image is in ``images``, by `node.port` and by its name: a graph of many nodes looks its
    /// images up once each, not by a scan.
    private var index: [String: Int] = [:]
    /// The plans of the passes that can be planned before the run, by the node that reads (the passes
    /// whose images do not depend on what a global node finds).
    package var passPlans: [String: PassPlan] = [:]

    /// About how many bytes a run of this plan holds at once with `threads` workers: the images kept
    /// whole in memory, the outputs of global nodes (kept whole), the windows of cached cells, and each
    /// worker's tiles of the longest chain of images a pass renders. An estimate for sharing a memory
    /// budget between runs (`tessera batch --memory`), not an accounting.
    package func estimatedBytes(threads: Int, tileSize: Int) -> Int {
        var bytes = 0
        for image in images {
            if case .materialize(let kept?, false) = image.decision { bytes = saturatingSum(bytes, kept) }
        }
        let held = passPlans.values.map(\.heldBytes).max() ?? 0
        bytes = saturatingSum(bytes, held)
        for pass in passes where pass.kind == .global {
            guard let size = image(pass.node)?.decodedSize else { continue }
            bytes = saturatingSum(bytes, saturatingProduct(size.width, size.height, 4 * MemoryLayout<Float>.size))
        }
        let chain = passes.map(\.images.count).max() ?? 0
        let tiles = saturatingProduct(threads, chain, tileSize * tileSize * 4 * MemoryLayout<Float>.size)
        return saturatingSum(bytes, tiles)
    }

    /// The plan for the image `node.port`, or `node` (its first output).
    package func image(_ name: String) -> ImagePlan? {
        index[name].map { images[$0] }
    }

    private static func index(_ images: [ImagePlan]) -> [String: Int] {
        var index: [String: Int] = [:]
        for (position, image) in images.enumerated() {
            index["\(image.node).\(image.port)"] = position
            if index[image.image] == nil { index[image.image] = position }
        }
        return index
    }
}

extension RenderPlan.SourceFacts {
    /// How the image is stored when kept: its file samples in their format when they are exact
    /// (``Image/nativeFormat``), else Float32 in its channels (1 or 4).
    package var storedFormat: SampleFormat {
        givesFileSamples
            ? SampleFormat(depth: depth, bands: layout.fileChannels)
            : SampleFormat(depth: .float32, bands: layout.channels)
    }
}

extension RenderPlan {
    /// A node as the planner sees it: what it does with pixels, never what its file says.
    package struct Node: Sendable {
        package var name: String
        package var op: String
        package var access: AccessPattern
        /// See ``NodeInfo/outputReadsInput``.
        package var outputReadsInput: Bool
        /// See ``NodeInfo/readsRegions``.
        package var readsRegions: Bool
        /// Its outputs' names, the first first, and which are images.
        package var outputs: [(name: String, isImage: Bool)]
        /// The images whose pixels it reads (not a `like` that takes a size), as (node, port).
        package var pixelInputs: [(node: String, port: String)]
        /// A program keeps its outputs (each image one pass of its own).
        package var isKept: Bool
        /// A program supplies its value: it runs nothing and reads nothing.
        package var isSupplied: Bool
        /// For a node that only shrinks its one image input (resize, as its `prepare` says): by how much.
        package var inputShrink: Double?

        package init(
            name: String, op: String, access: AccessPattern, outputReadsInput: Bool = false,
            readsRegions: Bool = false, outputs: [(name: String, isImage: Bool)],
            pixelInputs: [(node: String, port: String)],
            isKept: Bool = false, isSupplied: Bool = false, inputShrink: Double? = nil
        ) {
            self.name = name
            self.op = op
            self.access = access
            self.outputReadsInput = outputReadsInput
            self.readsRegions = readsRegions
            self.outputs = outputs
            self.pixelInputs = isSupplied ? [] : pixelInputs
            self.isKept = isKept
            self.isSupplied = isSupplied
            self.inputShrink = inputShrink
        }

        var readsWholeImages: Bool { !isSupplied && (access == .sink || access == .global) }
    }

    /// The plan for running `nodes`, in running order, where `sources` gives what the source nodes'
    /// headers said, by node name, and an image kept whole that takes more than `diskThreshold` bytes
    /// goes to a temporary file.
    package init(nodes: [Node], sources: [String: SourceFacts] = [:], diskThreshold: Int) {
        let byName = Dictionary(nodes.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })

        /// An image as graph files refer to it: the node alone for its first output.
        func name(_ node: String, _ port: String) -> String {
            byName[node]?.outputs.first?.name == port ? node : "\(node).\(port)"
        }

        // Passes, in running order: the nodes that read images whole, and the kept outputs.
        var passes: [Pass] = []
        var passOf: [String: Int] = [:]  // a barrier node's own pass
        var roots: [[(reader: String, node: String, port: String)]] = []
        for node in nodes where !node.isSupplied {
            if node.readsWholeImages {
                passOf[node.name] = passes.count
                passes.append(
                    Pass(
                        node: node.name, op: node.op, kind: node.access == .sink ? .sink : .global, images: [],
                        estimatedPixels: 0))
                roots.append(node.pixelInputs.map { (node.name, $0.node, $0.port) })
            }
            // Each image a program keeps is rendered whole: a pass of its own.
            for output in node.outputs where node.isKept && output.isImage {
                passes.append(Pass(node: node.name, op: node.op, kind: .kept, images: [], estimatedPixels: 0))
                roots.append([(node.name, node.name, output.name)])
            }
        }

        // Who reads what in each pass: from each pass's roots up through the nodes that render lazily.
        var readers: [String: [Reader]] = [:]
        for (index, passRoots) in roots.enumerated() {
            var seen: Set<String> = []
            var stack = Array(passRoots.reversed())
            while let (reader, upstream, port) = stack.popLast() {
                let image = name(upstream, port)
                if !readers[image, default: []].contains(Reader(node: reader, pass: index)) {
                    readers[image, default: []].append(Reader(node: reader, pass: index))
                }
                guard seen.insert(image).inserted, let node = byName[upstream] else { continue }
                passes[index].images.append(image)
                // A barrier's output holds its own results, made in its own pass, unless it reads its
                // input again afterwards (normalize).
                if node.readsWholeImages && !(node.outputReadsInput && passOf[node.name] != index) { continue }
                for input in node.pixelInputs.reversed() { stack.append((node.name, input.node, input.port)) }
            }
        }

        // Sizes: a source's from its header, another image's estimated as the largest it reads.
        var sizes: [String: (width: Int, height: Int)] = [:]
        let area = { (size: (width: Int, height: Int)) in saturatingProduct(size.width, size.height) }
        for node in nodes {
            if let facts = sources[node.name] {
                sizes[node.name] = (facts.width, facts.height)
            } else if let largest = node.pixelInputs.compactMap({ sizes[$0.node] }).max(by: { area($0) < area($1) }) {
                sizes[node.name] = largest
            }
        }

        var images: [ImagePlan] = []
        for node in nodes {
            for output in node.outputs where output.isImage {
                let image = name(node.name, output.name)
                let imageReaders = readers[image] ?? []
                var plan = ImagePlan(
                    image: image, node: node.name, port: output.name, op: node.op, readers: imageReaders,
                    decision: .perPass, reason: "", size: sizes[node.name], sizeIsKnown: sources[node.name] != nil)
                let passCount = plan.passes.count
                let source = node.access == .source && !node.isSupplied
                plan.shrinkOnLoad = sources[node.name].flatMap { facts in
                    Self.shrinkOnLoad(facts, readers: imageReaders.compactMap { byName[$0.node] })
                }
                let facts = sources[node.name].map { $0.shrunk(by: plan.shrinkOnLoad?.shrink ?? 1) }
                if imageReaders.isEmpty {
                    plan.decision = .unread
                    plan.reason = "no node reads its pixels"
                } else if source && passCount > 1 {
                    plan.decision = .materialize(bytes: facts?.storedBytes, inFile: false)
                    plan.reason = "read in \(passCount) passes: decoded once, kept until the last"
                } else if passCount > 1 {
                    let holds = node.access == .global && !node.outputReadsInput
                    plan.reason =
                        holds
                        ? "the node's own results, read in \(passCount) passes"
                        : "computed again in each of its \(passCount) passes"
                } else {
                    plan.reason = "read in one pass"
                }
                if case .materialize(let bytes?, _) = plan.decision, bytes > diskThreshold {
                    plan.decision = .materialize(bytes: bytes, inFile: true)
                }
                images.append(plan)
            }
        }

        // Progress: a pass counts the pixels it renders, and the ones it reads itself (an analysis of a
        // photo decoded in an earlier pass still works through every pixel); rendering a kept image
        // counts in the first pass only.
        var rendered: Set<String> = []
        let byImage = Dictionary(images.enumerated().map { ($1.image, $0) }, uniquingKeysWith: { a, _ in a })
        for index in passes.indices {
            var pixels = 0
            let read = Set(roots[index].map { name($0.node, $0.port) })
            for image in passes[index].images {
                guard let position = byImage[image] else { continue }
                let plan = images[position]
                if case .materialize = plan.decision, !rendered.insert(image).inserted, !read.contains(image) {
                    continue
                }
                if let size = plan.decodedSize { pixels = saturatingSum(pixels, area(size)) }
            }
            passes[index].estimatedPixels = Swift.max(1, pixels)
        }
        self.passes = passes
        self.images = images
        index = Self.index(images)
    }
}

extension RenderPlan.Decision {
    /// "as each pass decides", "kept whole in memory, 768 KiB".
    package var summary: String {
        switch self {
        case .unread: "not read"
        case .perPass: "as each pass decides"
        case .materialize(let bytes, let inFile):
            "kept whole " + (inFile ? "in a temporary file" : "in memory")
                + (bytes.map { ", " + describeBytes($0) } ?? "")
        }
    }
}

extension RenderPlan: CustomStringConvertible {
    /// The plan as `tessera run --plan` prints it: the passes in order, then each image with its
    /// readers and what is done with it.
    package var description: String {
        var lines = ["\(passes.count) pass\(passes.count == 1 ? "" : "es"):"]
        for (index, pass) in passes.enumerated() {
            let kind = pass.kind == .kept ? "kept" : pass.op
            let megapixels = Double(pass.estimatedPixels) / 1e6
            lines.append(
                "  \(index + 1). \(pass.node) (\(kind)) renders \(pass.images.isEmpty ? "nothing" : pass.images.joined(separator: ", "))"
                    + (pass.estimatedPixels > 1 ? ", about \(Self.decimal(megapixels)) megapixels" : ""))
            if let plan = passPlans[pass.node] {
                lines.append(
                    "    in bands of \(plan.tileSize) rows (\(plan.bands)), holding \(describeBytes(plan.heldBytes)) at most:"
                )
                if let narrowed = plan.narrowed {
                    lines.append(
                        "    (tiles of \(plan.tileSize), not \(narrowed.tileSize): in those its bands would hold "
                            + "\(describeBytes(narrowed.heldBytes)))")
                }
                lines.append(plan.description)
            } else if !pass.images.isEmpty {
                lines.append("    planned when it begins: what it reads depends on what an earlier pass finds")
            }
        }
        lines.append("images:")
        for image in images {
            let size = image.sizeIsKnown ? image.size.map { " \($0.width)x\($0.height)" } ?? "" : ""
            lines.append("  \(image.image) (\(image.op)\(size)): \(image.decision.summary); \(image.reason)")
            if let shrink = image.shrinkOnLoad {
                lines.append("      " + shrink.summary(decodedSize: image.decodedSize))
            }
            if !image.readers.isEmpty {
                let readers = image.readers.map { "\($0.node) (pass \($0.pass + 1))" }
                lines.append("      read by " + readers.joined(separator: ", "))
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    static func decimal(_ value: Double) -> String {
        let hundredths = (value * 100).rounded() / 100
        return hundredths == hundredths.rounded() ? "\(Int(hundredths))" : "\(hundredths)"
    }
}
