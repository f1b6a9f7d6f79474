import Foundation

/// One graph run over many items: the files of a folder, or the rows of a manifest (`tessera batch`).
///
/// Each item sets one parameter of the graph (the bound parameter, by default the path of the graph's
/// only file-reading node) or, from a manifest, any parameters. Output paths may name the item's
/// fields (``OutputFields``: `out/{dir}/{stem}.png`); with an output folder, every output goes there,
/// mirroring the inputs' folders. Everything that can be checked before a pixel is computed is: the
/// graph with a sample item, the inputs, and that no two items write the same file and none writes
/// over an input.
package struct Batch: Sendable {
    /// The graph file as the user named it.
    package let graphPath: String
    /// The parameter each input fills: `node.parameter`.
    package let bound: String
    /// Every item, in order (sorted paths, or the manifest's rows); shards take slices of it.
    package let items: [BatchItem]
    /// Where outputs go instead of the graph's folders (nil: as the graph, templates filled).
    package let outputFolder: String?

    let text: String
    let catalog: Catalog
    let overrides: [ParameterOverride]
    let maxOutputPixels: Int
    /// The output paths as resolved from the graph, unfilled, in running order; nil when the items set
    /// output paths themselves (a manifest column), so each item's graph must be read for them.
    let templates: [String]?

    /// Reads and checks the graph, and finds the items: files, folders and globs in `inputs`, or the rows
    /// of `manifest`. `bind` (`NODE.PARAM`) names the parameter inputs fill.
    ///
    /// - Throws: ``GraphErrors`` for the graph (with a sample item's fields in its templates), or
    ///   ``BatchError`` for the inputs, the manifest, or the outputs.
    package init(
        graph graphPath: String, catalog: Catalog, overrides: [ParameterOverride] = [], bind: String? = nil,
        inputs: [String] = [], manifest: String? = nil, outputFolder: String? = nil,
        maxOutputPixels: Int = RunOptions.defaultMaxOutputPixels
    ) throws {
        self.graphPath = graphPath
        self.catalog = catalog
        self.overrides = overrides
        self.outputFolder = outputFolder
        self.maxOutputPixels = maxOutputPixels
        text = try Graph.text(ofFile: graphPath)
        // The graph read once with a sample item, to report its errors at their lines and to learn its
        // parameters and its output templates (each template filled to a sample path of its own).
        let recorded = Locked<[(template: String, sample: String)]>([])
        let sampleRewrite = Self.outputPaths(for: OutputFields.sample(), folder: outputFolder)
        let sample = try Graph.parse(
            text, file: graphPath, baseFolder: (graphPath as NSString).deletingLastPathComponent, catalog: catalog,
            overrides: overrides, maxOutputPixels: maxOutputPixels,
            outputPaths: { template throws(ParameterProblem) in
                let filled = try sampleRewrite(template)
                recorded.withLock { $0.append((template, filled)) }
                return filled
            })
        let bound = try bind.map { try Self.check(bind: $0, in: sample) } ?? Self.defaultBind(in: sample)
        self.bound = bound

        let rows: [[ParameterOverride]]
        var found: [(path: String, root: String)] = []
        if let manifest {
            guard inputs.isEmpty else { throw BatchError("give inputs or --manifest, not both") }
            rows = try BatchInputs.manifest(manifest)
        } else {
            guard !inputs.isEmpty else { throw BatchError("no inputs: give files, folders, globs or --manifest") }
            found = try BatchInputs.files(inputs)
            guard !found.isEmpty else {
                throw BatchError(
                    "no image files in \(inputs.joined(separator: ", ")) (the extensions read: "
                        + BatchInputs.imageExtensions.sorted().joined(separator: ", ") + ")")
            }
            rows = []
        }
        let parts = bound.split(separator: ".", maxSplits: 1).map(String.init)
        if manifest != nil {
            items = rows.enumerated().map { index, settings in
                let input = settings.last { "\($0.node).\($0.parameter)" == bound }?.value
                let fields = input.map { OutputFields(input: $0, root: "", index: index) } ?? OutputFields(index: index)
                return BatchItem(index: index, input: input, fields: fields, settings: settings)
            }
        } else {
            items = found.enumerated().map { index, file in
                BatchItem(
                    index: index, input: file.path,
                    fields: OutputFields(input: file.path, root: file.root, index: index),
                    settings: [
                        ParameterOverride(node: parts[0], parameter: parts[1], value: file.path, origin: file.path)
                    ])
            }
        }
        let outputParameters = Set(
            sample.nodes.flatMap { node in
                node.declaration.parameters.filter { $0.type == .path(isOutput: true) }.map {
                    "\(node.name).\($0.name)"
                }
            })
        let itemsSetOutputs = rows.contains { $0.contains { outputParameters.contains("\($0.node).\($0.parameter)") } }
        let pairs = recorded.withLock { $0 }
        templates =
            itemsSetOutputs
            ? nil
            : sample.writtenFiles.map { written in pairs.first { $0.sample == written }?.template ?? written }
        try checkOutputs()
    }

    /// The graph's folder, which relative paths in it resolve against.
    var graphFolder: String { (graphPath as NSString).deletingLastPathComponent }

    /// The item's graph: the file with `--set` values, the item's settings and its output paths filled.
    package func graph(for item: BatchItem) throws(GraphErrors) -> Graph {
        try Graph.parse(
            text, file: graphPath, baseFolder: graphFolder, catalog: catalog, overrides: overrides + item.settings,
            maxOutputPixels: maxOutputPixels, outputPaths: Self.outputPaths(for: item.fields, folder: outputFolder))
    }

    /// The files the item writes.
    package func outputs(of item: BatchItem) throws -> [String] {
        guard let templates else { return try graph(for: item).writtenFiles }
        let rewrite = Self.outputPaths(for: item.fields, folder: outputFolder)
        return try templates.map { template throws in try rewrite(template) }
    }

    /// How an item's fields rewrite an output path (resolved against the graph's folder): its template
    /// filled; or, with an output folder, its file name filled (`{stem}-` put before a name that names
    /// no field, so that items do not overwrite each other) in the folder, under the item's `{dir}`.
    /// A path that would still end outside the output folder (a `{name}` of `..`) is refused.
    static func outputPaths(for fields: OutputFields, folder: String?)
        -> @Sendable (String) throws(ParameterProblem)
        -> String
    {
        { resolved throws(ParameterProblem) in
            // Resolved again: an empty {dir} leaves a `//`.
            guard let folder else { return ParameterContext(baseFolder: "").resolve(try fields.fill(resolved)) }
            var name = (resolved as NSString).lastPathComponent
            if !OutputFields.isTemplate(name) { name = (fields.name.isEmpty ? "{index}-" : "{stem}-") + name }
            let filled = try fields.fill(name)
            let path = ParameterContext(baseFolder: folder).resolve(
                fields.dir.isEmpty ? filled : fields.dir + "/" + filled)
            guard isInside(path, folder: folder) else {
                throw ParameterProblem(
                    "the output path '\(name)' makes \(path), which is outside --output-dir \(folder): an output "
                        + "path's fields may not climb out of it")
            }
            return path
        }
    }

    /// Whether `path` (resolved, as ``ParameterContext/resolve(_:)`` gives it) names a file inside `folder`.
    static func isInside(_ path: String, folder: String) -> Bool {
        let base = ParameterContext(baseFolder: "").resolve(folder)
        if base == "." { return !path.hasPrefix("/") && path != "." && path != ".." && !path.hasPrefix("../") }
        return path.hasPrefix(base.hasSuffix("/") ? base : base + "/")
    }

    /// The default bound parameter: the graph's only parameter that names a file to read. Optional ones
    /// the graph leaves unset (a colorSpace node's `profile`) read nothing, and do not count.
    static func defaultBind(in graph: Graph) throws(BatchError) -> String {
        let reading = graph.nodes.flatMap { node in
            node.declaration.parameters.filter { parameter in
                guard parameter.type == .path(isOutput: false) else { return false }
                switch node.parameters[parameter.name]?.source {
                case .value(let value): return value.literal != .null
                case .upstream: return true
                case nil: return parameter.defaultValue == nil
                }
            }.map { "\(node.name).\($0.name)" }
        }
        guard reading.count == 1 else {
            throw BatchError(
                reading.isEmpty
                    ? "\(graph.file): no node reads a file; name the parameter each input sets with --bind NODE.PARAM"
                    : "\(graph.file) reads \(reading.count) files (\(reading.joined(separator: ", "))): name the one "
                        + "each input sets with --bind NODE.PARAM")
        }
        return reading[0]
    }

    /// `text` (`NODE.PARAM`) if the graph has that node and parameter.
    static func check(bind text: String, in graph: Graph) throws(BatchError) -> String {
        let parts = text.split(separator: ".", maxSplits: 1).map(String.init)
        guard parts.count == 2 else { throw BatchError("--bind \(text): expected NODE.PARAMETER, as photo.path") }
        guard let node = graph.node(named: parts[0]) else {
            throw BatchError(
                "--bind \(text): no node '\(parts[0])'" + Suggestion.didYouMean(parts[0], in: graph.nodes.map(\.name)))
        }
        guard node.declaration.parameter(named: parts[1]) != nil else {
            let names = node.declaration.parameters.map(\.name)
            throw BatchError(
                "--bind \(text): \(node.declaration.op) node '\(parts[0])' has no parameter '\(parts[1])'"
                    + Suggestion.didYouMean(parts[1], in: names))
        }
        return text
    }

    /// Refuses, before anything runs, two items that would write the same file and an item that would
    /// write over an input.
    func checkOutputs() throws {
        let resolve = ParameterContext(baseFolder: "").resolve
        let inputs = Dictionary(items.compactMap { item in item.input.map { (resolve($0), item) } }) { first, _ in first
        }
        var writers: [String: BatchItem] = [:]
        for item in items {
            let written: [String]
            do {
                written = try outputs(of: item)
            } catch let problem as ParameterProblem {
                throw BatchError("\(label(item)): \(problem.message)")
            } catch is GraphErrors {
                continue  // a manifest row's bad value: the item fails alone when it runs, with the message
            }
            for output in written {
                let key = resolve(output)
                if let input = inputs[key] {
                    guard input.index != item.index else {
                        throw BatchError(
                            "\(label(item)) would write over itself: choose another output path or --output-dir")
                    }
                    throw BatchError(
                        "\(label(item)) would write \(output), which is the input of \(label(input)): "
                            + "choose another output path or --output-dir")
                }
                if let other = writers.updateValue(item, forKey: key), other.index != item.index {
                    throw BatchError(
                        "\(label(other)) and \(label(item)) would both write \(output): put {stem} (or {index}) in "
                            + "the output path, as --set NODE.path='out/{stem}.png', or give --output-dir")
                }
            }
        }
    }

    /// The item as messages name it: its input, or its number.
    package func label(_ item: BatchItem) -> String {
        item.input ?? "item \(item.index)" + (item.settings.first?.origin.map { " (\($0))" } ?? "")
    }

    /// Whether the item's outputs (``outputs(of:)``) all exist and are newer than its input and the graph
    /// file.
    package func isDone(_ item: BatchItem, outputs: [String]) -> Bool {
        guard !outputs.isEmpty else { return false }
        let sources = [graphPath] + (item.input.map { [$0] } ?? [])
        let newest = sources.compactMap(Self.modified).max() ?? .distantFuture
        return outputs.allSatisfy { output in Self.modified(output).map { $0 > newest } ?? false }
    }

    static func modified(_ path: String) -> Date? {
        (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date
    }
}

extension Graph {
    /// Reads the graph at `path` as `tessera run` does: output templates (`out/{stem}.png`) filled from
    /// the file the graph reads (its only file-reading parameter, after `overrides`), as a batch of that
    /// one file would fill them, `{dir}` empty and `{index}` 0.
    ///
    /// - Throws: ``GraphErrors``; a template in a graph that reads no file or several is an error at
    ///   its parameter.
    package static func loadFillingTemplates(
        path: String, catalog: Catalog, overrides: [ParameterOverride] = [],
        maxOutputPixels: Int = RunOptions.defaultMaxOutputPixels
    ) throws(GraphErrors) -> Graph {
        let templated = Locked(false)
        let sample = OutputFields.sample()
        let graph = try load(
            path: path, catalog: catalog, overrides: overrides, maxOutputPixels: maxOutputPixels,
            outputPaths: { path throws(ParameterProblem) in
                guard path.contains("{") else { return path }
                templated.withLock { $0 = true }
                return try sample.fill(path)
            })
        guard templated.withLock({ $0 }) else { return graph }
        let input: String
        do {
            let bound = try Batch.defaultBind(in: graph).split(separator: ".", maxSplits: 1).map(String.init)
            guard case .value(let file as FilePath)? = graph.node(named: bound[0])?.parameters[bound[1]]?.source else {
                throw BatchError("\(graph.file): \(bound.joined(separator: ".")) is not set to a file")
            }
            input = file.resolved
        } catch {
            let message =
                "an output path names {stem} or the like, which are filled from the file the graph reads: \(error)"
            throw GraphErrors(diagnostics: [.error(SourceLocation(file: path), message)])
        }
        let fields = OutputFields(input: input, root: (input as NSString).deletingLastPathComponent, index: 0)
        return try load(
            path: path, catalog: catalog, overrides: overrides, maxOutputPixels: maxOutputPixels,
            outputPaths: { path throws(ParameterProblem) in
                ParameterContext(baseFolder: "").resolve(try fields.fill(path))
            })
    }
}

extension Graph {
    /// Creates the folders of the files the graph writes: of every one (a batch's output tree), or of
    /// those whose paths are templates (`out/{dir}/...`: `tessera run`).
    package func createOutputFolders(templatesOnly: Bool) throws {
        for node in nodes {
            for case .value(let path as OutputPath)? in node.parameters.values.map(\.source)
            where !templatesOnly || OutputFields.isTemplate(path.written) {
                let folder = (path.resolved as NSString).deletingLastPathComponent
                if !folder.isEmpty { try Self.createFolder(folder) }
            }
        }
    }

    /// Creates `folder` and the folders above it that are missing, as `mkdir -p`; a failure is one line
    /// naming the folder and the reason (`out/a: cannot create the folder: out is a file`), not
    /// Foundation's error dump.
    package static func createFolder(_ folder: String) throws(ImageError) {
        var path = folder.hasPrefix("/") ? "/" : ""
        for part in folder.split(separator: "/") {
            path += part
            if mkdir(path, 0o777) != 0 {
                let code = errno
                var isFolder: ObjCBool = false
                if code == EEXIST, FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) {
                    guard isFolder.boolValue else {
                        throw ImageError(path: folder, message: "cannot create the folder: \(path) is a file")
                    }
                } else {
                    throw ImageError(
                        path: folder,
                        message: "cannot create the folder: " + String(cString: strerror(code)).lowercased())
                }
            }
            path += "/"
        }
    }
}
