import TesseraCatalog
import CTesseraPlugin
import Foundation
import TesseraCore

/// A plugin shared library, loaded: its file, its entry table, and the nodes its catalog declares.
///
/// The boundary is the C ABI of `tessera_plugin.h` (Sources/CTesseraPlugin): Swift has no stable ABI on
/// Linux, and a plugin holding its own copy of a Swift module has its own type metadata, so nothing but
/// C types crosses. A loaded library stays loaded for the life of the process (unloading a library
/// whose code a kernel may still run, or whose Swift runtime records are registered, is not safe).
public final class Plugin: @unchecked Sendable {
    /// The file as the user named it; every message about the plugin starts with it.
    public let path: String
    /// The nodes the plugin declares, checked like built-ins, in its catalog's order.
    public private(set) var declarations: [NodeDeclaration] = []
    /// Immutable after loading; the plugin promises its functions may be called from any thread.
    let table: tessera_plugin
    /// The ABI version the plugin was built for (1 to 4).
    let abiVersion: Int
    /// The bytes of a version 1 table: the fields before `create_v2`.
    static let version1Size: Int = {
        guard let offset = MemoryLayout<tessera_plugin>.offset(of: \tessera_plugin.create_v2) else {
            preconditionFailure("tessera_plugin.create_v2 is a stored field of the C struct")
        }
        return offset
    }()

    /// The bytes of a version 2 table: the fields before `run_v3`.
    static let version2Size: Int = {
        guard let offset = MemoryLayout<tessera_plugin>.offset(of: \tessera_plugin.run_v3) else {
            preconditionFailure("tessera_plugin.run_v3 is a stored field of the C struct")
        }
        return offset
    }()

    /// Loads the shared library at `path`, checks its ABI version and reads its catalog.
    ///
    /// `path` is always a file's path: a name without a slash is a file in the current folder
    /// (`libsobel.so` is `./libsobel.so`), never a name the dynamic loader looks up in the system's
    /// library folders. A plugin runs in this process as trusted code: its functions are called
    /// directly, and a plugin that crashes takes the process down.
    ///
    /// - Throws: ``PluginError`` naming the file: not a shared library, no entry symbol, another ABI
    ///   version, a catalog that is not valid JSON or breaks the declaration rules.
    public init(path: String) throws(PluginError) {
        self.path = path
        guard FileManager.default.fileExists(atPath: path) else { throw PluginError(path, "no such file") }
        // RTLD_DEEPBIND: the plugin's own symbols (its copy of Tessera's Swift modules) come before any
        // of the host's with the same names.
        // dlopen searches the loader's folders for a name without a slash: make it a path.
        let file = path.contains("/") ? path : "./" + path
        guard let handle = dlopen(file, RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND) else {
            let reason = dlerror().map { String(cString: $0) } ?? "unknown error"
            throw PluginError(path, "not a plugin: it does not load as a shared library (\(reason))")
        }
        guard let symbol = dlsym(handle, TESSERA_PLUGIN_ENTRY_SYMBOL) else {
            throw PluginError(
                path, "not a Tessera plugin: it does not export '\(TESSERA_PLUGIN_ENTRY_SYMBOL)'")
        }
        typealias Entry = @convention(c) () -> UnsafePointer<tessera_plugin>?
        guard let entry = unsafeBitCast(symbol, to: Entry.self)() else {
            throw PluginError(path, "its \(TESSERA_PLUGIN_ENTRY_SYMBOL) returned no plugin table")
        }
        // The version is the first field in every version of the ABI: read it alone before the rest.
        let version = UnsafeRawPointer(entry).load(as: UInt32.self)
        guard (1...UInt32(TESSERA_PLUGIN_ABI_VERSION)).contains(version) else {
            throw PluginError(
                path,
                "built for plugin ABI version \(version), but this Tessera reads versions 1 to "
                    + "\(TESSERA_PLUGIN_ABI_VERSION); rebuild the plugin against this Tessera's tessera_plugin.h")
        }
        abiVersion = Int(version)
        // An older version's table ends before the next version's fields: copy only what it laid out.
        var table = tessera_plugin()
        let size =
            version >= 3 ? MemoryLayout<tessera_plugin>.size : version == 2 ? Self.version2Size : Self.version1Size
        withUnsafeMutableBytes(of: &table) { $0.copyMemory(from: UnsafeRawBufferPointer(start: entry, count: size)) }
        self.table = table
        // Version 2 may leave `create` out for `create_v2`; nodes check the functions their access needs.
        guard table.create != nil || table.create_v2 != nil, table.destroy != nil,
            table.create_v2 != nil || (table.input_region != nil && table.render != nil)
        else {
            throw PluginError(path, "its plugin table lacks a function (create, input_region, render or destroy)")
        }
        guard let catalog = table.catalog_json else { throw PluginError(path, "its plugin table has no catalog") }
        // Values and global nodes come through create_v2 and run: a table without create_v2 declares
        // as version 1 did, and one with global nodes must have run.
        declarations = try PluginCatalog.declarations(
            from: String(cString: catalog), path: path, plugin: self, version: table.create_v2 == nil ? 1 : abiVersion)
        if table.run == nil, table.run_v3 == nil, let global = declarations.first(where: { $0.access == .global }) {
            throw PluginError(path, "\(global.info.op) is a global node, but its plugin table has no run function")
        }
        if table.input_region == nil || table.render == nil,
            let kernel = declarations.first(where: { $0.access != .global })
        {
            throw PluginError(
                path,
                "\(kernel.info.op) is a \(kernel.access.rawValue) node, but its plugin table has no input_region or render"
            )
        }
    }

    /// Reads a plugin catalog's JSON exactly as loading a plugin does, without a library: the nodes it
    /// declares (to list, document or validate graphs with; they cannot run), or the error a load would
    /// give, naming `path`. For a plugin's own tests, and for the fuzzer.
    public static func declarations(catalog json: String, path: String) throws(PluginError) -> [NodeDeclaration] {
        try PluginCatalog.declarations(from: json, path: path, plugin: nil, version: Int(TESSERA_PLUGIN_ABI_VERSION))
    }

    /// A plugin's shared libraries found where Tessera looks for them: the folders of
    /// `TESSERA_PLUGIN_PATH` (colon-separated), then a `plugins` folder beside the executable. Files
    /// ending in `.so`, in name order within each folder.
    /// The executable is the running one (`/proc/self/exe`: where the file is, whatever path or link ran it).
    package static func searchPath(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        executable: String = runningExecutable
    ) -> [String] {
        var folders = (environment["TESSERA_PLUGIN_PATH"] ?? "").split(separator: ":").map(String.init)
        let beside = URL(fileURLWithPath: executable).deletingLastPathComponent()
        folders.append(beside.appendingPathComponent("plugins").path)
        return folders.flatMap { folder -> [String] in
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
            return names.filter { $0.hasSuffix(".so") }.sorted().map { folder + "/" + $0 }
        }
    }
}

extension Plugin {
    /// The path of the running executable's file.
    package static var runningExecutable: String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }
}

/// A plugin that cannot be used: the file and what is wrong with it.
public struct PluginError: Error, Sendable, CustomStringConvertible {
    public var path: String
    public var message: String

    public init(_ path: String, _ message: String) {
        self.path = path
        self.message = message
    }

    /// `plugin.so: message`.
    public var description: String { "\(path): \(message)" }
}

extension Catalog {
    /// Adds every node of `plugin`; a name clashing with a node already here is an error naming the file.
    public mutating func register(_ plugin: Plugin) throws(PluginError) {
        var added = self
        for declaration in plugin.declarations {
            do {
                try added.register(declaration)
            } catch {
                throw PluginError(plugin.path, error.description.replacingOccurrences(of: plugin.path + ": ", with: ""))
            }
        }
        self = added
    }

    /// Loads the plugins at `paths` and registers their nodes, in order. A file named twice (in
    /// `TESSERA_PLUGIN_PATH` and with `--plugin`, say) loads once.
    public mutating func loadPlugins(_ paths: [String]) throws(PluginError) {
        var loaded = Set(declarations.compactMap(\.origin).map(Self.fileIdentity))
        for path in paths where loaded.insert(Self.fileIdentity(path)).inserted {
            try register(Plugin(path: path))
        }
    }

    /// The file a path names, whatever links or relative segments lead to it.
    static func fileIdentity(_ path: String) -> String {
        URL(fileURLWithPath: path).resolvingSymlinksInPath().standardizedFileURL.path
    }
}
