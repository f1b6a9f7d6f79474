import TesseraCatalog
/// A position in a graph file: 1-based line and column (columns count Unicode scalars, as libyaml does).
public struct SourceLocation: Sendable, Equatable, Comparable, CustomStringConvertible {
    /// The file as the user named it, or what stands for it (`--set soft.sigma=8`).
    public var file: String
    /// 0 when the problem has no line (a `--set` value, an unreadable file).
    public var line: Int
    public var column: Int

    public init(file: String, line: Int = 0, column: Int = 0) {
        self.file = file
        self.line = line
        self.column = column
    }

    /// `file:line:column`, or `file` alone.
    public var description: String { line > 0 ? "\(file):\(line):\(column)" : file }

    public static func < (a: SourceLocation, b: SourceLocation) -> Bool {
        (a.file, a.line, a.column) < (b.file, b.line, b.column)
    }
}

/// An error or warning about a graph, with where it is and what to do.
public struct Diagnostic: Sendable, Equatable, CustomStringConvertible {
    public enum Severity: String, Sendable {
        case error
        case warning
    }

    public var severity: Severity
    public var location: SourceLocation
    public var message: String

    public static func error(_ location: SourceLocation, _ message: String) -> Diagnostic {
        Diagnostic(severity: .error, location: location, message: message)
    }

    public static func warning(_ location: SourceLocation, _ message: String) -> Diagnostic {
        Diagnostic(severity: .warning, location: location, message: message)
    }

    /// `FILE:LINE:COLUMN: error: MESSAGE`, the form compilers use and editors jump to.
    public var description: String { "\(location): \(severity.rawValue): \(message)" }
}

/// A graph that did not validate: every problem found, in file order.
public struct GraphErrors: Error, Sendable, CustomStringConvertible {
    public var diagnostics: [Diagnostic]
    public var description: String { diagnostics.map(\.description).joined(separator: "\n") }

    package init(diagnostics: [Diagnostic]) { self.diagnostics = diagnostics }
}
