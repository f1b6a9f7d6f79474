import Foundation
import Testing

/// Graph files written to crash or stall the process, each run through the `tessera` executable as a user
/// meets it, so a stack overflow shows as a signal: every one must end in one located line naming the
/// limit it broke, status 2, and no signal. Each row crashed (SIGSEGV) or ran for minutes before, except
/// the issue's own 10 KB file, which overflowed smaller stacks than a debug build's main thread has.
@Suite struct HostileGraphTests {
    struct Row: CustomTestStringConvertible, Sendable {
        var name: String
        /// The file's text (made here: some are hundreds of kilobytes).
        var text: @Sendable () -> String
        var file = "g.yaml"
        /// The commands run on it; each must print `message` alone.
        var commands: [[String]] = [["validate"], ["run", "-q"]]
        var message: String
        /// Seconds of CPU the command may use (ulimit -t): far above the linear time, far below the
        /// quadratic time it took before.
        var cpuSeconds = 60
        var testDescription: String { name }
    }

    static func brackets(_ count: Int) -> String {
        String(repeating: "[", count: count) + String(repeating: "]", count: count)
    }

    /// A chain of `count` nodes after a constant, each reading the one before.
    static func chain(_ count: Int) -> String {
        var text = "version: 1\nnodes:\n  n0: { op: constant, width: 8, height: 8 }\n"
        for index in 1..<count { text += "  n\(index): { op: contrast, input: n\(index - 1) }\n" }
        return text + "  out: { op: save, input: n\(count - 1), path: o.png }\n"
    }

    static let rows: [Row] = [
        // The character scan that guarded the YAML parser's recursion was fooled; each of these nested
        // 50,000 levels past it and overflowed the stack.
        Row(
            name: "an apostrophe in a comment", text: { "# don't\nversion: 1\nnodes: " + brackets(50_000) + "\n" },
            message: "g.yaml:3:207: error: the file nests values more than 200 levels deep"),
        Row(
            name: "an apostrophe in a plain scalar",
            text: { "version: 1\nnodes:\n  a: { op: load, path: don't.png }\n  b: " + brackets(50_000) + "\n" },
            message: "g.yaml:4:204: error: the file nests values more than 200 levels deep"),
        Row(
            name: "a single-quoted string ending in a backslash",
            text: { "version: 1\nnodes:\n  a: { op: load, path: 'x\\' }\n  b: " + brackets(50_000) + "\n" },
            message: "g.yaml:4:204: error: the file nests values more than 200 levels deep"),
        Row(
            name: "'? ' keys on one line",
            text: { "version: 1\nnodes:\n  a:\n    " + String(repeating: "? ", count: 50_000) + "x\n" },
            message: "g.yaml:4:401: error: the file nests values more than 200 levels deep"),
        Row(
            name: "dashes nested by indentation, under 200 a line",
            text: {
                var lines = ["version: 1", "nodes:", "  a:"]
                for line in 0..<60 {
                    lines.append(String(repeating: " ", count: 4 + 398 * line) + String(repeating: "- ", count: 199))
                }
                return lines.joined(separator: "\n") + "x\n"
            },
            message: "g.yaml:4:401: error: the file nests values more than 200 levels deep"),
        Row(
            name: "the issue's 10 KB file", text: { "# don't\nversion: 1\nnodes: " + brackets(5000) + "\n" },
            message: "g.yaml:3:207: error: the file nests values more than 200 levels deep"),
        // Validated, then `run` overflowed a worker's stack pulling a tile through 3,000 kernels.
        Row(
            name: "a chain of 3,000 nodes", text: { chain(3000) },
            message:
                "g.yaml:1003:3: error: node 'n1000' ends a chain of 1001 nodes, each reading the one before; at most "
                + "1000 nodes can be chained"),
        // Validation scanned every node for each reference: 20,000 nodes took minutes.
        Row(
            name: "20,000 nodes in short chains, and one broken reference",
            text: {
                var text = "version: 1\nnodes:\n  src: { op: constant, width: 8, height: 8 }\n"
                for index in 0..<19_999 {
                    let input = index % 9 == 0 ? "src" : "c\(index - 1)"
                    text += "  c\(index): { op: contrast, input: \(input) }\n"
                }
                return text + "  out: { op: save, input: c1999x, path: o.png }\n"
            },
            message: "g.yaml:20003:27: error: no node 'c1999x'; did you mean 'c1999'?", cpuSeconds: 20),
        Row(
            name: "100,001 nodes",
            text: {
                #"{"version": 1, "nodes": {"#
                    + (0...100_000).map { #""n\#($0)": {"op": "constant"}"# }.joined(separator: ", ") + "}}"
            },
            file: "g.json", commands: [["validate"]],
            message: "g.json:1:2988916: error: the graph has 100001 nodes, more than the 100000 a graph may have",
            cpuSeconds: 30),
    ]

    @Test(arguments: rows)
    func refusedInOneLine(row: Row) throws {
        try withTemporaryFolder { folder in
            try row.text().write(to: folder.appendingPathComponent(row.file), atomically: false, encoding: .utf8)
            let tessera = try #require(CLI.executable).path
            for command in row.commands {
                let result = try CLI.run(
                    ["-c", "ulimit -t \(row.cpuSeconds); exec \"$@\"", "sh", tessera] + command + [row.file],
                    in: folder, binary: URL(fileURLWithPath: "/bin/sh"))
                #expect(!result.signaled && result.status == 2, "\(command): status \(result.status)")
                #expect(result.stderr == row.message + "\n", "\(command)")
                #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == [row.file])
            }
        }
    }

    /// The chain limit leaves real graphs alone: 1,000 nodes chained run.
    @Test func aChainAtTheLimitRuns() throws {
        try withTemporaryFolder { folder in
            try Self.chain(999).write(to: folder.appendingPathComponent("g.yaml"), atomically: false, encoding: .utf8)
            let result = try CLI.run(["run", "-q", "g.yaml"], in: folder)
            #expect(!result.signaled && result.status == 0, "\(result.stderr)")
            #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("o.png").path))
        }
    }
}
