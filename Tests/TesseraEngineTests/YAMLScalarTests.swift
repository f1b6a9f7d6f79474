import Tessera
import Testing

@testable import TesseraCatalog
@testable import TesseraGraph
@testable import TesseraPluginHost
@testable import TesseraRunner

/// A scalar as a graph file writes it, and the literal YAML 1.2's core schema makes of it.
struct YAMLScalar: CustomTestStringConvertible, Sendable {
    var written: String
    var literal: Literal

    init(_ written: String, _ literal: Literal) {
        self.written = written
        self.literal = literal
    }

    var testDescription: String { written.isEmpty ? "(empty)" : written }
}

let yamlScalars: [YAMLScalar] = [
    // YAML 1.1 read these as the base-60 numbers 243, 969 and 750.
    YAMLScalar("4:3", "4:3"),
    YAMLScalar("16:9", "16:9"),
    YAMLScalar("12:30", "12:30"),
    // YAML 1.1 booleans are strings.
    YAMLScalar("yes", "yes"), YAMLScalar("no", "no"), YAMLScalar("on", "on"), YAMLScalar("off", "off"),
    YAMLScalar("Yes", "Yes"), YAMLScalar("y", "y"), YAMLScalar("n", "n"),
    // Booleans: true and false in three spellings each.
    YAMLScalar("true", true), YAMLScalar("True", true), YAMLScalar("TRUE", true),
    YAMLScalar("false", false), YAMLScalar("False", false), YAMLScalar("FALSE", false),
    YAMLScalar("tRUE", "tRUE"),
    // Integers: decimal (a leading 0 is not octal), 0o octal, 0x hex; no sign on octal or hex.
    YAMLScalar("017", 17), YAMLScalar("0o17", 15), YAMLScalar("0x1F", 31), YAMLScalar("0x1f", 31),
    YAMLScalar("+17", 17), YAMLScalar("-17", -17), YAMLScalar("0", 0),
    YAMLScalar("-0o17", "-0o17"), YAMLScalar("-0x1F", "-0x1F"),
    YAMLScalar("1_000", "1_000"), YAMLScalar("0b101", "0b101"),
    YAMLScalar("9223372036854775808", .number(9_223_372_036_854_775_808)),
    // Floats.
    YAMLScalar("1e3", .number(1000)), YAMLScalar("1E+3", .number(1000)), YAMLScalar(".5", .number(0.5)),
    YAMLScalar("5.", .number(5)), YAMLScalar("-.5e-1", .number(-0.05)), YAMLScalar("1.333", .number(1.333)),
    YAMLScalar(".inf", .number(.infinity)), YAMLScalar("+.inf", .number(.infinity)),
    YAMLScalar(".Inf", .number(.infinity)), YAMLScalar("-.INF", .number(-.infinity)),
    YAMLScalar(".nan", .number(.nan)), YAMLScalar(".NaN", .number(.nan)), YAMLScalar(".NAN", .number(.nan)),
    YAMLScalar("inf", "inf"), YAMLScalar("nan", "nan"),
    // Null.
    YAMLScalar("null", nil), YAMLScalar("Null", nil), YAMLScalar("NULL", nil), YAMLScalar("~", nil),
    YAMLScalar("", nil),
    // Quoted scalars are strings.
    YAMLScalar("\"4:3\"", "4:3"), YAMLScalar("\"017\"", "017"), YAMLScalar("'yes'", "yes"),
    YAMLScalar("\"true\"", "true"), YAMLScalar("\"null\"", "null"), YAMLScalar("''", ""),
    // Other YAML 1.1 types are strings.
    YAMLScalar("2001-12-14", "2001-12-14"), YAMLScalar("<<", "<<"), YAMLScalar("=", "="),
    // Explicit tags.
    YAMLScalar("!!str 5", "5"), YAMLScalar("!!str true", "true"), YAMLScalar("!!str ~", "~"),
    YAMLScalar("!!int \"5\"", 5), YAMLScalar("!!int '0x1F'", 31), YAMLScalar("!!int 017", 17),
    YAMLScalar("!!float 5", .number(5)), YAMLScalar("!!float \"1e3\"", .number(1000)),
    YAMLScalar("!!bool \"True\"", true), YAMLScalar("!!null \"\"", nil), YAMLScalar("! 5", "5"),
]

/// Literals compared with NaN equal to itself.
func same(_ a: Literal?, _ b: Literal?) -> Bool {
    if case .number(let x)? = a, case .number(let y)? = b, x.isNaN, y.isNaN { return true }
    return a == b
}

/// A parameter value as a graph file and `--set` write it, and what the graph makes of it.
struct ScalarParameter: CustomTestStringConvertible, Sendable {
    enum Outcome: Sendable, Equatable {
        /// The parameter's value, as its literal (a ratio written 4:3 is "4:3", one written 1.333 the number).
        case value(Literal)
        /// The message after "error: ".
        case error(String)
    }

    var parameter: String
    var written: String
    var outcome: Outcome
    /// What `--set` gives where it differs from the file.
    var setOutcome: Outcome?
    /// Where a file's error is, when not at the value (a syntax error).
    var place: String?

    init(_ parameter: String, _ written: String, _ outcome: Outcome, set: Outcome? = nil, at place: String? = nil) {
        self.parameter = parameter
        self.written = written
        self.outcome = outcome
        self.setOutcome = set
        self.place = place
    }

    var testDescription: String { "\(parameter): \(written)" }
}

let scalarParameters: [ScalarParameter] = [
    // Ratios: W:H, quoted or not, or a number; both terms above 0; the range applies to the value.
    ScalarParameter("ratio", "4:3", .value("4:3")),
    ScalarParameter("ratio", "16:9", .value("16:9")),
    ScalarParameter("ratio", "3:4", .value("3:4")),
    ScalarParameter("ratio", "\"4:3\"", .value("4:3")),
    ScalarParameter("ratio", "1.85:1", .value("1.85:1")),
    ScalarParameter("ratio", "1.333", .value(.number(1.333))),
    ScalarParameter("ratio", "2", .value(.number(2))),
    ScalarParameter("ratio", "0:3", .error("s.ratio: the ratio 0:3 needs a width and a height above 0")),
    ScalarParameter("ratio", "4:0", .error("s.ratio: the ratio 4:0 needs a width and a height above 0")),
    ScalarParameter("ratio", "-4:3", .error("s.ratio: the ratio -4:3 needs a width and a height above 0")),
    ScalarParameter(
        "ratio", "\"4:\"", .error("s.ratio: expected a ratio W:H (as 4:3) or a number, found a string '4:'")),
    ScalarParameter(
        "ratio", "4:",
        .error(
            "invalid YAML: did not find expected ',' or '}' (while parsing a flow mapping at line 3, column 6)"),
        set: .error("s.ratio: expected a ratio W:H (as 4:3) or a number, found a string '4:'"), at: "g.yaml:3:33"),
    ScalarParameter(
        "ratio", "abc", .error("s.ratio: expected a ratio W:H (as 4:3) or a number, found a string 'abc'")),
    ScalarParameter(
        "ratio", "4:3:2", .error("s.ratio: expected a ratio W:H (as 4:3) or a number, found a string '4:3:2'")),
    ScalarParameter("ratio", "-1.5", .error("s.ratio: a ratio must be above 0, found -1.5")),
    ScalarParameter("ratio", "0", .error("s.ratio: a ratio must be above 0, found 0")),
    ScalarParameter("ratio", "2000:1", .error("s.ratio: 2000 is out of range: 0.001...1000")),
    ScalarParameter("ratio", "1:2000", .error("s.ratio: 0.0005 is out of range: 0.001...1000")),
    ScalarParameter(
        "ratio", ".inf", .error("s.ratio: expected a ratio W:H (as 4:3) or a number, found a number (.inf)")),
    ScalarParameter(
        "ratio", "true", .error("s.ratio: expected a ratio W:H (as 4:3) or a number, found a boolean (true)")),
    ScalarParameter("ratio", "~", .value(nil)),
    ScalarParameter(
        "ratio", "", .value(nil),
        set: .error("s.ratio: expected a ratio W:H (as 4:3) or a number, found a string ''")),

    // Booleans: YAML 1.1's yes/no/on/off are strings now, refused with the fix.
    ScalarParameter(
        "flag", "yes",
        .error("s.flag: expected true or false, found the string 'yes' (YAML 1.2 reads yes as a string; write true)")),
    ScalarParameter(
        "flag", "no",
        .error("s.flag: expected true or false, found the string 'no' (YAML 1.2 reads no as a string; write false)")),
    ScalarParameter(
        "flag", "On",
        .error("s.flag: expected true or false, found the string 'On' (YAML 1.2 reads On as a string; write true)")),
    ScalarParameter(
        "flag", "off",
        .error("s.flag: expected true or false, found the string 'off' (YAML 1.2 reads off as a string; write false)")),
    ScalarParameter(
        "flag", "\"true\"",
        .error("s.flag: expected true or false, found the string 'true' (write true without quotes)")),
    ScalarParameter("flag", "True", .value(true)),
    ScalarParameter("flag", "FALSE", .value(false)),
    ScalarParameter("flag", "1", .error("s.flag: expected true or false, found a number (1)")),

    // Integers: 017 is seventeen, 0o17 fifteen.
    ScalarParameter("count", "017", .value(17)),
    ScalarParameter("count", "0o17", .value(15)),
    ScalarParameter("count", "0x1F", .value(31)),
    ScalarParameter("count", "+17", .value(17)),
    ScalarParameter("count", "1e3", .value(1000)),
    ScalarParameter("count", "1_000", .error("s.count: expected an integer, found a string '1_000'")),
    ScalarParameter("count", "-0o17", .error("s.count: expected an integer, found a string '-0o17'")),
    ScalarParameter("count", "!!int \"5\"", .value(5)),
    ScalarParameter("count", "!!str 5", .error("s.count: expected an integer, found a string '5'")),
    ScalarParameter(
        "count", "!!int abc", .error("invalid YAML: 'abc' does not fit its tag !!int"),
        set: .error("cannot read the value '!!int abc'")),

    // Numbers.
    ScalarParameter("number", ".5", .value(.number(0.5))),
    ScalarParameter("number", "5.", .value(.number(5))),
    ScalarParameter("number", "1e3", .value(.number(1000))),
    ScalarParameter("number", "!!float 5", .value(.number(5))),
    ScalarParameter("number", "12:30", .error("s.number: expected a number, found a string '12:30'")),
    ScalarParameter("number", ".nan", .error("s.number: expected a number, found a number (.nan)")),
    ScalarParameter("number", "-.inf", .error("s.number: expected a number, found a number (-.inf)")),
]

/// How graph files and `--set` read scalars: by YAML 1.2's core schema, as the YAML language server does.
@Suite struct YAMLScalarTests {
    /// The value of `key` in a one-line YAML document.
    static func value(_ written: String) -> (Literal?, [String]) {
        let (document, diagnostics) = DocumentParser.parse("value: \(written)\n", file: "g.yaml")
        guard case .mapping(let entries, _)? = document else { return (nil, diagnostics.map(\.description)) }
        return (entries.first?.value.literal, diagnostics.map(\.description))
    }

    @Test(arguments: yamlScalars)
    func graphFilesReadTheCoreSchema(_ scalar: YAMLScalar) {
        let (literal, diagnostics) = Self.value(scalar.written)
        #expect(diagnostics.isEmpty)
        #expect(same(literal, scalar.literal), "\(String(describing: literal))")
    }

    /// An empty `--set` value is the empty string (a path or caption may be empty), not null.
    @Test(arguments: yamlScalars.filter { !$0.written.isEmpty })
    func setValuesReadTheCoreSchema(_ scalar: YAMLScalar) {
        let literal = DocumentParser.parseValue(scalar.written)
        #expect(same(literal, scalar.literal), "\(String(describing: literal))")
    }

    @Test func tagsThatDoNotFitAreErrors() {
        #expect(Self.value("!!int 1.5").1 == ["g.yaml:1:8: error: invalid YAML: '1.5' does not fit its tag !!int"])
        #expect(Self.value("!!bool yes").1 == ["g.yaml:1:8: error: invalid YAML: 'yes' does not fit its tag !!bool"])
        #expect(Self.value("!!null 0").1 == ["g.yaml:1:8: error: invalid YAML: '0' does not fit its tag !!null"])
        #expect(
            Self.value("!!float 0o17").1 == ["g.yaml:1:8: error: invalid YAML: '0o17' does not fit its tag !!float"])
    }

    /// Each value written in a graph file, and the same value given with `--set`.
    @Test(arguments: scalarParameters, [false, true])
    func parameterValues(_ row: ScalarParameter, fromSet: Bool) throws {
        let prefix = "  s: { op: testScalars, \(row.parameter): "
        let text = "version: 1\nnodes:\n" + (fromSet ? "  s: { op: testScalars }\n" : prefix + row.written + " }\n")
        let option = "s.\(row.parameter)=\(row.written)"
        let overrides = fromSet ? [try ParameterOverride(parsing: option)] : []
        let outcome = fromSet ? row.setOutcome ?? row.outcome : row.outcome
        let graph: Graph
        do {
            graph = try Graph.parse(text, file: "g.yaml", baseFolder: "", catalog: testCatalog, overrides: overrides)
        } catch {
            guard case .error(let message) = outcome else {
                Issue.record("refused: \(error)")
                return
            }
            // The message points at the value: in the file, its line and column; with --set, the option.
            let place = fromSet ? "--set \(option)" : row.place ?? "g.yaml:3:\(prefix.count + 1)"
            #expect(error.diagnostics.map(\.description) == ["\(place): error: \(message)"])
            return
        }
        guard case .value(let expected) = outcome else {
            Issue.record("accepted")
            return
        }
        let setting = try #require(graph.node(named: "s")?.parameters[row.parameter])
        guard case .value(let value) = setting.source else {
            Issue.record("not a value")
            return
        }
        #expect(value.literal == expected)
    }

    /// The first user's sharp edge: `aspectRatio: 4:3` read as 243 gave a sliver. Now a 100x30 rectangle
    /// grows to 100x75 around its center, from the file and from `--set`.
    @Test(arguments: [false, true])
    func aspectRatioFourToThreeCrops(fromSet: Bool) throws {
        let ratio = fromSet ? "1" : "4:3"
        let text = """
            version: 1
            nodes:
              c: { op: constant, width: 400, height: 300, color: [1, 0, 0, 1] }
              k: { op: crop, input: c, rect: [100, 100, 100, 30], aspectRatio: \(ratio) }
            """
        let overrides = fromSet ? [try ParameterOverride(parsing: "k.aspectRatio=4:3")] : []
        let graph = try Graph.parse(text, file: "g.yaml", baseFolder: "", catalog: testCatalog, overrides: overrides)
        let output = try #require(try graph.run(keeping: ["k"]).outputs["k"])
        guard case .image(let image) = output else {
            Issue.record("not an image")
            return
        }
        #expect(image.width == 100 && image.height == 75, "\(image.width)x\(image.height)")
        let crop = try #require(graph.node(named: "k"))
        guard case .value(let ratio as Ratio?)? = crop.parameters["aspectRatio"]?.source else {
            Issue.record("no ratio")
            return
        }
        #expect(ratio == .terms(width: 4, height: 3))
        #expect(ratio?.value == 4.0 / 3)
    }

    /// A boolean parameter of a built-in node given `yes` says what to write instead.
    @Test func builtinBooleanGivenYes() {
        let text = """
            version: 1
            nodes:
              photo: { op: load, path: x.png, keepOrientation: yes }
              out: { op: save, input: photo, path: o.png }
            """
        #expect {
            try Graph.parse(text, file: "g.yaml", baseFolder: "", catalog: testCatalog)
        } throws: { error in
            (error as? GraphErrors)?.description
                == "g.yaml:3:52: error: photo.keepOrientation: expected true or false, found the string 'yes' "
                + "(YAML 1.2 reads yes as a string; write true)"
        }
    }
}
