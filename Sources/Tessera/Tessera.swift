@_exported import TesseraCore
@_exported import TesseraCatalog
@_exported import TesseraGraph
@_exported import TesseraPluginHost
@_exported import TesseraRunner
@_exported import TesseraIO
@_exported import TesseraScheduler
import TesseraNodes

/// The version of Tessera.
public enum TesseraVersion {
    public static let string = "0.1.0"
}

extension Catalog {
    /// A catalog of the nodes that ship with Tessera.
    public static func builtin() -> Catalog {
        do {
            return try Catalog(BuiltinNodes.all)
        } catch {
            preconditionFailure("a built-in node breaks the declaration rules: \(error)")
        }
    }
}
