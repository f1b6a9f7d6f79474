import Foundation
import Tessera

#if canImport(Glibc)
    import Glibc
#endif

// What the preview may read. A page can set any parameter through its overrides, and a graph file in
// the served folder may have come from anywhere, so the preview reads the graph file and the files its
// nodes name only when they are regular files (opening a FIFO blocks until a writer comes), and only
// inside the served folder, symbolic links resolved, unless the command was given --read-anywhere.

extension PreviewSession {
    /// A file a node names that the preview will not read.
    struct FileProblem {
        /// `node.parameter`.
        var setting: String
        var message: String
        var problem: PreviewState.Problem
    }

    /// The most a graph file may hold: far more than any graph, far less than a mistake could allocate.
    static let maximumGraphBytes = 16 << 20

    /// The files `graph`'s nodes would read that the preview refuses, each with its place in the file.
    func fileProblems(in graph: Graph) -> [FileProblem] {
        var problems: [FileProblem] = []
        for node in graph.nodes {
            for (name, setting) in node.parameters.sorted(by: { $0.key < $1.key }) {
                guard case .value(let value) = setting.source, let path = value as? FilePath else { continue }
                var message: String?
                if let kind = Self.specialKind(path.resolved) {
                    message = "\(path.written) is \(kind), not a file; the preview reads regular files only"
                } else if !readsAnywhere, !isInsideFolder(path.resolved) {
                    message =
                        "\(path.written) is outside the served folder \(folder); start tessera serve with "
                        + "--read-anywhere to let the graph read it"
                }
                guard let message else { continue }
                let text = "\(node.name).\(name): \(message)"
                let at = setting.location
                problems.append(
                    FileProblem(
                        setting: "\(node.name).\(name)", message: text,
                        problem: PreviewState.Problem(
                            severity: "error", line: at.line, column: at.column, message: text,
                            text: "\(at): error: \(text)")))
            }
        }
        return problems
    }

    /// Whether `path`, symbolic links resolved (or as written, for a file that does not exist yet), is
    /// inside the served folder.
    func isInsideFolder(_ path: String) -> Bool {
        let url = URL(fileURLWithPath: path).standardizedFileURL
        let resolved = realpath(url.path, nil).map { pointer in
            defer { free(pointer) }
            return String(cString: pointer)
        }
        return (resolved ?? url.path).hasPrefix(folder + "/")
    }

    /// "a FIFO (named pipe)", "a folder", ... for what exists at `path` (links followed) and is not a
    /// regular file; nil for a regular file or nothing.
    static func specialKind(_ path: String) -> String? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return kind(of: info.st_mode)
    }

    private static func kind(of mode: mode_t) -> String? {
        switch mode & S_IFMT {
        case S_IFREG: nil
        case S_IFIFO: "a FIFO (named pipe)"
        case S_IFDIR: "a folder"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        case S_IFSOCK: "a socket"
        default: "not a regular file"
        }
    }

    /// The graph file's text, read without blocking: opened non-blocking and checked to be a regular file
    /// on the descriptor itself, so a FIFO put in its place is refused, not waited on.
    static func readGraph(_ path: String) throws(GraphErrors) -> String {
        func failure(_ reason: String) -> GraphErrors {
            GraphErrors(diagnostics: [.error(SourceLocation(file: path), reason)])
        }
        let descriptor = Glibc.open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw failure(
                errno == ENOENT ? "no such file" : "cannot read the file: \(String(cString: strerror(errno)))")
        }
        defer { Glibc.close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw failure("cannot read the file") }
        if let kind = kind(of: info.st_mode) { throw failure("the graph is \(kind), not a file") }
        guard Int(info.st_size) <= maximumGraphBytes else {
            throw failure("the graph file is over \(maximumGraphBytes >> 20) MB")
        }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { throw failure("cannot read the file: \(String(cString: strerror(errno)))") }
            if count == 0 { break }
            bytes += buffer[0..<count]
            guard bytes.count <= maximumGraphBytes else {
                throw failure("the graph file is over \(maximumGraphBytes >> 20) MB")
            }
        }
        guard let text = String(validating: bytes, as: UTF8.self) else { throw failure("the graph is not UTF-8 text") }
        return text
    }
}
