import Foundation
import Tessera

/// The built-in nodes, made once for every input.
let catalog = Catalog.builtin()

/// `.json` when TESSERA_FUZZ_GRAPH is `json` (the strict JSON parser), else `.yaml` (Yams, YAML 1.2 core).
let file = ProcessInfo.processInfo.environment["TESSERA_FUZZ_GRAPH"] == "json" ? "fuzz.json" : "fuzz.yaml"

/// Parses and validates the input as a graph file. Paths resolve in a folder that does not exist, so
/// nothing is read or written; errors are the expected outcome, a crash or a sanitizer report is a finding.
func fuzzGraph(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data else { return 0 }
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    if let graph = try? Graph.parse(text, file: file, baseFolder: "/nonexistent-fuzz", catalog: catalog) {
        _ = graph.dot
        _ = graph.unreadValues
    }
    // A value given with --set is read with YAML's rules too.
    _ = try? ParameterOverride(parsing: "node.parameter=" + text.prefix(256))
    return 0
}

/// libFuzzer's driver, with this target's input function: SwiftPM gives an executable its own `main`,
/// so the target starts libFuzzer itself instead of linking libFuzzer's `main`.
@_silgen_name("LLVMFuzzerRunDriver")
func runDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ input: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

var argc = CommandLine.argc
var argv = CommandLine.unsafeArgv
exit(runDriver(&argc, &argv, fuzzGraph))
