import TesseraCatalog
import TesseraCore
import TesseraGraph
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
        let node = configuredBeforeRun { reference in
            // A source's facts are those of its first output.
            guard let facts = sources[reference.node],
                byName[reference.node]?.declaration.outputs.first?.name == reference.port
            else { return nil }
            return Image(
                width: facts.width, height: facts.height, layout: facts.layout, depth: facts.depth, source: SizeOnly())
        }
        return (node as? any ShrinkingNode)?.inputShrink
    }

    /// The node configured before the run with its parameters, and with `standIn`'s images (a size, no
    /// pixels) in place of its inputs. Nil when that cannot be known before the run: a parameter from
    /// an upstream output, an input with no stand-in, a plugin's node.
    func configuredBeforeRun(_ standIn: (PortReference) -> Image?) -> (any ConfiguredNode)? {
        if case .plugin = declaration.maker { return nil }
        var parameterValues: [String: any ParameterValue] = [:]
        for (name, setting) in parameters {
            guard case .value(let value) = setting.source else { return nil }
            parameterValues[name] = value
        }
        var inputValues: [String: NodeValue] = [:]
        for (name, reference) in inputs {
            guard let image = standIn(reference) else { return nil }
            inputValues[name] = .image(image)
        }
        return try? declaration.instantiate(parameters: parameterValues, inputs: inputValues)
    }
}

/// An image's size for a node asked about its geometry before the run: its pixels cannot be read.
struct SizeOnly: PixelSource {
    func render(into buffer: inout PixelBuffer) throws {
        throw ImageError(message: "the plan's stand-in for an image was read (it has a size, not pixels)")
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
