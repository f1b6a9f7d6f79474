import Foundation
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
    var graph: Graph
    var outputs = CString("")
    /// The last run's report, for its values.
    var report: RunReport?
    /// The last JSON handed out, valid until the next call on the graph.
    var json = CString("")

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

/// The calling thread's last failure message.
private func fail<T>(_ message: String, _ result: T) -> T {
    Thread.current.threadDictionary["tessera.error"] = CString(message)
    return result
}

private func handle(_ graph: OpaquePointer?) -> GraphHandle? {
    graph.map { Unmanaged<GraphHandle>.fromOpaque(UnsafeRawPointer($0)).takeUnretainedValue() }
}

private func make(_ origin: GraphHandle.Origin) -> OpaquePointer? {
    do {
        return OpaquePointer(Unmanaged.passRetained(try GraphHandle(origin: origin)).toOpaque())
    } catch {
        return fail(error.description, nil)
    }
}

private let version = CString(TesseraVersion.string)

@_cdecl("tessera_version")
public func tesseraVersion() -> UnsafePointer<CChar> { UnsafePointer(version.pointer) }

@_cdecl("tessera_last_error")
public func tesseraLastError() -> UnsafePointer<CChar> {
    if let message = Thread.current.threadDictionary["tessera.error"] as? CString {
        return UnsafePointer(message.pointer)
    }
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
        return fail(error.description, 1)
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
        return fail(error.description, 2)
    }
}

@_cdecl("tessera_graph_run")
public func tesseraGraphRun(_ graph: OpaquePointer?, _ threads: Int32) -> Int32 {
    guard let handle = handle(graph) else { return fail("no graph", 1) }
    let workers = threads == 0 ? RunOptions.cores : Int(threads)
    if threads != 0, let problem = RunOptions.problem(threads: workers, tileSize: RunOptions.defaultTileSize) {
        return fail(problem.replacingOccurrences(of: "--threads", with: "threads") + " (0: one per core)", 1)
    }
    do {
        handle.report = try handle.graph.run(options: RunOptions(threads: workers, collectsValues: true))
    } catch {
        handle.report = nil
        return fail(error.description, 1)
    }
    handle.outputs = CString(handle.graph.writtenFiles.joined(separator: "\n"))
    return 0
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
