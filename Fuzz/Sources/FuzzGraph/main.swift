import Foundation
import FuzzDriver
import Tessera

/// The built-in nodes, made once for every input.
let catalog = Catalog.builtin()

/// What the input is read as: TESSERA_FUZZ_INPUT is `yaml` (a graph file, Yams and the YAML 1.2 core
/// schema; the default), `json` (a graph file, the strict JSON parser) or `catalog` (a plugin's catalog).
let input = ProcessInfo.processInfo.environment["TESSERA_FUZZ_INPUT"] ?? "yaml"

/// Parses and validates the input. Paths resolve in a folder that does not exist, so nothing is read or
/// written; errors are the expected outcome, a crash or a sanitizer report is a finding.
func fuzzGraph(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data else { return 0 }
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    if input == "catalog" {
        // As a plugin's catalog: its nodes declared, then listed and described as `tessera nodes` does.
        if let declarations = try? Plugin.declarations(catalog: text, path: "fuzz.so") {
            var catalog = catalog
            for declaration in declarations {
                _ = declaration.text
                _ = declaration.json
                _ = try? catalog.register(declaration)
            }
            _ = catalog.jsonSchema
        }
        return 0
    }
    let file = input == "json" ? "fuzz.json" : "fuzz.yaml"
    if let graph = try? Graph.parse(text, file: file, baseFolder: "/nonexistent-fuzz", catalog: catalog) {
        _ = graph.dot
        _ = graph.unreadValues
    }
    // A value given with --set is read with YAML's rules too.
    _ = try? ParameterOverride(parsing: "node.parameter=" + text.prefix(256))
    return 0
}

runFuzzer(fuzzGraph)
