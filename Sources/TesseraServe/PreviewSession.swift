import Dispatch
import Foundation
import Tessera

/// One served graph file: watched for changes, rendered at preview size, and the page's state and
/// thumbnails kept for the server. Renders run one at a time on a queue of their own; a change while
/// one runs cancels it and starts the next.
///
/// It reads only what its user means it to: the graph file and the files its nodes name, each a regular
/// file (a FIFO would block the render) inside the served folder, unless made with `readsAnywhere`.
public final class PreviewSession: @unchecked Sendable {
    /// The folder the page may open graphs from (the first graph's), symbolic links resolved.
    public let folder: String
    let catalog: Catalog
    /// The command's `--set` options: applied first, under the page's own.
    let commandOverrides: [ParameterOverride]
    /// Sources are decoded smaller (`load`'s `shrink`: 2, 4 or 8) while their longer side stays at least this.
    let previewSide: Int

    private let lock = NSLock()
    private var graphPath: String
    private var state = PreviewState()
    private var thumbnails: [Data] = []
    private var pageOverrides: [String: String] = [:]
    private var stamp: FileStamp?
    private var running: Cancellation?
    private var renderQueued = false
    private var listeners: [UUID: @Sendable (Int) -> Void] = [:]
    private var dotCache: (dot: String, svg: String?)?
    private let queue = DispatchQueue(label: "tessera.serve.render")
    private var timer: (any DispatchSourceTimer)?
    /// A folder for the thumbnails being encoded and any file a preview node writes: it exists only while
    /// a render runs, so no exit (even a kill between renders) leaves it behind.
    private let scratch: String
    /// The most nodes the preview renders: a thumbnail each is more than a page can show, and the run's
    /// plan takes time quadratic in the nodes before its first tile (RenderPlan looks images up by name
    /// in a list), which no edit could cancel: 12,000 nodes took minutes.
    static let maximumPreviewNodes = 2000
    /// True once ``shutDown()`` ran: no render starts after.
    private var isShutDown = false
    /// Whether the graph may read files outside ``folder`` (`tessera serve --read-anywhere`).
    let readsAnywhere: Bool

    /// - Parameters:
    ///   - path: the graph file; its folder becomes the served folder.
    ///   - overrides: `--set` options, applied under the page's.
    ///   - readsAnywhere: let the graph read files outside its folder.
    public init(
        path: String, catalog: Catalog, overrides: [ParameterOverride], previewSide: Int = 512,
        readsAnywhere: Bool = false
    ) throws {
        let absolute = URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath()
        guard FileManager.default.fileExists(atPath: absolute.path) else {
            throw ServeError(status: 404, "no such graph file: \(path)")
        }
        if let kind = Self.specialKind(absolute.path) {
            throw ServeError(status: 400, "\(path) is \(kind), not a graph file")
        }
        self.readsAnywhere = readsAnywhere
        folder = absolute.deletingLastPathComponent().path
        graphPath = absolute.path
        self.catalog = catalog
        commandOverrides = overrides
        self.previewSide = previewSide
        scratch =
            FileManager.default.temporaryDirectory.appendingPathComponent("tessera-serve-\(UUID().uuidString)")
            .path
    }

    deinit { try? FileManager.default.removeItem(atPath: scratch) }

    /// Stops watching and rendering for good: cancels the render under way and removes the scratch
    /// folder (the command calls it on Ctrl-C and SIGTERM before it exits).
    public func shutDown() {
        let (timer, running) = lock.withLock {
            isShutDown = true
            return (self.timer, self.running)
        }
        timer?.cancel()
        running?.cancel()
        try? FileManager.default.removeItem(atPath: scratch)
    }

    /// Renders now, then checks the file's modification time, size and inode every 100 ms and renders
    /// again when one changes (an editor's in-place write or its rename over the file alike).
    public func start() {
        stamp = FileStamp(path: currentPath)
        requestRender()
        let timer = DispatchSource.makeTimerSource(queue: .global())
        timer.schedule(deadline: .now() + .milliseconds(100), repeating: .milliseconds(100))
        timer.setEventHandler { [weak self] in self?.checkFile() }
        timer.resume()
        lock.withLock { self.timer = timer }
    }

    public func stop() {
        lock.withLock { timer }?.cancel()
    }

    var currentPath: String { lock.withLock { graphPath } }

    /// The page's state now, as JSON.
    func stateJSON() -> Data {
        let state = lock.withLock { self.state }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? encoder.encode(state)) ?? Data("{}".utf8)
    }

    var version: Int { lock.withLock { state.version } }

    /// The PNG of thumbnail `index` of render `version`; nil once a newer render replaced it.
    func thumbnail(version: Int, index: Int) -> Data? {
        lock.withLock {
            guard version == state.version, thumbnails.indices.contains(index) else { return nil }
            return thumbnails[index]
        }
    }

    /// Calls `listener` with the version of each new render; returns what removes it.
    func listen(_ listener: @escaping @Sendable (Int) -> Void) -> UUID {
        let id = UUID()
        lock.withLock { listeners[id] = listener }
        return id
    }

    func stopListening(_ id: UUID) { _ = lock.withLock { listeners.removeValue(forKey: id) } }

    private func checkFile() {
        let now = FileStamp(path: currentPath)
        let changed = lock.withLock {
            guard now != stamp else { return false }
            stamp = now
            return true
        }
        if changed { requestRender() }
    }

    /// Cancels a render under way and queues one (one at most waits).
    func requestRender() {
        let queue = lock.withLock {
            running?.cancel()
            defer { renderQueued = true }
            return !renderQueued
        }
        guard queue else { return }
        self.queue.async { [self] in
            lock.withLock { renderQueued = false }
            render()
        }
    }

    // MARK: What the page asks

    /// Applies the page's overrides (`node.parameter` to a value written as in the file), replacing the
    /// previous ones, once they are read and checked against the graph.
    func setOverrides(_ overrides: [String: String]) throws(ServeError) {
        guard overrides.count <= 200, overrides.allSatisfy({ $0.key.utf8.count + $0.value.utf8.count < 1000 }) else {
            throw ServeError(status: 413, "at most 200 overrides of under 1000 characters each")
        }
        var parsed: [ParameterOverride] = []
        for (key, value) in overrides.sorted(by: { $0.key < $1.key }) {
            do {
                parsed.append(try ParameterOverride(parsing: "\(key)=\(value)"))
            } catch {
                throw ServeError(status: 400, error.description)
            }
        }
        let path = currentPath
        if let text = try? Self.readGraph(path) {
            do {
                let graph = try parse(text, path: path, overrides: commandOverrides + parsed)
                // Where the graph writes is the file's to say: "Write to file" would put it there for the
                // next run.
                for override in parsed
                where graph.node(named: override.node)?.declaration.parameter(named: override.parameter)?.type
                    == .path(isOutput: true)
                {
                    throw ServeError(
                        status: 403,
                        "the page cannot change where \(override.node) writes; edit \(override.parameter) in the file")
                }
                // A page may not point a node at a file the graph could not read itself.
                let refused = fileProblems(in: graph).filter { overrides[$0.setting] != nil }
                if !refused.isEmpty {
                    throw ServeError(status: 403, refused.map(\.message).joined(separator: "\n"))
                }
            } catch let error as GraphErrors {
                // Problems in the file itself show on the page; those of the overrides refuse them.
                let own = error.diagnostics.filter { $0.severity == .error && $0.location.line == 0 }
                if !own.isEmpty { throw ServeError(status: 422, own.map(\.description).joined(separator: "\n")) }
            } catch let error as ServeError {
                throw error
            } catch {
                throw ServeError(status: 500, "\(error)")
            }
        }
        lock.withLock { pageOverrides = overrides }
        requestRender()
    }

    /// Writes the page's overrides into the graph file, each value's text replaced where it is written
    /// (comments and layout kept), then clears them: the file now says what the page showed.
    @discardableResult
    func writeOverrides() throws(ServeError) -> Int {
        let (path, overrides) = lock.withLock { (graphPath, pageOverrides) }
        guard !overrides.isEmpty else { return 0 }
        let parsed = overrides.sorted { $0.key < $1.key }.compactMap {
            try? ParameterOverride(parsing: "\($0.key)=\($0.value)")
        }
        do {
            let text = try Self.readGraph(path)
            // The values as the preview read them (typed by their parameters), written as values: the
            // page's text never reaches the file.
            let graph = try parse(text, path: path, overrides: commandOverrides + parsed)
            let edits = try parsed.map { override throws(GraphErrors) in
                guard case .value(let value)? = graph.node(named: override.node)?.parameters[override.parameter]?.source
                else {
                    throw GraphErrors(diagnostics: [
                        .error(
                            SourceLocation(file: "page"), "\(override.node).\(override.parameter) has no value to write"
                        )
                    ])
                }
                return ParameterEdit(
                    node: override.node, parameter: override.parameter, value: value.literal,
                    origin: SourceLocation(file: "page: \(override.text)"))
            }
            let edited = try Graph.settingParameters(edits, inText: text, file: path)
            _ = try parse(edited, path: path, overrides: commandOverrides)
            try FileSystem.write(edited, atomicallyTo: path)
        } catch let error as GraphErrors {
            throw ServeError(status: 422, error.description)
        } catch {
            throw ServeError(status: 500, "cannot write \(path): \(error)")
        }
        lock.withLock { pageOverrides = [:] }
        checkFile()
        requestRender()
        return parsed.count
    }

    /// Serves another graph file of the served folder, named relative to it.
    func open(graph name: String) throws(ServeError) {
        guard !name.isEmpty, name.utf8.count < 1000 else { throw ServeError(status: 400, "name a graph file") }
        let url = URL(fileURLWithPath: name, relativeTo: URL(fileURLWithPath: folder, isDirectory: true))
            .standardizedFileURL.resolvingSymlinksInPath()
        guard url.path.hasPrefix(folder + "/") else {
            throw ServeError(status: 403, "'\(name)' is outside the served folder \(folder)")
        }
        guard Self.isGraphFile(url.path) else {
            throw ServeError(status: 400, "'\(name)' is not a graph file (.yaml, .yml or .json)")
        }
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw ServeError(status: 404, "no graph file '\(name)' in \(folder)")
        }
        if let kind = Self.specialKind(url.path) {
            throw ServeError(status: 400, "'\(name)' is \(kind), not a graph file")
        }
        lock.withLock {
            graphPath = url.path
            pageOverrides = [:]
            stamp = FileStamp(path: url.path)
        }
        requestRender()
    }

    static func isGraphFile(_ path: String) -> Bool {
        ["yaml", "yml", "json"].contains((path as NSString).pathExtension.lowercased())
    }

    // MARK: Rendering

    private func parse(_ text: String, path: String, overrides: [ParameterOverride]) throws(GraphErrors) -> Graph {
        let scratch = scratch
        return try Graph.parse(
            text, file: path, baseFolder: (path as NSString).deletingLastPathComponent, catalog: catalog,
            overrides: overrides,
            // Nothing the preview runs writes where the graph says: sinks are left out, and any other
            // output path is turned into the session's scratch folder.
            outputPaths: { scratch + "/" + ($0 as NSString).lastPathComponent })
    }

    /// Reads, validates and renders the graph at preview size, then publishes the new state.
    func render() {
        let started = DispatchTime.now()
        let cancellation = Cancellation()
        let begun: (path: String, overrides: [String: String], previous: PreviewState)? = lock.withLock {
            guard !isShutDown else { return nil }
            running = cancellation
            return (graphPath, pageOverrides, state)
        }
        guard let (path, overrides, previous) = begun else { return }
        try? FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        var next = PreviewState()
        next.file = displayName(path)
        next.overrides = overrides
        next.graphs = graphFiles()
        var images: [Data] = []
        defer {
            next.milliseconds = Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e6
            publish(next, thumbnails: images, cancelled: cancellation.isCancelled)
        }
        let text: String
        do {
            text = try Self.readGraph(path)
        } catch {
            next.problems = error.diagnostics.map(problem)
            next.stale = true
            next.nodes = previous.nodes
            return
        }
        next.lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let pageSettings = overrides.sorted { $0.key < $1.key }.compactMap {
            try? ParameterOverride(parsing: "\($0.key)=\($0.value)")
        }
        let graph: Graph
        do {
            graph = try parse(text, path: path, overrides: commandOverrides + pageSettings)
        } catch {
            next.problems = error.diagnostics.map(problem)
            next.stale = true
            next.nodes = previous.nodes
            next.graphSVG = previous.graphSVG
            next.previewShrink = previous.previewShrink
            return
        }
        next.problems = graph.warnings.map(problem)
        if graph.nodes.count > Self.maximumPreviewNodes {
            let at = graph.nodes[Self.maximumPreviewNodes].location
            let message =
                "the graph has \(graph.nodes.count) nodes; the preview shows graphs of at most "
                + "\(Self.maximumPreviewNodes) (tessera run renders it)"
            next.problems.append(
                .init(
                    severity: "error", line: at.line, column: at.column, message: message,
                    text: "\(at): error: \(message)"))
            next.stale = true
            return
        }
        let refused = fileProblems(in: graph)
        if !refused.isEmpty {
            next.problems += refused.map(\.problem)
            next.stale = true
            next.nodes = previous.nodes
            next.graphSVG = previous.graphSVG
            next.previewShrink = previous.previewShrink
            return
        }
        if cancellation.isCancelled { return }
        // Top to bottom: the page's graph panel is narrower than it is tall.
        next.graphSVG = svg(
            graph.dot.replacingOccurrences(of: "rankdir=LR;", with: "rankdir=TB;"), cancellation: cancellation)
        if cancellation.isCancelled { return }
        let (shrink, scaling) = previewOverrides(for: graph)
        next.previewShrink = shrink
        var preview =
            (try? parse(text, path: path, overrides: commandOverrides + pageSettings + scaling)) ?? graph
        preview.nodes.removeAll { $0.declaration.outputs.isEmpty }
        var report: RunReport?
        do {
            report = try preview.run(
                options: RunOptions(cancellation: cancellation), keeping: preview.nodes.map(\.name))
        } catch {
            if cancellation.isCancelled { return }
            let at = error.location
            next.problems.append(
                .init(
                    severity: "error", line: at.line, column: at.column, message: "\(error.node): \(error.message)",
                    text: error.description))
        }
        let seconds = Dictionary(
            (report?.nodes ?? []).map { ($0.node, $0.seconds) }, uniquingKeysWith: { first, _ in first })
        for node in graph.nodes {
            // Each thumbnail is a PNG to encode: a long chain has many, and a newer edit need not wait for them.
            if cancellation.isCancelled { return }
            var card = PreviewState.NodeCard(
                name: node.name, op: node.declaration.op, line: node.location.line,
                inputs: Array(Set(node.references.map(\.node))).sorted(), outputs: [],
                milliseconds: seconds[node.name].map { $0 * 1000 },
                controls: node.declaration.outputs.isEmpty ? [] : controls(of: node))
            if node.declaration.outputs.isEmpty {
                let written = node.parameters.values.compactMap { setting -> String? in
                    guard case .value(let value) = setting.source, let path = value as? OutputPath else { return nil }
                    return path.written
                }
                card.note = "writes " + (written.first ?? "a file") + " when run (not by the preview)"
            }
            for port in node.declaration.outputs {
                var output = PreviewState.Output(port: port.name, kind: port.type.rawValue)
                switch report?.outputs["\(node.name).\(port.name)"] {
                case .image(let image)?:
                    output.width = image.width
                    output.height = image.height
                    if let png = encode(image) {
                        output.thumbnail = "/thumbs/\(previous.version + 1)/\(images.count).png"
                        images.append(png)
                    }
                case let value?:
                    output.json = ValueJSON.encode(value)
                    output.overlay = node.inputs.keys.sorted {
                        ($0 == "input" ? 0 : 1, $0) < ($1 == "input" ? 0 : 1, $1)
                    }.lazy
                        .compactMap { node.inputs[$0] }
                        .first { reference in
                            graph.node(named: reference.node)?.declaration.outputs.first { $0.name == reference.port }?
                                .type == .image
                        }
                        .map { "\($0.node).\($0.port)" }
                case nil:
                    break
                }
                card.outputs.append(output)
            }
            next.nodes.append(card)
        }
    }

    private func publish(_ next: PreviewState, thumbnails images: [Data], cancelled: Bool) {
        // A cancelled render's state is partial: the next render, already queued, replaces it.
        guard !cancelled else { return }
        let (version, listeners) = lock.withLock {
            var next = next
            next.version = state.version + 1
            state = next
            thumbnails = images
            return (next.version, Array(self.listeners.values))
        }
        for listener in listeners { listener(version) }
    }

    private func problem(_ diagnostic: Diagnostic) -> PreviewState.Problem {
        .init(
            severity: diagnostic.severity.rawValue, line: diagnostic.location.line,
            column: diagnostic.location.column, message: diagnostic.message, text: diagnostic.description)
    }

    private func displayName(_ path: String) -> String {
        path.hasPrefix(folder + "/") ? String(path.dropFirst(folder.count + 1)) : path
    }

    private func graphFiles() -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return names.filter { Self.isGraphFile($0) && !$0.hasPrefix(".") }.sorted()
    }

    /// A thumbnail as an 8-bit PNG (fast zlib level: it is read once, on this machine).
    private func encode(_ image: Image) -> Data? {
        let file = scratch + "/thumb-\(UUID().uuidString).png"
        defer { try? FileManager.default.removeItem(atPath: file) }
        var options = EncodeOptions()
        options.depth = .uint8
        options.pngLevel = 1
        options.metadata = .strip
        do {
            try ImageFile.save(image, to: file, options: options)
            return try Data(contentsOf: URL(fileURLWithPath: file))
        } catch {
            return nil
        }
    }

    /// The graph drawn by Graphviz's `dot` as SVG, when it is installed (the last drawing is reused
    /// while the graph's DOT text is the same). Graphs of more than ``maximumDrawnNodes`` nodes, a
    /// drawing that takes over ``drawingSeconds``, or one that a newer edit cancels are left to the
    /// page's plain layout.
    private func svg(_ dot: String, cancellation: Cancellation) -> String? {
        if let cached = lock.withLock({ dotCache }), cached.dot == dot { return cached.svg }
        let nodes = dot.components(separatedBy: "\n").count
        guard nodes <= Self.maximumDrawnLines else { return nil }
        let svg = Self.runDot(dot, cancellation: cancellation)
        if !cancellation.isCancelled { lock.withLock { dotCache = (dot, svg) } }
        return svg
    }

    /// DOT text longer than this (about a node or an edge a line) is not drawn: Graphviz took a minute and
    /// a half on a chain of a few thousand nodes, during which the page could not follow an edit.
    static let maximumDrawnLines = 2000
    static let drawingSeconds = 10.0

    static let dotExecutable: String? = {
        let folders = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin").split(separator: ":")
        return folders.map { "\($0)/dot" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }()

    private static func runDot(_ dot: String, cancellation: Cancellation) -> String? {
        guard let executable = dotExecutable else { return nil }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["-Tsvg"]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            return nil
        }
        // Written and read on other threads, so a large graph cannot fill both pipes at once, and this one
        // can stop the drawing when it takes too long or a newer edit arrives.
        DispatchQueue.global().async {
            // Throws (EPIPE) rather than trapping when the drawing was stopped before it read everything.
            try? input.fileHandleForWriting.write(contentsOf: Data(dot.utf8))
            try? input.fileHandleForWriting.close()
        }
        let read = Locked<Data?>(nil)
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            let data = output.fileHandleForReading.readDataToEndOfFile()
            read.withLock { $0 = data }
            done.signal()
        }
        let deadline = DispatchTime.now() + drawingSeconds
        while done.wait(timeout: .now() + .milliseconds(20)) == .timedOut {
            guard !cancellation.isCancelled, DispatchTime.now() < deadline else {
                process.terminate()
                process.waitUntilExit()
                return nil
            }
        }
        process.waitUntilExit()
        guard process.terminationStatus == 0, let data = read.withLock({ $0 }),
            let text = String(data: data, encoding: .utf8), let start = text.range(of: "<svg")
        else { return nil }
        return String(text[start.lowerBound...])
    }
}

/// What a file looked like when last seen: a change of any part means it was written.
struct FileStamp: Equatable {
    var modified: timespec
    var size: Int
    var inode: UInt

    init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        modified = info.st_mtim
        size = Int(info.st_size)
        inode = UInt(info.st_ino)
    }

    static func == (a: FileStamp, b: FileStamp) -> Bool {
        (a.modified.tv_sec, a.modified.tv_nsec, a.size, a.inode) == (
            b.modified.tv_sec, b.modified.tv_nsec, b.size, b.inode
        )
    }
}

/// A request the server refuses: its HTTP status and a message for the person (or page) that sent it.
public struct ServeError: Error, Sendable, CustomStringConvertible {
    public var status: Int
    public var description: String

    init(status: Int, _ description: String) {
        self.status = status
        self.description = description
    }
}
