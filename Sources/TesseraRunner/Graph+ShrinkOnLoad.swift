import TesseraCatalog
import TesseraCore
import TesseraGraph
import TesseraScheduler

// Shrink-on-load: a source every reader only shrinks is decoded smaller (RenderPlan+ShrinkOnLoad.swift
// decides; a `load` offers the decodes, ShrinkableSource), and its readers map that decode onto the full
// image's geometry. Here: what the plan is told of the readers (their `prepare`), and the run's side.

extension GraphNode {
    /// For a node that reads its one image input only to make it smaller (resize): by how much, from its
    /// ``ConfiguredNode/prepare(_:)`` given the shapes of the sources it reads (`sources` holds their
    /// headers). Nil when that is not known before the run: a parameter from an upstream output, an
    /// input that is not a source's image, a plugin's node.
    func inputShrink(sources: [String: RenderPlan.SourceFacts], nodes byName: [String: GraphNode]) -> Double? {
        guard case .type = declaration.maker else { return nil }
        var parameterValues: [String: any ParameterValue] = [:]
        for (name, setting) in parameters {
            guard case .value(let value) = setting.source else { return nil }
            parameterValues[name] = value
        }
        var shapes: [String: ImageShape] = [:]
        for (name, reference) in inputs {
            // A source's facts are those of its first output.
            guard let facts = sources[reference.node],
                byName[reference.node]?.declaration.outputs.first?.name == reference.port
            else { return nil }
            shapes[name] = ImageShape(
                width: facts.width, height: facts.height, layout: facts.layout, depth: facts.depth)
        }
        guard let node = try? declaration.instantiate(parameters: parameterValues, inputs: [:]),
            let (input, _) = inputs.first(where: { declaration.input(named: $0.key)?.readsPixels == true })
        else { return nil }
        return node.prepare(shapes).inputShrinks[input]
    }
}

extension Graph {
    /// Opens the smaller decodes the plan chose (its header read, no pixel decoded) and puts each in
    /// its source's image, which keeps its full size: the run schedules the smaller decode in its
    /// place, and the readers map it (``Image/smallerDecode``).
    static func decodeSmaller(
        _ opened: inout [String: [String: NodeValue]], as plan: RenderPlan, nodes: [GraphNode]
    ) throws(RunError) {
        for image in plan.images {
            guard let shrink = image.shrinkOnLoad?.shrink, case .image(let full)? = opened[image.node]?[image.port],
                let source = full.source as? ShrinkableSource, let node = nodes.first(where: { $0.name == image.node })
            else { continue }
            do {
                let smaller = try source.decodingSmaller(by: shrink)
                opened[image.node]?[image.port] = .image(full.withSource(smaller))
            } catch {
                throw runError(error, at: node, in: nodes)
            }
        }
    }

    /// A node's output image as the graph sees it, once the run has wrapped the pixels it decodes
    /// (`scheduled`): that image, or, for a source decoded smaller, the full-size image whose smaller
    /// decode is served by it.
    static func serving(_ output: Image, from scheduled: Image) -> Image {
        guard let source = output.source as? ShrinkableSource, source.chosen != nil else { return scheduled }
        return output.withSource(source.servingSmallerDecode(from: scheduled))
    }
}
