import TesseraCatalog
import TesseraCore

/// Checks a parsed graph document against the catalog and builds its nodes, collecting every problem.
struct GraphValidator {
    static let supportedVersion = Catalog.graphVersion
    let file: String
    let catalog: Catalog
    /// Where relative paths written in the file resolve.
    let context: ParameterContext
    var diagnostics: [Diagnostic]
    /// The most pixels a sink may write (``RunOptions/maxOutputPixels``), checked here where the
    /// parameters fix an image's size.
    var maxOutputPixels = OutputLimit.defaultPixels
    /// Output sizes the nodes' parameters fix, by node name (``ConfiguredNode/prepare(_:)`` with no input
    /// shapes known: validation opens no file).
    var knownSizes: [String: Preparation.Size] = [:]

    /// The most nodes a graph may have. Validation is linear in the graph's size, so this is a bound on
    /// what a file can ask of memory and of the run, not of checking: 100,000 nodes validate in about a
    /// second.
    static let maximumNodes = 100_000
    /// The most nodes that may read one another in a row (the longest path through the graph, counted in
    /// nodes). A tile is pulled through a chain of nodes by recursion on the worker that renders it, a few
    /// kilobytes of stack a node (about 2.7 KB in a debug build: 3,000 nodes overflowed the 8 MB of a
    /// thread); 1,000 keeps that within 3 MB.
    static let maximumChain = 1_000
    /// Node names suggested for unknown references ("did you mean"): each compares the name with every
    /// node's, so a file of many broken references gets suggestions for the first ones only, and checking
    /// it stays linear.
    static let maximumNameSuggestions = 64

    /// Node index by name, made once (file order; names are unique, the parser drops duplicates).
    var nodeIndex: [String: Int] = [:]
    var nameSuggestionsLeft = Self.maximumNameSuggestions
    /// The catalog's declarations by op, made once (the catalog looks them up in a list).
    var declarations: [String: NodeDeclaration] = [:]

    /// A node as written, before its connections are checked. `declaration` is nil when its op is unknown.
    private struct Draft {
        var name: String
        var location: SourceLocation
        var declaration: NodeDeclaration?
        var inputs: [String: PortReference] = [:]
        var parameters: [String: ParameterSetting] = [:]
        var valueLocations: [String: SourceLocation] = [:]
        var hasErrors = false
    }

    private mutating func error(_ location: SourceLocation, _ message: String) {
        diagnostics.append(.error(location, message))
    }

    /// The graph's nodes in running order, or nil when an error was found.
    mutating func validate(_ root: DocumentValue, overrides: [ParameterOverride]) -> [GraphNode]? {
        guard case .mapping(let entries, let rootLocation) = root else {
            error(root.location, "a graph is a mapping with 'version' and 'nodes', not \(root.literal.kindName)")
            return nil
        }
        var nodesValue: DocumentValue?
        var sawVersion = false
        for entry in entries {
            switch entry.key {
            case "version":
                sawVersion = true
                checkVersion(entry.value)
            case "nodes":
                nodesValue = entry.value
            case "$schema" where entry.value.string != nil:
                break  // where a JSON graph points editors at the schema
            default:
                error(
                    entry.keyLocation,
                    "unknown key '\(entry.key)' (a graph has 'version' and 'nodes')"
                        + Suggestion.didYouMean(entry.key, in: ["version", "nodes"]))
            }
        }
        if !sawVersion {
            error(rootLocation, "missing 'version: \(Self.supportedVersion)' (the version of the graph format)")
        }
        guard let nodesValue else {
            error(rootLocation, "missing 'nodes' (a mapping from node names to nodes)")
            return nil
        }
        guard case .mapping(let nodeEntries, let nodesLocation) = nodesValue else {
            error(nodesValue.location, "'nodes' must map node names to nodes, not be \(nodesValue.literal.kindName)")
            return nil
        }
        if nodeEntries.isEmpty { error(nodesLocation, "the graph has no nodes") }
        if nodeEntries.count > Self.maximumNodes {
            error(
                nodeEntries[Self.maximumNodes].keyLocation,
                "the graph has \(nodeEntries.count) nodes, more than the \(Self.maximumNodes) a graph may have")
            return nil
        }

        declarations = Dictionary(catalog.declarations.map { ($0.op, $0) }, uniquingKeysWith: { first, _ in first })
        var drafts = nodeEntries.map { draft(for: $0) }
        nodeIndex = Dictionary(drafts.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { first, _ in first })
        apply(overrides, to: &drafts)
        checkRequired(&drafts)
        checkReferences(&drafts)
        checkNodes(&drafts)
        checkWrittenFiles(drafts)
        checkOutputSizes(drafts)
        guard let order = runningOrder(drafts), !diagnostics.contains(where: { $0.severity == .error }) else {
            return nil
        }
        // Only for graphs without errors: a misspelt reference would make its target look unused.
        warnUnused(drafts)
        return order.compactMap { index in
            let draft = drafts[index]
            guard let declaration = draft.declaration else { return nil }
            return GraphNode(
                name: draft.name, location: draft.location, declaration: declaration, inputs: draft.inputs,
                parameters: draft.parameters)
        }
    }

    private mutating func checkVersion(_ value: DocumentValue) {
        switch value {
        case .scalar(let literal, _, _) where literal.number == Double(Self.supportedVersion):
            break
        case .scalar(.integer(let version), _, let location):
            error(location, "unsupported version \(version); this Tessera reads version \(Self.supportedVersion)")
        default:
            error(
                value.location, "'version' must be the number \(Self.supportedVersion), not \(value.literal.kindName)")
        }
    }

    // MARK: Nodes as written

    static func isNodeName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first.properties.isAlphabetic || first == "_" else {
            return false
        }
        return name.unicodeScalars.allSatisfy {
            $0.isASCII && ($0.properties.isAlphabetic || $0.properties.numericType != nil || $0 == "_" || $0 == "-")
        }
    }

    private mutating func draft(for entry: DocumentEntry) -> Draft {
        var draft = Draft(name: entry.key, location: entry.keyLocation)
        if !Self.isNodeName(entry.key) {
            error(
                entry.keyLocation,
                "'\(entry.key)' is not a valid node name: use letters, digits, '_' and '-', starting with a letter")
            draft.hasErrors = true
        }
        guard case .mapping(let fields, _) = entry.value else {
            error(
                entry.value.location,
                "node '\(entry.key)' must be a mapping with 'op', inputs and parameters (as {op: load, path: a.png}), "
                    + "not \(entry.value.literal.kindName)")
            draft.hasErrors = true
            return draft
        }
        guard let opField = fields.first(where: { $0.key == "op" }) else {
            error(entry.keyLocation, "node '\(entry.key)' has no 'op' (the kind of node, as op: load)")
            draft.hasErrors = true
            return draft
        }
        guard let op = opField.value.string else {
            error(opField.value.location, "'op' must name a kind of node, not be \(opField.value.literal.kindName)")
            draft.hasErrors = true
            return draft
        }
        guard let declaration = declarations[op] else {
            let hint = Suggestion.nearest(to: op, in: catalog.ops).map { "did you mean '\($0)'?" }
            error(opField.value.location, "unknown op '\(op)'; " + (hint ?? Self.pluginHint))
            draft.hasErrors = true
            return draft
        }
        draft.declaration = declaration
        for field in fields where field.key != "op" {
            if declaration.input(named: field.key) != nil {
                if let reference = reference(field.value, for: "input '\(field.key)' of '\(entry.key)'") {
                    draft.inputs[field.key] = reference
                } else {
                    draft.hasErrors = true
                }
            } else if declaration.parameter(named: field.key) != nil {
                if let setting = setting(field.value, parameter: field.key, node: entry.key, declaration: declaration) {
                    draft.parameters[field.key] = setting
                } else {
                    draft.hasErrors = true
                }
            } else {
                error(field.keyLocation, unknownKey(field.key, node: entry.key, declaration: declaration))
                draft.hasErrors = true
            }
            draft.valueLocations[field.key] = field.value.location
        }
        return draft
    }

    /// What an unknown op that looks like no built-in gets: it may be a plugin's, not loaded.
    static let pluginHint =
        "no built-in node or loaded plugin has it. A plugin's nodes load with --plugin PATH (tessera_load_plugin "
        + "in the C API), from the folders in TESSERA_PLUGIN_PATH, or from the plugins folder beside the tessera "
        + "executable; `tessera nodes` lists the nodes loaded"

    private func unknownKey(_ key: String, node: String, declaration: NodeDeclaration) -> String {
        let names = declaration.inputs.map(\.name) + declaration.parameters.map(\.name)
        let valid = names.isEmpty ? "it takes none" : "it takes " + names.joined(separator: ", ")
        return "\(declaration.op) node '\(node)' has no input or parameter '\(key)' (\(valid))"
            + Suggestion.didYouMean(key, in: names)
    }

    /// `photo` or `heat.boxes`; nil (with an error) for anything else.
    private mutating func reference(_ value: DocumentValue, for what: String) -> PortReference? {
        guard let text = value.name else {
            error(value.location, "\(what) must name a node (as photo or heat.boxes), not \(value.literal.kindName)")
            return nil
        }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard (1...2).contains(parts.count), parts.allSatisfy(Self.isNodeName) else {
            error(value.location, "\(what): '\(text)' is not a node name or node.output")
            return nil
        }
        return PortReference(
            node: parts[0], port: parts.count == 2 ? parts[1] : "", namesPort: parts.count == 2,
            location: value.location)
    }

    private mutating func setting(
        _ value: DocumentValue, parameter: String, node: String, declaration: NodeDeclaration
    ) -> ParameterSetting? {
        if case .mapping(let entries, _) = value, entries.contains(where: { $0.key == "from" }) {
            for entry in entries where entry.key != "from" {
                error(entry.keyLocation, "unknown key '\(entry.key)' in {from: ...}; it takes only 'from'")
                return nil
            }
            guard let from = entries.first?.value,
                let reference = reference(from, for: "'from' of \(node).\(parameter)")
            else { return nil }
            return ParameterSetting(source: .upstream(reference), location: value.location)
        }
        return typed(
            value.literal, at: value.location, parameter: parameter, node: node, declaration: declaration,
            context: context)
    }

    private mutating func typed(
        _ literal: Literal, at location: SourceLocation, parameter: String, node: String,
        declaration: NodeDeclaration, context: ParameterContext
    ) -> ParameterSetting? {
        guard let field = declaration.parameterFields[parameter] else { return nil }
        do {
            let value = try field.typed(literal, context: context)
            return ParameterSetting(source: .value(value), location: location)
        } catch {
            self.error(location, "\(node).\(parameter): \(error.message)")
            return nil
        }
    }

    // MARK: --set

    private mutating func apply(_ overrides: [ParameterOverride], to drafts: inout [Draft]) {
        var cwd = context
        cwd.baseFolder = ""
        for override in overrides {
            guard let index = nodeIndex[override.node] else {
                error(override.location, "no node '\(override.node)'" + suggestedName(for: override.node, in: drafts))
                continue
            }
            guard let declaration = drafts[index].declaration else { continue }
            guard declaration.parameter(named: override.parameter) != nil else {
                if declaration.input(named: override.parameter) != nil {
                    error(
                        override.location,
                        "'\(override.parameter)' is an input of \(declaration.op) node '\(override.node)'; "
                            + "--set sets parameters")
                } else {
                    let names = declaration.parameters.map(\.name)
                    error(
                        override.location,
                        "\(declaration.op) node '\(override.node)' has no parameter '\(override.parameter)' (it takes "
                            + (names.isEmpty ? "none" : names.joined(separator: ", ")) + ")"
                            + Suggestion.didYouMean(override.parameter, in: names))
                }
                continue
            }
            drafts[index].valueLocations[override.parameter] = override.location
            // Paths and strings are taken as written; other values are read with YAML's rules.
            let literal: Literal
            switch declaration.parameter(named: override.parameter)?.type {
            case .path, .string:
                literal = .string(override.value)
            default:
                guard let parsed = DocumentParser.parseValue(override.value) else {
                    error(override.location, "cannot read the value '\(override.value)'")
                    drafts[index].hasErrors = true
                    continue
                }
                literal = parsed
            }
            if let setting = typed(
                literal, at: override.location, parameter: override.parameter, node: override.node,
                declaration: declaration, context: cwd)
            {
                drafts[index].parameters[override.parameter] = setting
            } else {
                drafts[index].parameters[override.parameter] = nil
                drafts[index].hasErrors = true
            }
        }
    }

    // MARK: Connections

    private mutating func checkRequired(_ drafts: inout [Draft]) {
        for index in drafts.indices {
            guard let declaration = drafts[index].declaration else { continue }
            let draft = drafts[index]
            for input in declaration.inputs where !input.isOptional && draft.valueLocations[input.name] == nil {
                error(
                    draft.location,
                    "\(declaration.op) node '\(draft.name)' needs input '\(input.name)' (\(input.typePhrase))")
                drafts[index].hasErrors = true
            }
            // A parameter whose value was refused has its own error already.
            for parameter in declaration.parameters
            where parameter.isRequired && draft.valueLocations[parameter.name] == nil {
                error(
                    draft.location,
                    "\(declaration.op) node '\(draft.name)' needs parameter '\(parameter.name)' (\(parameter.type.name))"
                )
                drafts[index].hasErrors = true
            }
        }
    }

    /// "; did you mean 'photo'?" for a name no node has, while suggestions are left
    /// (``maximumNameSuggestions``); "" after.
    private mutating func suggestedName(for name: String, in drafts: [Draft]) -> String {
        guard nameSuggestionsLeft > 0 else { return "" }
        nameSuggestionsLeft -= 1
        return Suggestion.didYouMean(name, in: drafts.map(\.name))
    }

    private mutating func checkReferences(_ drafts: inout [Draft]) {
        for index in drafts.indices {
            let draft = drafts[index]
            guard let declaration = draft.declaration else { continue }
            for (input, reference) in draft.inputs.sorted(by: { $0.key < $1.key }) {
                let wanted = declaration.input(named: input)
                let what = "input '\(input)' of '\(draft.name)' (\(declaration.op)) takes \(wanted?.typePhrase ?? "?")"
                if let resolved = resolve(reference, in: drafts, accepting: wanted?.accepted ?? [], what: what) {
                    drafts[index].inputs[input] = resolved
                } else {
                    // Dropped, so that it counts in no cycle: its error is reported.
                    drafts[index].inputs[input] = nil
                    drafts[index].hasErrors = true
                }
            }
            for (parameter, setting) in draft.parameters.sorted(by: { $0.key < $1.key }) {
                guard case .upstream(let reference) = setting.source,
                    let declared = declaration.parameter(named: parameter)
                else { continue }
                guard !declared.upstreamTypes.isEmpty else {
                    error(
                        setting.location,
                        "\(draft.name).\(parameter): a \(declared.type.name) parameter cannot take its value from another node"
                    )
                    drafts[index].parameters[parameter] = nil
                    drafts[index].hasErrors = true
                    continue
                }
                let phrases = declared.upstreamTypes.phrase
                let what = "parameter '\(parameter)' of '\(draft.name)' (\(declaration.op)) takes \(phrases)"
                if let resolved = resolve(reference, in: drafts, accepting: declared.upstreamTypes, what: what) {
                    drafts[index].parameters[parameter]?.source = .upstream(resolved)
                } else {
                    drafts[index].parameters[parameter] = nil
                    drafts[index].hasErrors = true
                }
            }
        }
    }

    /// The reference with its port filled in, if it names an existing output of an accepted type.
    private mutating func resolve(
        _ reference: PortReference, in drafts: [Draft], accepting types: [PortType], what: String
    ) -> PortReference? {
        guard let target = nodeIndex[reference.node].map({ drafts[$0] }) else {
            error(reference.location, "no node '\(reference.node)'" + suggestedName(for: reference.node, in: drafts))
            return nil
        }
        guard let declaration = target.declaration else { return nil }  // its own error is reported
        let outputs = declaration.outputs
        guard !outputs.isEmpty else {
            error(reference.location, "\(declaration.op) node '\(target.name)' has no outputs to read")
            return nil
        }
        var resolved = reference
        if reference.namesPort {
            guard declaration.output(named: reference.port) != nil else {
                let names = outputs.map(\.name)
                error(
                    reference.location,
                    "\(declaration.op) node '\(target.name)' has no output '\(reference.port)' (its outputs: "
                        + names.joined(separator: ", ") + ")" + Suggestion.didYouMean(reference.port, in: names))
                return nil
            }
        } else {
            resolved.port = outputs[0].name
        }
        guard let given = declaration.output(named: resolved.port)?.type else { return nil }
        guard types.contains(given) else {
            error(reference.location, "\(what), but '\(reference.text)' (\(declaration.op)) gives \(given.phrase)")
            return nil
        }
        return resolved
    }

    /// Node indices with every node after those it reads, or nil (with an error per cycle) when nodes
    /// read each other in a cycle, or when more than ``maximumChain`` nodes read one another in a row.
    ///
    /// - Cost: linear in nodes and connections (and a logarithm for the file order among ready nodes).
    private mutating func runningOrder(_ drafts: [Draft]) -> [Int]? {
        let index = nodeIndex
        let edges: [[Int]] = drafts.map { draft in
            let references =
                Array(draft.inputs.values)
                + draft.parameters.values.compactMap {
                    if case .upstream(let reference) = $0.source { return reference }
                    return nil
                }
            return Array(Set(references.compactMap { index[$0.node] })).sorted()
        }
        var cycles = 0
        for component in StronglyConnected.components(edges) {
            let isCycle = component.count > 1 || edges[component[0]].contains(component[0])
            guard isCycle else { continue }
            cycles += 1
            let members = component.sorted()
            let cycle = StronglyConnected.cycle(from: members[0], within: Set(members), edges: edges)
            var message =
                "these nodes read each other in a cycle: "
                + cycle.map { "'\(drafts[$0].name)'" }.joined(separator: " -> ")
            let inCycle = Set(cycle)
            let others = members.filter { !inCycle.contains($0) }.map { drafts[$0].name }
            if !others.isEmpty { message += " (and through other cycles: \(others.quotedList))" }
            error(drafts[members[0]].location, message)
        }
        guard cycles == 0 else { return nil }
        // Kahn's algorithm, taking the earliest ready node in file order each time.
        var remaining = edges.map(\.count)
        var readers = [[Int]](repeating: [], count: drafts.count)
        for (reader, sources) in edges.enumerated() { for source in sources { readers[source].append(reader) } }
        var ready = MinimumHeap(remaining.indices.filter { remaining[$0] == 0 })
        var order: [Int] = []
        order.reserveCapacity(drafts.count)
        while let next = ready.popMinimum() {
            order.append(next)
            for reader in readers[next] {
                remaining[reader] -= 1
                if remaining[reader] == 0 { ready.insert(reader) }
            }
        }
        // The longest chain ending at each node, in running order: every node it reads comes before it.
        var chain = [Int](repeating: 1, count: drafts.count)
        for node in order {
            for source in edges[node] { chain[node] = max(chain[node], chain[source] + 1) }
            guard chain[node] > Self.maximumChain else { continue }
            error(
                drafts[node].location,
                "node '\(drafts[node].name)' ends a chain of \(chain[node]) nodes, each reading the one before; "
                    + "at most \(Self.maximumChain) nodes can be chained")
            return nil
        }
        return order
    }

    // MARK: The nodes' own checks

    /// Runs each node's `validate(in:)` on its parameters and its inputs' types, where the parameters
    /// are all known before running, and reports every problem it finds.
    private mutating func checkNodes(_ drafts: inout [Draft]) {
        for draft in drafts where !draft.hasErrors {
            guard let declaration = draft.declaration else { continue }
            var values: [String: any ParameterValue] = [:]
            for (name, setting) in draft.parameters {
                guard case .value(let value) = setting.source else { continue }
                values[name] = value
            }
            guard values.count == draft.parameters.count else { continue }  // some come from upstream: at run time
            var inputTypes: [String: PortType] = [:]
            for (input, reference) in draft.inputs {
                inputTypes[input] = nodeIndex[reference.node].flatMap {
                    drafts[$0].declaration?.output(named: reference.port)?.type
                }
            }
            let context = ValidationContext(inputTypes: inputTypes, setParameters: Set(draft.parameters.keys))
            do {
                let node = try declaration.instantiate(parameters: values, inputs: [:])
                knownSizes[draft.name] = declaration.outputs.first.flatMap { node.prepare([:]).outputSizes[$0.name] }
                for problem in node.validate(in: context) {
                    error(
                        draft.valueLocations[problem.parameter] ?? draft.location,
                        "\(draft.name).\(problem.parameter): \(problem.message)")
                }
            } catch {
                self.error(draft.location, "\(declaration.op) node '\(draft.name)': \(error)")
            }
        }
    }

    /// A sink reading an image whose size the parameters fix, over the output limit: found before running.
    private mutating func checkOutputSizes(_ drafts: [Draft]) {
        for draft in drafts where draft.declaration?.access == .sink {
            for (input, reference) in draft.inputs.sorted(by: { $0.key < $1.key }) {
                guard let size = knownSizes[reference.node] else { continue }
                let pixels = Rect(width: size.width, height: size.height).area
                guard pixels > maxOutputPixels else { continue }
                error(
                    draft.valueLocations[input] ?? draft.location,
                    "\(draft.name).\(input): '\(reference.node)' is \(size.width)x\(size.height) (\(pixels) pixels), "
                        + "more than the output limit of \(maxOutputPixels) pixels; raise it with "
                        + "--max-output-pixels N")
            }
        }
    }

    /// Two nodes writing one file would race, and the last to finish would win: refused, naming both.
    private mutating func checkWrittenFiles(_ drafts: [Draft]) {
        var writers: [String: (node: String, parameter: String, location: SourceLocation)] = [:]
        for draft in drafts {
            guard let declaration = draft.declaration else { continue }
            for parameter in declaration.parameters where parameter.type == .path(isOutput: true) {
                guard case .value(let path as OutputPath)? = draft.parameters[parameter.name]?.source,
                    let location = draft.valueLocations[parameter.name]
                else { continue }
                guard let first = writers[path.resolved] else {
                    writers[path.resolved] = (draft.name, parameter.name, location)
                    continue
                }
                let place =
                    first.location.line > 0
                    ? "line \(first.location.line), column \(first.location.column)" : "\(first.location.file)"
                error(
                    location,
                    "\(draft.name).\(parameter.name): \(path.written) is also written by "
                        + "\(first.node).\(first.parameter) (\(place)); each file can be written by one node")
            }
        }
    }

    private mutating func warnUnused(_ drafts: [Draft]) {
        var read = Set<String>()
        for draft in drafts {
            for reference in draft.inputs.values { read.insert(reference.node) }
            for setting in draft.parameters.values {
                if case .upstream(let reference) = setting.source { read.insert(reference.node) }
            }
        }
        for draft in drafts where !read.contains(draft.name) {
            guard let declaration = draft.declaration, !declaration.outputs.isEmpty else { continue }
            diagnostics.append(
                .warning(draft.location, "nothing reads the output of \(declaration.op) node '\(draft.name)'"))
        }
    }
}

/// Tarjan's strongly connected components, for cycle reports.
enum StronglyConnected {
    /// Components of the graph whose node `i` has edges to `edges[i]`.
    ///
    /// - Cost: linear in nodes and edges. The depth-first search keeps its path in an array, not on the
    ///   call stack: a chain of 100,000 nodes once overflowed the stack here.
    static func components(_ edges: [[Int]]) -> [[Int]] {
        var index = [Int?](repeating: nil, count: edges.count)
        var low = [Int](repeating: 0, count: edges.count)
        var onStack = [Bool](repeating: false, count: edges.count)
        var stack: [Int] = []
        var next = 0
        var result: [[Int]] = []
        // The search's path: each node with the position of the next edge it will follow.
        var path: [(node: Int, edge: Int)] = []

        for root in edges.indices where index[root] == nil {
            path.append((root, 0))
            index[root] = next
            low[root] = next
            next += 1
            stack.append(root)
            onStack[root] = true
            while let (node, edge) = path.last {
                if edge < edges[node].count {
                    path[path.count - 1].edge += 1
                    let target = edges[node][edge]
                    if let targetIndex = index[target] {
                        if onStack[target] { low[node] = min(low[node], targetIndex) }
                    } else {
                        index[target] = next
                        low[target] = next
                        next += 1
                        stack.append(target)
                        onStack[target] = true
                        path.append((target, 0))
                    }
                    continue
                }
                // Every edge followed: close the node, and pass its low link to the node it was reached from.
                path.removeLast()
                if let parent = path.last?.node { low[parent] = min(low[parent], low[node]) }
                if low[node] == index[node] {
                    var component: [Int] = []
                    while let top = stack.popLast() {
                        onStack[top] = false
                        component.append(top)
                        if top == node { break }
                    }
                    result.append(component)
                }
            }
        }
        return result
    }

    /// The shortest cycle through `start` inside a strongly connected component, in data-flow order
    /// (a -> b: b reads a), starting and ending at `start`.
    static func cycle(from start: Int, within members: Set<Int>, edges: [[Int]]) -> [Int] {
        var readers: [Int: [Int]] = [:]
        for member in members.sorted() {
            for source in edges[member] where members.contains(source) { readers[source, default: []].append(member) }
        }
        // Breadth-first from `start` along data flow, until a node that `start` reads is reached.
        var previous: [Int: Int] = [start: start]
        var queue = [start]
        var head = 0
        while head < queue.count {
            let node = queue[head]
            head += 1
            if edges[start].contains(node) {
                var path = [node]
                while let last = path.last, last != start, let before = previous[last] { path.append(before) }
                return path.reversed() + [start]
            }
            for next in readers[node] ?? [] where previous[next] == nil {
                previous[next] = node
                queue.append(next)
            }
        }
        return [start, start]
    }
}

/// A binary min-heap of node indices: the earliest ready node in file order, in logarithmic time (a set's
/// `min()` scanned every ready node each time, quadratic in a wide graph).
struct MinimumHeap {
    private var items: [Int] = []

    init(_ items: [Int]) {
        for item in items { insert(item) }
    }

    mutating func insert(_ item: Int) {
        items.append(item)
        var child = items.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard items[child] < items[parent] else { break }
            items.swapAt(child, parent)
            child = parent
        }
    }

    mutating func popMinimum() -> Int? {
        guard let last = items.popLast() else { return nil }
        guard !items.isEmpty else { return last }
        let minimum = items[0]
        items[0] = last
        var parent = 0
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < items.count, items[left] < items[smallest] { smallest = left }
            if right < items.count, items[right] < items[smallest] { smallest = right }
            guard smallest != parent else { break }
            items.swapAt(parent, smallest)
            parent = smallest
        }
        return minimum
    }
}
