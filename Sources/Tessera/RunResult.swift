import TesseraCore
import TesseraGraph
import TesseraRunner
import TesseraIO

extension Graph {
    /// What a run of this graph gave, as one JSON object: the files its nodes wrote and the value of
    /// every result (``unreadValues``: the outputs that are not images and that no node's input reads),
    /// each as its kind's JSON (the schemas in `Docs/schemas/`); the object's
    /// schema is `Docs/schemas/run.schema.json`.
    ///
    ///     {"files": ["out/crop.png"],
    ///      "values": {"heat.boxes": {"kind": "boxes", "boxes": [{"x": 120, "y": 40, ...}]}}}
    ///
    /// `tessera run --json` prints it; the C API returns it from `tessera_graph_result_json`. A result
    /// whose node did not run (a run without ``RunOptions/collectsValues``) is left out.
    public func resultJSON(of report: RunReport) -> String {
        let files = writtenFiles.map(JSONText.quoted).joined(separator: ", ")
        let values = resultValues(of: report).map { JSONText.quoted($0.name) + ": " + $0.json }
        let body = values.isEmpty ? "{}" : "{\n" + values.joined(separator: ",\n") + "\n}"
        return "{\"files\": [\(files)],\n\"values\": \(body)}\n"
    }

    /// The results of a run (``unreadValues`` whose nodes ran), each as its kind's JSON, in graph order.
    package func resultValues(of report: RunReport) -> [(name: String, json: String)] {
        unreadValues.compactMap { name in
            guard let value = report.values[name], let json = ValueJSON.encode(value) else { return nil }
            return (name, json.trimmingSuffix("\n"))
        }
    }

    /// The value of output `name` (`heat.boxes`, or `heat` for a node's first output) after a run, as
    /// its kind's JSON; nil, with the reason, when there is none.
    package func valueJSON(_ name: String, of report: RunReport) -> Result<String, ValueLookupError> {
        let parts = name.split(separator: ".", maxSplits: 1).map(String.init)
        guard let nodeName = parts.first, let node = node(named: nodeName) else {
            return .failure(ValueLookupError("the graph has no node '\(name.prefix { $0 != "." })'"))
        }
        let outputs = node.declaration.outputs
        guard let output = parts.count == 2 ? outputs.first(where: { $0.name == parts[1] }) : outputs.first else {
            let names = outputs.map(\.name).joined(separator: ", ")
            return .failure(
                ValueLookupError(
                    "\(node.declaration.op) node '\(nodeName)' has no output '\(parts.count == 2 ? parts[1] : "")'"
                        + (names.isEmpty ? " (it has none)" : " (its outputs: \(names))")))
        }
        let key = "\(nodeName).\(output.name)"
        guard output.type != .image else {
            return .failure(ValueLookupError("'\(key)' is an image: save it to a file (JSON holds the other values)"))
        }
        guard let value = report.values[key], let json = ValueJSON.encode(value) else {
            return .failure(ValueLookupError("'\(key)' has no value: node '\(nodeName)' did not run"))
        }
        return .success(json)
    }
}

/// Why an output's value could not be given.
package struct ValueLookupError: Error, Sendable, CustomStringConvertible {
    package var description: String
    init(_ description: String) { self.description = description }
}

extension String {
    fileprivate func trimmingSuffix(_ suffix: String) -> String {
        hasSuffix(suffix) ? String(dropLast(suffix.count)) : self
    }
}
