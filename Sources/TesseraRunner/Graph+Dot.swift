import TesseraCatalog
import TesseraGraph
extension Graph {
    /// The graph in Graphviz's language (`tessera dot g.yaml | dot -Tsvg > g.svg`): one box per node with
    /// its name, op and the parameters the graph sets; an edge per connection, labelled with the ports.
    /// Parameters taken from upstream outputs are dashed edges.
    public var dot: String { dot(plan: nil) }

    /// The graph in Graphviz's language, with `plan` shown on it when given: each image's decision
    /// under its node (kept whole nodes filled), a source decoded smaller (shrink-on-load), and each
    /// pass numbered on its node.
    package func dot(plan: RenderPlan?) -> String {
        var lines = [
            "digraph \(Self.quoted(file)) {", "    rankdir=LR;", "    node [shape=box, fontname=\"Helvetica\"];",
            "    edge [fontname=\"Helvetica\", fontsize=10];",
        ]
        for node in nodes {
            var label = [node.name, node.declaration.op]
            for name in node.parameters.keys.sorted() {
                if case .value = node.parameters[name]?.source, let text = node.parameters[name]?.text {
                    label.append("\(name): \(text)")
                }
            }
            var style = ""
            if let plan {
                for (index, pass) in plan.passes.enumerated() where pass.node == node.name {
                    label.append("pass \(index + 1)" + (pass.kind == .kept ? " (kept)" : ""))
                }
                for image in plan.images where image.node == node.name && image.decision != .unread {
                    if image.decision != .perPass { label.append("→ " + image.decision.summary) }
                    if let shrink = image.shrinkOnLoad?.shrink { label.append("decoded at 1/\(shrink)") }
                    if case .materialize = image.decision { style = ", style=filled, fillcolor=\"#fde9b6\"" }
                }
                // How each pass serves it: "pass 1: a window of 512 rows".
                for (index, pass) in plan.passes.enumerated() {
                    for entry in plan.passPlans[pass.node]?.entries ?? []
                    where entry.node == node.name && !entry.isStage && entry.serving != .kept {
                        label.append("pass \(index + 1): \(entry.serving.summary)")
                        if case .whole = entry.serving { style = ", style=filled, fillcolor=\"#fde9b6\"" }
                    }
                }
            }
            lines.append(
                "    \(Self.quoted(node.name)) [label=\(Self.quoted(label.joined(separator: "\n")))\(style)];")
        }
        for node in nodes {
            for name in node.inputs.keys.sorted() {
                guard let reference = node.inputs[name] else { continue }
                lines.append("    \(Self.edge(reference, to: node.name, port: name))];")
            }
            for name in node.parameters.keys.sorted() {
                guard case .upstream(let reference) = node.parameters[name]?.source else { continue }
                lines.append("    \(Self.edge(reference, to: node.name, port: name)), style=dashed];")
            }
        }
        lines.append("}")
        return lines.joined(separator: "\n") + "\n"
    }

    private static func edge(_ reference: PortReference, to node: String, port: String) -> String {
        let label = reference.namesPort ? "\(reference.port) → \(port)" : port
        return "\(quoted(reference.node)) -> \(quoted(node)) [label=\(quoted(label))"
    }

    /// A Graphviz string: quotes and backslashes escaped, newlines as `\n`.
    static func quoted(_ text: String) -> String {
        let escaped = text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n")
        return "\"\(escaped)\""
    }
}
