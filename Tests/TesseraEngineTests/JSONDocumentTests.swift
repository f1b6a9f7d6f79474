import Foundation
import Tessera
import Testing

@testable import TesseraCatalog
@testable import TesseraGraph
@testable import TesseraPluginHost
@testable import TesseraRunner

/// A `.json` graph's text and what strict JSON (RFC 8259) makes of it: a value, or every diagnostic.
struct JSONCase: CustomTestStringConvertible, Sendable {
    enum Outcome: Sendable, Equatable {
        case value(Literal)
        case errors([String])
    }

    var name: String
    var text: String
    var outcome: Outcome

    init(_ name: String, _ text: String, _ outcome: Outcome) {
        self.name = name
        self.text = text
        self.outcome = outcome
    }

    /// One error, `g.json:LINE:COLUMN: error: invalid JSON: MESSAGE`.
    init(_ name: String, _ text: String, at position: String, _ message: String) {
        self.init(name, text, .errors(["g.json:\(position): error: invalid JSON: \(message)"]))
    }

    var testDescription: String { name }
}

let jsonCases: [JSONCase] = [
    // MARK: Accepted
    JSONCase(
        "every type",
        #"{"s": "x", "i": 17, "n": -0.5, "e": 1.5e3, "t": true, "f": false, "z": null, "l": [1, [], {}]}"#,
        .value(
            .mapping([
                "s": "x", "i": 17, "n": -0.5, "e": .number(1500), "t": true, "f": false, "z": nil,
                "l": [1, .list([]), .mapping([:])],
            ]))),
    JSONCase(
        "integers: too large for Int is a number", "[9223372036854775807, -9223372036854775808, 9223372036854775808]",
        .value([.integer(.max), .integer(.min), .number(9_223_372_036_854_775_808)])),
    JSONCase("a fraction or exponent makes a number", "[10.0, 1e2, 1E+2, -0, 0]", .value([10.0, 100.0, 100.0, 0, 0])),
    JSONCase(
        "escapes", #"["\" \\ \/ \b \f \n \r \t", "\u00e9\u4E2D\u0000"]"#,
        .value(["\" \\ / \u{08} \u{0C} \n \r \t", "é中\u{0}"])),
    JSONCase("a surrogate pair is one scalar", #"["\ud83d\ude00", "\uD83D\uDE00x"]"#, .value(["😀", "😀x"])),
    JSONCase("raw UTF-8 and DEL are kept", "[\"日本 😀 \u{7F}\"]", .value(["日本 😀 \u{7F}"])),
    JSONCase("tabs and CRLF between tokens", "{\r\n\t\"a\":\t1\r\n}", .value(.mapping(["a": 1]))),
    JSONCase("a byte order mark", "\u{FEFF}{\"a\": 1}", .value(.mapping(["a": 1]))),
    JSONCase("an empty key", #"{"": 1}"#, .value(.mapping(["": 1]))),
    JSONCase("a ratio is a string", #"{"aspectRatio": "4:3"}"#, .value(.mapping(["aspectRatio": "4:3"]))),
    JSONCase("YAML's words are strings", #"["yes", "~", "017"]"#, .value(["yes", "~", "017"])),
    JSONCase(
        "200 levels", String(repeating: "[", count: 200) + String(repeating: "]", count: 200),
        .value((1..<200).reduce(Literal.list([])) { inner, _ in .list([inner]) })),

    // MARK: Refused
    JSONCase("trailing comma in an object", #"{"a": 1,}"#, at: "1:8", "trailing comma before '}'"),
    JSONCase("trailing comma in an array", "[1,\n 2,\n]", at: "2:3", "trailing comma before ']'"),
    JSONCase("line comment", "{\"a\": 1 // one\n}", at: "1:9", "comments are not allowed"),
    JSONCase("block comment", "/* graph */ {}", at: "1:1", "comments are not allowed"),
    JSONCase("YAML comment", "{\n  # graph\n}", at: "2:3", "comments are not allowed"),
    JSONCase(
        "unquoted string", #"{"op": load}"#, at: "1:8",
        #"unquoted text 'load': JSON strings need double quotes ("load")"#),
    JSONCase(
        "unquoted ratio", #"{"aspectRatio": 4:3}"#, at: "1:17",
        #"unquoted text '4:3': JSON strings need double quotes ("4:3")"#),
    JSONCase("unquoted key", #"{op: "load"}"#, at: "1:2", #"unquoted key 'op': JSON keys need double quotes ("op")"#),
    JSONCase("single-quoted string", #"{"op": 'load'}"#, at: "1:8", "strings take double quotes, not single quotes"),
    JSONCase("single-quoted key", #"{'op': "load"}"#, at: "1:2", "strings take double quotes, not single quotes"),
    JSONCase("leading zero", #"{"a": 017}"#, at: "1:7", "'017' is not a JSON number: leading zeros are not allowed"),
    JSONCase(
        "negative leading zero", "[-017]", at: "1:2", "'-017' is not a JSON number: leading zeros are not allowed"),
    JSONCase("NaN", "[NaN]", at: "1:2", "'NaN' is not a JSON number (JSON has no NaN or infinities)"),
    JSONCase("Infinity", "[1, Infinity]", at: "1:5", "'Infinity' is not a JSON number (JSON has no NaN or infinities)"),
    JSONCase("-Infinity", "[-Infinity]", at: "1:2", "'-Infinity' is not a JSON number (JSON has no NaN or infinities)"),
    JSONCase("capitalized literal", "[True]", at: "1:2", "'True' is not a JSON value: write true"),
    JSONCase("no digit before the point", "[.5]", at: "1:2", "'.5' is not a JSON number"),
    JSONCase("a plus sign", "[+1]", at: "1:2", "'+1' is not a JSON number"),
    JSONCase("hex", "[0x1F]", at: "1:2", "'0x1F' is not a JSON number"),
    JSONCase("no digit after the point", "[1.]", at: "1:2", "'1.' is not a JSON number: it needs a digit after '.'"),
    JSONCase("no exponent digits", "[1e+]", at: "1:2", "'1e+' is not a JSON number: its exponent needs digits"),
    JSONCase("a number too large", "[1e400]", at: "1:2", "the number 1e400 is too large"),
    JSONCase("raw tab in a string", "[\"a\tb\"]", at: "1:4", "control character U+0009 in a string; write it as \\t"),
    JSONCase(
        "raw control character in a string", "[\"a\u{01}\"]", at: "1:4",
        "control character U+0001 in a string; write it as \\u0001"),
    JSONCase(
        "line break in a string", "[\"a\nb\"]", at: "1:2",
        "the string has no closing quote on its line (a line break in a string is \\n)"),
    JSONCase(
        "lone high surrogate", #"["x\ud83d"]"#, at: "1:4",
        "lone surrogate \\ud83d: a high surrogate needs a low one after it"),
    JSONCase(
        "high surrogate before another escape", #"["\ud83d\u0041"]"#, at: "1:3",
        "lone surrogate \\ud83d: a high surrogate needs a low one after it"),
    JSONCase(
        "lone low surrogate", #"["\ude00x"]"#, at: "1:3",
        "lone surrogate \\ude00: a low surrogate needs a high one before it"),
    JSONCase(
        "unknown escape", #"["\x"]"#, at: "1:3",
        #"unknown escape '\x' in a string (JSON has \" \\ \/ \b \f \n \r \t \uXXXX)"#),
    JSONCase("short \\u escape", #"["\u12"]"#, at: "1:3", #"'\u' needs four hex digits (as \u00e9)"#),
    JSONCase("unterminated string", "[\"abc", at: "1:2", "the string has no closing quote"),
    JSONCase(
        "missing comma in an object", "{\"a\": 1\n \"b\": 2}", at: "2:2",
        "expected ',' or '}' after a value in an object, found '\"'"),
    JSONCase(
        "missing comma in an array", "[1 2]", at: "1:4", "expected ',' or ']' after a value in an array, found '2'"),
    JSONCase("missing colon", #"{"a" 1}"#, at: "1:6", "expected ':' after the key 'a', found '1'"),
    JSONCase("missing value", #"{"a": }"#, at: "1:7", "expected a value, found '}'"),
    JSONCase("control character between values", "[1,\u{0C}2]", at: "1:4", "expected a value, found U+000C"),
    JSONCase(
        "unclosed array", #"{"a": [1, 2"#, at: "1:12",
        "the text ends before the array opened at line 1, column 7 is closed"),
    JSONCase(
        "unclosed object", "{\"a\": 1", at: "1:8",
        "the text ends before the object opened at line 1, column 1 is closed"),
    JSONCase("two documents", "{} {}", at: "1:4", "more text after the end of the document: '{'"),
    JSONCase("empty", "", .errors(["g.json:1:1: error: the file is empty"])),
    JSONCase("only whitespace", " \n\t", .errors(["g.json:1:1: error: the file is empty"])),
    JSONCase(
        "duplicate keys, all reported, the dropped value checked too",
        """
        {"a": 1, "b": {"x": 1, "x": 2}, "a": 3,
         "a": {"y": 1, "y": 2}}
        """,
        .errors([
            "g.json:1:24: error: duplicate key 'x' (first at line 1, column 16)",
            "g.json:1:33: error: duplicate key 'a' (first at line 1, column 2)",
            "g.json:2:16: error: duplicate key 'y' (first at line 2, column 8)",
            "g.json:2:2: error: duplicate key 'a' (first at line 1, column 2)",
        ])),
    JSONCase(
        "nesting too deep", String(repeating: "[", count: 201) + String(repeating: "]", count: 201),
        .errors(["g.json:1:201: error: the file nests values more than 200 levels deep"])),
]

/// JSON graphs are read as strict JSON with positions, not as YAML.
@Suite struct JSONDocumentTests {
    @Test(arguments: jsonCases)
    func strictJSON(_ row: JSONCase) {
        let (document, diagnostics) = DocumentParser.parse(row.text, file: "g.json")
        switch row.outcome {
        case .value(let expected):
            #expect(diagnostics.isEmpty, "\(diagnostics)")
            #expect(document?.literal == expected)
        case .errors(let expected):
            #expect(diagnostics.map(\.description) == expected)
        }
    }

    /// Values and keys have the positions the YAML path gives them (a string at its opening quote, a
    /// tab one column), surrogate escapes included, which libyaml refuses: the YAML side reads the same
    /// text with `\u00e9\u00e9` in their place.
    @Test func positionsAreYAMLs() throws {
        let text = "{\"version\": 1,\n\t\"nodes\": {\"a\": {\"op\": \"\\ud83d\\ude00\", \"path\": [1, \"x\"]}}}"
        let (json, diagnostics) = DocumentParser.parse(text, file: "g.json")
        #expect(diagnostics.isEmpty)
        let yamlText = text.replacingOccurrences(of: "\\ud83d\\ude00", with: "\\u00e9\\u00e9")
            .replacingOccurrences(of: "\t", with: " ")
        let (yaml, _) = DocumentParser.parse(yamlText, file: "g.yaml")
        #expect(try #require(json).positions == (try #require(yaml)).positions)
        #expect(json?.positions.last == "2:52")
    }

    /// Every JSON file in the repository (graphs, fixtures, the schema) parses, and the ones under 50 KB
    /// read as Foundation reads them (its decoder takes seconds on the large contour fixtures in a debug
    /// build).
    @Test func repositoryJSONFilesAgreeWithFoundation() throws {
        var paths = ["tessera.schema.json", "Graphs/lossless.json"]
        let tests = repositoryRoot.appendingPathComponent("Tests")
        let walker = try #require(FileManager.default.enumerator(atPath: tests.path))
        for case let path as String in walker where path.hasSuffix(".json") { paths.append("Tests/" + path) }
        #expect(paths.count >= 15)
        for path in paths {
            let url = repositoryRoot.appendingPathComponent(path)
            let (document, diagnostics) = DocumentParser.parse(try String(contentsOf: url, encoding: .utf8), file: path)
            #expect(diagnostics.isEmpty, "\(path): \(diagnostics)")
            guard try Data(contentsOf: url).count < 50_000 else { continue }
            let foundation = try JSONDecoder().decode(JSONLiteral.self, from: Data(contentsOf: url)).literal
            #expect(document.map { $0.literal.numbersAsDoubles } == foundation.numbersAsDoubles, "\(path)")
        }
    }

    /// The JSON graphs in the repository validate as before: the example runs, the schema reject is refused
    /// for its one mistake.
    @Test func repositoryJSONGraphs() throws {
        let lossless = try Graph.load(
            path: repositoryRoot.appendingPathComponent("Graphs/lossless.json").path, catalog: .builtin())
        #expect(lossless.nodes.map(\.name) == ["photo", "small"])
        let path = repositoryRoot.appendingPathComponent("Tests/TesseraEngineTests/SchemaRejects/wrong-type.json").path
        #expect {
            try Graph.load(path: path, catalog: .builtin())
        } throws: { error in
            (error as? GraphErrors)?.diagnostics.map(\.description) == [
                "\(path):2:63: error: photo.keepOrientation: expected true or false, found the string 'no' "
                    + "(YAML 1.2 reads no as a string; write false)"
            ]
        }
    }

    /// A JSON graph reads its values by JSON's types and escapes: "4:3" is a ratio, `\ud83d\ude00` one
    /// emoji in a path (libyaml refused surrogate escapes); an error points into the file.
    @Test func jsonGraphValues() throws {
        let text = """
            {"version": 1, "nodes": {
              "c": {"op": "constant", "width": 400, "height": 300},
              "k": {"op": "crop", "input": "c", "rect": [100, 100, 100, 30], "aspectRatio": "4:3"},
              "out": {"op": "save", "input": "k", "path": "\\ud83d\\ude00.png"}}}
            """
        let graph = try Graph.parse(text, file: "g.json", baseFolder: "", catalog: testCatalog)
        guard case .value(let ratio as Ratio?)? = graph.node(named: "k")?.parameters["aspectRatio"]?.source,
            case .value(let path as OutputPath)? = graph.node(named: "out")?.parameters["path"]?.source
        else {
            Issue.record("no ratio or path")
            return
        }
        #expect(ratio == .terms(width: 4, height: 3))
        #expect(path.written == "😀.png")
        let wrong = text.replacingOccurrences(of: "\"4:3\"", with: "\"4:0\"")
        #expect {
            try Graph.parse(wrong, file: "g.json", baseFolder: "", catalog: testCatalog)
        } throws: { error in
            (error as? GraphErrors)?.description
                == "g.json:3:81: error: k.aspectRatio: the ratio 4:0 needs a width and a height above 0"
        }
    }
}

extension DocumentValue {
    /// Every value's and key's line and column, in document order.
    var positions: [String] {
        func text(_ location: TesseraGraph.SourceLocation) -> String { "\(location.line):\(location.column)" }
        switch self {
        case .scalar(_, _, let location): return [text(location)]
        case .list(let items, let location): return [text(location)] + items.flatMap(\.positions)
        case .mapping(let entries, let location):
            return [text(location)] + entries.flatMap { [text($0.keyLocation)] + $0.value.positions }
        }
    }
}

extension Literal {
    /// Integers as doubles: Foundation reads 10.0 as the integer 10.
    var numbersAsDoubles: Literal {
        switch self {
        case .integer(let value): .number(Double(value))
        case .list(let items): .list(items.map(\.numbersAsDoubles))
        case .mapping(let entries): .mapping(entries.mapValues(\.numbersAsDoubles))
        default: self
        }
    }
}
