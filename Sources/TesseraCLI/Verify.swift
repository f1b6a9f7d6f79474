import ArgumentParser
import Foundation
import Tessera
import TesseraTesting

/// `tessera verify PLUGIN.so`: the node verifier every built-in passes, for a plugin's author, whatever
/// the plugin's language (a C plugin has no Swift tests to call TesseraTesting from).
struct Verify: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check a plugin's nodes with the node verifier that every built-in node passes.",
        discussion: """
            Each node runs on test images with its defaults, each other choice and numbers picked inside \
            their suggested ranges, and is held to the rules every node keeps: random tilings give the same \
            bits as one whole render, its kernel reads nothing outside the input regions it declares (the \
            pixels outside are NaN and none may reach the output), and its defaults lie inside its ranges. \
            Prints one line per run and the failures; exits with status 1 when any rule is broken. Sinks \
            and nodes that need a file are skipped, saying why: verify those from Swift tests with the \
            TesseraTesting library.
            """)

    @Argument(help: ArgumentHelp("Plugin shared libraries to verify.", valueName: "plugin"))
    var paths: [String]

    @Option(name: .customLong("node"), help: ArgumentHelp("Verify only this node (repeatable).", valueName: "name"))
    var nodes: [String] = []

    @Option(help: "Seed of the random tilings, regions and parameters.")
    var seed: UInt64 = NodeVerifier().seed

    func run() throws {
        // With the built-ins, so that a plugin node clashing with one is refused as `run` would.
        var catalog = Catalog.builtin()
        do {
            try catalog.loadPlugins(paths)
        } catch {
            StandardError.line("Error: \(error)")
            throw ExitCode(1)
        }
        let declarations = catalog.declarations.filter { $0.origin != nil && (nodes.isEmpty || nodes.contains($0.op)) }
        if let missing = nodes.first(where: { catalog.declaration(op: $0)?.origin == nil }) {
            StandardError.write("Error: the plugins declare no node named '\(missing)'\n")
            throw ExitCode(1)
        }
        let verifier = NodeVerifier(seed: seed)
        var runs = 0
        var failures = 0
        for declaration in declarations {
            for verification in verifier.checkCases(of: declaration) {
                let subject = verification.subject.isEmpty ? "" : " (\(verification.subject))"
                if let reason = verification.skipped {
                    StandardOutput.print("skipped \(verification.op)\(subject): \(reason)")
                    continue
                }
                runs += 1
                failures += verification.failures.count
                StandardOutput.print(
                    (verification.passed ? "ok      " : "FAILED  ") + verification.op + subject)
                for failure in verification.failures { StandardOutput.print("  - \(failure)") }
            }
        }
        let nodeCount = declarations.count == 1 ? "1 node" : "\(declarations.count) nodes"
        let runCount = runs == 1 ? "1 run" : "\(runs) runs"
        StandardOutput.print(
            "\(nodeCount), \(runCount): " + (failures == 0 ? "every rule kept" : "\(failures) failures"))
        if failures > 0 { throw ExitCode(1) }
    }
}
