import TesseraCore
import TesseraScheduler

// Shrink-on-load: a source every reader only shrinks is decoded smaller (RenderPlan+ShrinkOnLoad.swift
// decides; a JPEG `load` offers the decodes, ShrinkableSource), and its readers map that decode onto the
// full image's geometry. Here: what the plan is told of the readers, and the run's side.

extension GraphNode {
    /// For a node that only shrinks its image input (``ShrinkingNode``, resize): by how much, asked of
    /// the node configured with its parameters and with images of its inputs' sizes in place of them.
    /// Nil when any of that is not known before the run: a parameter from an upstream output, an input
    /// that is not a source's image (`sources` holds the sources' headers), a plugin's node.
    func inputShrink(sources: [String: RenderPlan.SourceFacts], nodes byName: [String: GraphNode]) -> Double? {
        if case .plugin = declaration.maker { return nil }
        var parameterValues: [String: any ParameterValue] = [:]
        for (name, setting) in parameters {
            guard case .value(let value) = setting.source else { return nil }
            parameterValues[name] = value
        }
        var inputValues: [String: NodeValue] = [:]
        for (name, reference) in inputs {
            // A source's facts are those of its first output.
            guard let facts = sources[reference.node],
                byName[reference.node]?.declaration.outputs.first?.name == reference.port
            else { return nil }
            inputValues[name] = .image(
                Image(
                    width: facts.width, height: facts.height, layout: facts.layout, depth: facts.depth,
                    source: SizeOnly()))
        }
        let node = try? declaration.instantiate(parameters: parameterValues, inputs: inputValues)
        return (node as? any ShrinkingNode)?.inputShrink
    }
}

/// An image's size for a node asked about its geometry before the run: its pixels cannot be read.
private struct SizeOnly: PixelSource {
    func render(into buffer: inout PixelBuffer) throws {
        throw ImageError(message: "the plan's stand-in for an image was read (it has a size, not pixels)")
    }
}
