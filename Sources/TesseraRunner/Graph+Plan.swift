import TesseraCatalog
import TesseraCore
import TesseraGraph
import TesseraScheduler

extension RenderPlan {
    /// The plan for running the graph nodes `nodes` (in running order): `keeping` names nodes whose
    /// outputs a program keeps, `supplied` nodes whose values a program gives.
    init(
        nodes: [GraphNode], keeping: Set<String> = [], supplied: Set<String> = [],
        sources: [String: SourceFacts] = [:], diskThreshold: Int = RunOptions.defaultDiskThreshold
    ) {
        let byName = Dictionary(nodes.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        let planned = nodes.map { node in
            let pixelInputs = node.inputs.keys.sorted().compactMap { name -> (node: String, port: String)? in
                guard let reference = node.inputs[name], node.declaration.input(named: name)?.readsPixels == true,
                    byName[reference.node]?.declaration.output(named: reference.port)?.type == .image
                else { return nil }
                return (reference.node, reference.port)
            }
            // How much it shrinks what it reads, asked only of a node reading a source that can be decoded
            // smaller (shrink-on-load).
            let readsShrinkable = pixelInputs.count == 1 && sources[pixelInputs[0].node]?.shrinks.isEmpty == false
            return Node(
                name: node.name, op: node.declaration.op, access: node.declaration.access,
                outputReadsInput: node.declaration.info.outputReadsInput,
                readsRegions: node.declaration.info.readsRegions,
                outputs: node.declaration.outputs.map { ($0.name, $0.type == .image) }, pixelInputs: pixelInputs,
                isKept: keeping.contains(node.name), isSupplied: supplied.contains(node.name),
                inputShrink: readsShrinkable ? node.inputShrink(sources: sources, nodes: byName) : nil)
        }
        self.init(nodes: planned, sources: sources, diskThreshold: diskThreshold)
    }
}
