import Foundation
import CTessera
import Tessera

// The C API of include/tessera.h (Sources/CTessera), built as libtessera.so. Only C types cross: a graph
// is an opaque pointer to a retained `GraphHandle`; messages are C strings the library owns.

/// The nodes graphs loaded through the C API may use: the built-ins and the plugins loaded so far.
private let sharedCatalog = Locked(Catalog.builtin())

/// A graph as C holds it: where it came from, so that it can be validated again with more overrides.
final class GraphHandle {
    enum Origin {
        case file(String)
        case text(String, baseFolder: String)
    }

    let origin: Origin
    var overrides: [ParameterOverride] = []
    var graph: Graph {
        didSet { prepared = nil }
    }
    /// The graph prepared by the first run, reused by the next ones while inputs keep their shapes
    /// (``PreparedGraph``); dropped when the graph or the outputs kept change.
    var prepared: PreparedGraph?
    var outputs = CString("")
    /// The last run's report, for its values.
    var report: RunReport?
    /// The last JSON handed out, valid until the next call on the graph.
    var json = CString("")
    /// Images supplied to `input` nodes, by node name, and the nodes whose images runs keep.
    var inputs: [String: NodeValue] = [:]
    var keeping: [String] = [] {
        didSet { prepared = nil }
    }
    var progress:
        (callback: @convention(c) (Double, UnsafeMutableRawPointer?) -> Int32, userData: UnsafeMutableRawPointer?)?
    /// The cancellation of the run in progress or the next one: the one thing other threads touch.
    let cancellation = Locked(Cancellation())

    init(origin: Origin) throws(GraphErrors) {
        self.origin = origin
        graph = try Self.validate(origin, overrides: [])
    }

    static func validate(_ origin: Origin, overrides: [ParameterOverride]) throws(GraphErrors) -> Graph {
        let catalog = sharedCatalog.withLock { $0 }
        switch origin {
        case .file(let path): return try Graph.load(path: path, catalog: catalog, overrides: overrides)
        case .text(let text, let folder):
            return try Graph.parse(text, file: "graph", baseFolder: folder, catalog: catalog, overrides: overrides)
        }
    }
}

/// A C string owned by the library.
final class CString: @unchecked Sendable {  // immutable: the pointer and its bytes never change
    let pointer: UnsafeMutablePointer<CChar>
    init(_ text: String) { pointer = strdup(text) }
    deinit { free(pointer) }
}

/// A failure as the calling thread's last: its message and, for a graph's, where it is written.
final class Failure {
    let message: CString
    let file: CString?
    let line: Int32
    let column: Int32

    init(_ error: any Error) {
        message = CString(String(describing: error))
        let location: SourceLocation? =
            switch error {
            case let error as GraphErrors: error.diagnostics.first?.location
            case let error as RunError: error.location
            default: nil
            }
        file = location.map { CString($0.file) }
        line = Int32(clamping: location?.line ?? 0)
        column = Int32(clamping: location?.column ?? 0)
    }

    init(message: String) {
        self.message = CString(message)
        (file, line, column) = (nil, 0, 0)
    }

    static var last: Failure? { Thread.current.threadDictionary["tessera.error"] as? Failure }
}

/// Records `message` as the calling thread's last failure and returns `result`.
private func fail<T>(_ message: String, _ result: T) -> T {
    Thread.current.threadDictionary["tessera.error"] = Failure(message: message)
    return result
}

/// Records `error` (with its place, for a graph's) as the calling thread's last failure.
private func fail<T>(_ error: any Error, _ result: T) -> T {
    Thread.current.threadDictionary["tessera.error"] = Failure(error)
    return result
}

private func handle(_ graph: OpaquePointer?) -> GraphHandle? {
    graph.map { Unmanaged<GraphHandle>.fromOpaque(UnsafeRawPointer($0)).takeUnretainedValue() }
}

private func make(_ origin: GraphHandle.Origin) -> OpaquePointer? {
    do {
        return OpaquePointer(Unmanaged.passRetained(try GraphHandle(origin: origin)).toOpaque())
    } catch {
        return fail(error, nil)
    }
}

private let version = CString(TesseraVersion.string)

@_cdecl("tessera_version")
public func tesseraVersion() -> UnsafePointer<CChar> { UnsafePointer(version.pointer) }

@_cdecl("tessera_last_error")
public func tesseraLastError() -> UnsafePointer<CChar> {
    if let failure = Failure.last { return UnsafePointer(failure.message.pointer) }
    return UnsafePointer(version.pointer.advanced(by: strlen(version.pointer)))  // ""
}

@_cdecl("tessera_load_plugin")
public func tesseraLoadPlugin(_ path: UnsafePointer<CChar>?) -> Int32 {
    guard let path else { return fail("no plugin path", 1) }
    do {
        let plugin = try Plugin(path: String(cString: path))
        try sharedCatalog.withLock { catalog throws(PluginError) in try catalog.register(plugin) }
        return 0
    } catch {
        return fail(error, 1)
    }
}

@_cdecl("tessera_graph_load")
public func tesseraGraphLoad(_ path: UnsafePointer<CChar>?) -> OpaquePointer? {
    guard let path else { return fail("no graph path", nil) }
    return make(.file(String(cString: path)))
}

@_cdecl("tessera_graph_parse")
public func tesseraGraphParse(_ text: UnsafePointer<CChar>?, _ baseFolder: UnsafePointer<CChar>?) -> OpaquePointer? {
    guard let text else { return fail("no graph text", nil) }
    let folder = baseFolder.map { String(cString: $0) } ?? FileManager.default.currentDirectoryPath
    return make(.text(String(cString: text), baseFolder: folder))
}

@_cdecl("tessera_graph_set")
public func tesseraGraphSet(_ graph: OpaquePointer?, _ assignment: UnsafePointer<CChar>?) -> Int32 {
    guard let handle = handle(graph), let assignment else { return fail("no graph or assignment", 2) }
    do {
        let override = try ParameterOverride(parsing: String(cString: assignment))
        let overrides = handle.overrides + [override]
        handle.graph = try GraphHandle.validate(handle.origin, overrides: overrides)
        handle.overrides = overrides
        return 0
    } catch {
        return fail(error, 2)
    }
}

@_cdecl("tessera_graph_run")
public func tesseraGraphRun(_ graph: OpaquePointer?, _ threads: Int32) -> Int32 {
    guard let handle = handle(graph) else { return fail("no graph", 1) }
    let workers = threads == 0 ? RunOptions.cores : Int(threads)
    if threads != 0, let problem = RunOptions.problem(threads: workers, tileSize: RunOptions.defaultTileSize) {
        return fail(problem.replacingOccurrences(of: "--threads", with: "threads") + " (0: one per core)", 1)
    }
    let cancellation = handle.cancellation.withLock { $0 }
    var options = RunOptions(threads: workers, cancellation: cancellation, collectsValues: true)
    if let (callback, userData) = handle.progress {
        let user = SendablePointer(userData)
        options.progress = { fraction in
            if callback(fraction, user.pointer) != 0 { cancellation.cancel() }
        }
    }
    defer { handle.cancellation.withLock { $0 = Cancellation() } }  // a cancel stops one run
    do {
        let prepared = handle.prepared ?? handle.graph.prepared(options: options, keeping: handle.keeping)
        handle.prepared = prepared
        handle.report = try prepared.run(supplying: handle.inputs, options: options)
    } catch {
        handle.report = nil
        return fail(error, error.isCancellation ? 3 : 1)
    }
    handle.outputs = CString(handle.graph.writtenFiles.joined(separator: "\n"))
    return 0
}

/// The progress callback's user data, handed to the run's threads as the caller asked.
private struct SendablePointer: @unchecked Sendable {
    let pointer: UnsafeMutableRawPointer?
    init(_ pointer: UnsafeMutableRawPointer?) { self.pointer = pointer }
}

/// The layout a `tessera_image` describes, or why it describes none.
private func layout(of image: tessera_image) -> Result<SampleBufferLayout, ImageError> {
    let depth: SampleDepth
    switch image.depth {
    case TESSERA_UINT8: depth = .uint8
    case TESSERA_UINT16: depth = .uint16
    case TESSERA_FLOAT32: depth = .float32
    default:
        return .failure(
            ImageError(message: "depth \(image.depth): use TESSERA_UINT8, TESSERA_UINT16 or TESSERA_FLOAT32"))
    }
    let layout = SampleBufferLayout(
        width: Int(image.width), height: Int(image.height), channels: Int(image.channels), depth: depth,
        rowBytes: image.row_bytes == 0 ? nil : Int(image.row_bytes))
    if let problem = layout.problem { return .failure(ImageError(message: problem)) }
    return .success(layout)
}

@_cdecl("tessera_graph_set_input")
public func tesseraGraphSetInput(
    _ graph: OpaquePointer?, _ node: UnsafePointer<CChar>?, _ image: UnsafePointer<tessera_image>?
) -> Int32 {
    guard let handle = handle(graph), let node, let image else { return fail("no graph, node or image", 2) }
    let name = String(cString: node)
    do {
        guard let data = image.pointee.data else { throw ImageError(message: "the image has no data") }
        let made = try Image(copying: data, layout(of: image.pointee).get())
        try handle.graph.check(supplying: [name: .image(made)])
        handle.inputs[name] = .image(made)
        return 0
    } catch let error as RunError {
        return fail(error, 2)
    } catch {
        return fail("input '\(name)': \(error)", 2)
    }
}

@_cdecl("tessera_graph_keep")
public func tesseraGraphKeep(_ graph: OpaquePointer?, _ node: UnsafePointer<CChar>?) -> Int32 {
    guard let handle = handle(graph), let node else { return fail("no graph or node", 2) }
    let name = String(cString: node)
    guard handle.graph.node(named: name) != nil else {
        let names = handle.graph.nodes.map(\.name)
        return fail("the graph has no node '\(name)'\(Suggestion.didYouMean(name, in: names))", 2)
    }
    if !handle.keeping.contains(name) { handle.keeping.append(name) }
    return 0
}

/// The kept image `node` of the last run, or why there is none.
private func keptImage(_ handle: GraphHandle, _ node: UnsafePointer<CChar>?) -> Result<Image, ImageError> {
    guard let node else { return .failure(ImageError(message: "no node name")) }
    let name = String(cString: node)
    guard let report = handle.report else {
        return .failure(ImageError(message: "the graph has not run (tessera_graph_run)"))
    }
    guard let value = report.outputs[name] else {
        return .failure(ImageError(message: "'\(name)' was not kept: call tessera_graph_keep before the run"))
    }
    guard case .image(let image) = value else {
        return .failure(
            ImageError(
                message: "'\(name)' is \(value.type.phrase), not an image: read it with tessera_graph_value_json"))
    }
    return .success(image)
}

@_cdecl("tessera_graph_image_info")
public func tesseraGraphImageInfo(
    _ graph: OpaquePointer?, _ node: UnsafePointer<CChar>?, _ info: UnsafeMutablePointer<tessera_image>?
) -> Int32 {
    guard let handle = handle(graph), let info else { return fail("no graph or image", 1) }
    switch keptImage(handle, node) {
    case .success(let image):
        info.pointee = tessera_image(
            width: Int32(image.width), height: Int32(image.height), channels: Int32(image.layout.fileChannels),
            depth: Int32(image.depth.bits), row_bytes: 0, data: nil)
        return 0
    case .failure(let error):
        return fail(error.description, 1)
    }
}

@_cdecl("tessera_graph_read_image")
public func tesseraGraphReadImage(
    _ graph: OpaquePointer?, _ node: UnsafePointer<CChar>?, _ into: UnsafePointer<tessera_image>?
) -> Int32 {
    guard let handle = handle(graph), let into else { return fail("no graph or image", 1) }
    do {
        let image = try keptImage(handle, node).get()
        guard let data = into.pointee.data else { throw ImageError(message: "the image has no data") }
        try image.copyPixels(to: data, layout(of: into.pointee).get())
        return 0
    } catch {
        return fail(String(describing: error), 1)
    }
}

@_cdecl("tessera_graph_set_progress")
public func tesseraGraphSetProgress(
    _ graph: OpaquePointer?, _ callback: (@convention(c) (Double, UnsafeMutableRawPointer?) -> Int32)?,
    _ userData: UnsafeMutableRawPointer?
) {
    handle(graph)?.progress = callback.map { ($0, userData) }
}

@_cdecl("tessera_graph_cancel")
public func tesseraGraphCancel(_ graph: OpaquePointer?) {
    handle(graph)?.cancellation.withLock { $0 }.cancel()
}

@_cdecl("tessera_last_error_location")
public func tesseraLastErrorLocation(
    _ file: UnsafeMutablePointer<UnsafePointer<CChar>?>?, _ line: UnsafeMutablePointer<Int32>?,
    _ column: UnsafeMutablePointer<Int32>?
) -> Int32 {
    guard let failure = Failure.last, let path = failure.file else { return 0 }
    file?.pointee = UnsafePointer(path.pointer)
    line?.pointee = failure.line
    column?.pointee = failure.column
    return 1
}

@_cdecl("tessera_graph_value_json")
public func tesseraGraphValueJSON(_ graph: OpaquePointer?, _ output: UnsafePointer<CChar>?) -> UnsafePointer<CChar>? {
    guard let handle = handle(graph), let output else { return fail("no graph or output name", nil) }
    guard let report = handle.report else { return fail("the graph has not run (tessera_graph_run)", nil) }
    switch handle.graph.valueJSON(String(cString: output), of: report) {
    case .success(let json):
        handle.json = CString(json)
        return UnsafePointer(handle.json.pointer)
    case .failure(let error):
        return fail(error.description, nil)
    }
}

@_cdecl("tessera_graph_result_json")
public func tesseraGraphResultJSON(_ graph: OpaquePointer?) -> UnsafePointer<CChar>? {
    guard let handle = handle(graph) else { return fail("no graph", nil) }
    guard let report = handle.report else { return fail("the graph has not run (tessera_graph_run)", nil) }
    handle.json = CString(handle.graph.resultJSON(of: report))
    return UnsafePointer(handle.json.pointer)
}

@_cdecl("tessera_graph_outputs")
public func tesseraGraphOutputs(_ graph: OpaquePointer?) -> UnsafePointer<CChar>? {
    handle(graph).map { UnsafePointer($0.outputs.pointer) }
}

@_cdecl("tessera_graph_free")
public func tesseraGraphFree(_ graph: OpaquePointer?) {
    guard let graph else { return }
    Unmanaged<GraphHandle>.fromOpaque(UnsafeRawPointer(graph)).release()
}
