extension Graph {
    /// The graph in Graphviz's language (`tessera dot g.yaml | dot -Tsvg > g.svg`): one box per node with
    /// its name, op and the parameters the graph sets; an edge per connection, labelled with the ports.
    /// Parameters taken from upstream outputs are dashed edges.
    public var dot: String {
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
            lines.append("    \(Self.quoted(node.name)) [label=\(Self.quoted(label.joined(separator: "\n")))];")
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
