import Foundation
import Testing

/// Runs the real `tessera` executable, built next to the test bundle.
enum CLI {
    struct Result {
        var status: Int32
        var signaled: Bool
        var stdout: String
        var stderr: String
    }

    static let executable: URL? = {
        let candidates = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(),
            Bundle.main.bundleURL.deletingLastPathComponent(), Bundle.main.bundleURL,
        ]
        return candidates.map { $0.appendingPathComponent("tessera") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }()

    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("TesseraIOTests/Fixtures")

    /// Runs `tessera` (or `binary`) with `arguments`; `environment` adds to or replaces variables.
    static func run(
        _ arguments: [String], in folder: URL? = nil, environment: [String: String] = [:], binary: URL? = nil
    ) throws -> Result {
        let binary = try binary ?? #require(executable, "the tessera executable is built beside the tests")
        let process = Process()
        process.executableURL = binary
        // A child that crashes (a broken plugin's test) dies at once: Swift's backtracer, which it would
        // start, keeps the output pipes open and once hung for 18 minutes under load.
        process.environment = ProcessInfo.processInfo.environment.merging(["SWIFT_BACKTRACE": "enable=no"]) { $1 }
            .merging(environment) { $1 }
        process.arguments = arguments
        if let folder { process.currentDirectoryURL = folder }
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus, signaled: process.terminationReason == .uncaughtSignal,
            stdout: String(decoding: outData, as: UTF8.self), stderr: String(decoding: errData, as: UTF8.self))
    }
}

/// A fresh folder for a test's files, removed when `body` returns.
func withTemporaryFolder<T>(_ body: (URL) throws -> T) throws -> T {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-cli-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    return try body(folder)
}
