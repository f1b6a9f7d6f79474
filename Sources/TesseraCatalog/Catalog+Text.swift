import TesseraCore

extension Catalog {
    /// `tessera nodes`: one line per node (name, access pattern, summary).
    package var table: String {
        let width = max(4, declarations.map(\.op.count).max() ?? 0)
        let accessWidth = AccessPattern.allCases.map(\.rawValue.count).max() ?? 0
        func row(_ op: String, _ access: String, _ summary: String) -> String {
            op.padding(toLength: width + 2, withPad: " ", startingAt: 0)
                + access.padding(toLength: accessWidth + 2, withPad: " ", startingAt: 0) + summary
        }
        let lines =
            [row("NODE", "ACCESS", "SUMMARY")]
            + declarations.map { row($0.op, $0.info.access.rawValue, $0.info.summary) }
        return lines.joined(separator: "\n")
            + "\n\n`tessera nodes NAME` shows a node's ports, parameters and an example.\n"
    }

    /// The node list as a Markdown table, for the guide (Docs/Guide.md, beside Nodes.md).
    package var markdownTable: String {
        var lines = ["| node | access | what it does |", "|---|---|---|"]
        for declaration in declarations {
            lines.append(
                "| [`\(declaration.op)`](Nodes.md#\(declaration.op.lowercased())) | \(declaration.info.access.rawValue) | \(declaration.info.summary) |"
            )
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// `Docs/Nodes.md`: every node's summary, ports, parameters and example.
    package var markdown: String {
        var text = """
            # Nodes

            Generated from the nodes' own declarations by `tessera nodes --markdown` (`make docs` rewrites this
            file; a test fails when it is stale). `tessera nodes NAME` prints the same for one node.

            Access patterns say how a node reads its inputs, which is what the scheduler needs:
            \(AccessPattern.allCases.map { "`\($0.rawValue)` \($0.summary)" }.joined(separator: "; ")).


            """
        text += markdownTable.replacingOccurrences(of: "(Nodes.md#", with: "(#")
        for declaration in declarations { text += "\n" + declaration.markdown }
        return text
    }
}

extension NodeDeclaration {
    /// `tessera nodes NAME`.
    public var text: String {
        var lines = ["\(op): \(info.summary)", "Access: \(info.access.rawValue) (\(info.access.summary))"]
        if let origin { lines.append("Plugin: \(origin)") }
        lines.append("")
        lines.append("Inputs:")
        if inputs.isEmpty { lines.append("  none") }
        // Columns as wide as their longest entry and two spaces: a fixed width cut a long type short and ran
        // it into the doc ("boxes, faces, text oThe boxes to draw").
        let portWidth = max(8, (inputs.map(\.name) + outputs.map(\.name)).map(\.count).max() ?? 0)
        let inputTypes = inputs.map { $0.typeName + ($0.isOptional ? " (optional)" : "") }
        let typeWidth = max(18, (inputTypes + outputs.map(\.type.rawValue)).map(\.count).max() ?? 0)
        func row(_ name: String, _ type: String, _ doc: String) -> String {
            "  " + name.padding(toLength: portWidth + 2, withPad: " ", startingAt: 0)
                + type.padding(toLength: typeWidth + 2, withPad: " ", startingAt: 0) + doc
        }
        for (input, type) in zip(inputs, inputTypes) { lines.append(row(input.name, type, input.doc)) }
        lines.append("Outputs:")
        if outputs.isEmpty { lines.append("  none") }
        for output in outputs { lines.append(row(output.name, output.type.rawValue, output.doc)) }
        lines.append("Parameters:")
        if parameters.isEmpty { lines.append("  none") }
        for parameter in parameters {
            lines.append("  \(parameter.name): \(parameter.facts.joined(separator: ", "))")
            lines.append("      \(parameter.fullDoc)")
        }
        lines.append("")
        lines.append("Example:")
        lines.append("  version: 1")
        lines.append("  nodes:")
        lines += info.example.split(separator: "\n").map { "    " + $0 }
        return lines.joined(separator: "\n") + "\n"
    }

    package var markdown: String {
        var lines = [
            "## \(op)", "", info.summary, "", "Access: `\(info.access.rawValue)` (\(info.access.summary)).", "",
        ]
        if !inputs.isEmpty {
            lines += ["| input | type | |", "|---|---|---|"]
            lines += inputs.map {
                "| `\($0.name)` | \($0.typeName)\($0.isOptional ? " (optional)" : "") | \($0.doc) |"
            }
            lines.append("")
        }
        if !outputs.isEmpty {
            lines += ["| output | type | |", "|---|---|---|"]
            lines += outputs.map { "| `\($0.name)` | \($0.type.rawValue) | \($0.doc) |" }
            lines.append("")
        }
        if !parameters.isEmpty {
            lines += ["| parameter | type | default | range | |", "|---|---|---|---|---|"]
            for parameter in parameters {
                let defaultText = parameter.defaultValue.map { $0 == .null ? "optional" : "`\($0.text)`" } ?? "required"
                var range = parameter.range?.rangeText ?? ""
                if let suggested = parameter.suggested { range += " (suggested \(suggested.rangeText))" }
                let type = parameter.type.name.replacingOccurrences(of: "|", with: "\\|")
                lines.append("| `\(parameter.name)` | \(type) | \(defaultText) | \(range) | \(parameter.fullDoc) |")
            }
            lines.append("")
        }
        lines +=
            ["```yaml", "version: 1", "nodes:"] + info.example.split(separator: "\n").map { "  " + $0 } + ["```", ""]
        return lines.joined(separator: "\n")
    }
}

extension ParameterDeclaration {
    /// Type, default, range and unit, for `tessera nodes NAME`.
    var facts: [String] {
        var facts = [type.name]
        facts.append(defaultValue.map { $0 == .null ? "optional" : "default \($0.text)" } ?? "required")
        if let range { facts.append(range.rangeText) }
        return facts
    }
}
