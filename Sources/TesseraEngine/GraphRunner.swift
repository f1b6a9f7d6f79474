import TesseraCore

/// A node failed while the graph ran.
public struct RunError: Error, Sendable, CustomStringConvertible {
    /// Where the failing node is written.
    public var location: SourceLocation
    public var node: String
    public var op: String
    public var message: String

    /// `FILE:LINE:COLUMN: error: save node 'out': MESSAGE`.
    public var description: String {
        Diagnostic.error(location, "\(op) node '\(node)': \(message)").description
    }
}

extension Graph {
    /// The nodes a run needs: the sinks (nodes without outputs) and every node they read, directly or
    /// not. A node whose output nothing reads does not run, as in any demand-driven pipeline.
    public var neededNodes: [GraphNode] {
        var needed = Set(nodes.filter { $0.declaration.outputs.isEmpty }.map(\.name))
        for node in nodes.reversed() where needed.contains(node.name) {
            for reference in node.references { needed.insert(reference.node) }
        }
        return nodes.filter { needed.contains($0.name) }
    }

    /// Runs the needed nodes once each, in order, passing outputs along; a value is dropped once its
    /// last reader ran.
    ///
    /// This is the serial executor: images stay lazy (`Image` renders regions on demand), so sinks pull
    /// pixels through the chain region by region.
    public func run() throws(RunError) {
        let nodes = neededNodes
        var remainingReaders: [String: Int] = [:]
        for node in nodes { for reference in node.references { remainingReaders[reference.node, default: 0] += 1 } }
        var values: [String: NodeValue] = [:]  // "node.port"
        for node in nodes {
            do {
                let outputs = try node.execute(reading: values)
                for (port, value) in outputs { values["\(node.name).\(port)"] = value }
            } catch let error as RunError {
                throw error
            } catch {
                throw RunError(
                    location: node.location, node: node.name, op: node.declaration.op, message: Self.describe(error))
            }
            for reference in node.references {
                remainingReaders[reference.node, default: 1] -= 1
                if remainingReaders[reference.node] == 0 {
                    values = values.filter { !$0.key.hasPrefix(reference.node + ".") }
                }
            }
        }
    }

    static func describe(_ error: any Error) -> String {
        if let error = error as? ImageError { return error.description }
        if let error = error as? NodeProblem { return "\(error.parameter): \(error.message)" }
        return "\(error)"
    }
}

extension GraphNode {
    /// Configures this node from its settings and upstream values, runs it, and names its outputs.
    func execute(reading values: [String: NodeValue]) throws -> [String: NodeValue] {
        var parameterValues: [String: any ParameterValue] = [:]
        var takesUpstream = false
        for (name, setting) in parameters {
            switch setting.source {
            case .value(let value):
                parameterValues[name] = value
            case .upstream(let reference):
                takesUpstream = true
                guard let upstream = values[reference.node + "." + reference.port],
                    let field = declaration.parameterFields[name]
                else { throw NodeConfigurationError("\(name): '\(reference.text)' produced no value") }
                do {
                    parameterValues[name] = try field.typed(upstream: upstream)
                } catch {
                    throw RunError(
                        location: setting.location, node: self.name, op: declaration.op,
                        message: "\(name) from '\(reference.text)': \(error.message)")
                }
            }
        }
        var inputValues: [String: NodeValue] = [:]
        for (name, reference) in inputs {
            guard let value = values[reference.node + "." + reference.port] else {
                throw NodeConfigurationError("\(name): '\(reference.text)' produced no value")
            }
            inputValues[name] = value
        }
        let node = try declaration.instantiate(parameters: parameterValues, inputs: inputValues)
        if takesUpstream { try node.validate() }
        let produced = try node.run().values
        var outputs: [String: NodeValue] = [:]
        for (port, value) in produced {
            let name = port.isEmpty ? declaration.outputs.first?.name ?? "" : port
            guard let output = declaration.output(named: name), output.type == value.type else {
                throw NodeConfigurationError("produced \(value.type.phrase) as '\(name)', which it does not declare")
            }
            outputs[name] = value
        }
        for output in declaration.outputs where outputs[output.name] == nil {
            throw NodeConfigurationError("did not produce its output '\(output.name)'")
        }
        return outputs
    }
}
