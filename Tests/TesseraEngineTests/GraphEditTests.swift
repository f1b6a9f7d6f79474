import Tessera
import Testing

@testable import TesseraCatalog
@testable import TesseraGraph
@testable import TesseraPluginHost
@testable import TesseraRunner

/// Writing values back into a graph file (`tessera serve`'s "Write to file"): only the value's text
/// changes; comments, quoting, order and layout survive, and the result validates.
struct GraphEditTests {
    static let yaml = """
        # The spotlight, softer.   (a comment before everything)
        version: 1
        nodes:
          photo: { op: load, path: "photo.png" }   # quoted path
          soft:                                    # block style
            op: gaussianBlur
            input: photo
            sigma: 20     # px, as written
          mask: { op: colorMatrix, input: soft, a: [2, 0, 0, 0] }
          black:
            op: constant
            like: photo
            color:
              - 0
              - 0
              - 0
              - 1
          out: { op: save, input: mask, path: 'out.png' }  # single-quoted

        """

    static func edit(_ text: String, _ overrides: [String], file: String = "g.yaml") throws -> String {
        try Graph.settingParameters(overrides.map { try ParameterOverride(parsing: $0) }, inText: text, file: file)
    }

    @Test func replacesOnlyTheValuesText() throws {
        let edited = try Self.edit(Self.yaml, ["soft.sigma=8.5", "mask.a=[1.5, 0, 0, 0.25]"])
        #expect(
            edited
                == Self.yaml.replacingOccurrences(of: "sigma: 20     # px", with: "sigma: 8.5     # px")
                .replacingOccurrences(of: "a: [2, 0, 0, 0] }", with: "a: [1.5, 0, 0, 0.25] }"))
    }

    @Test func addsAParameterNextToItsOp() throws {
        let edited = try Self.edit(Self.yaml, ["photo.shrink=2", "soft.edge=transparent"])
        #expect(edited.contains(#"photo: { op: load, shrink: 2, path: "photo.png" }   # quoted path"#))
        #expect(edited.contains("    op: gaussianBlur\n    edge: transparent\n    input: photo\n"))
        #expect(edited.contains("# The spotlight, softer.   (a comment before everything)"))
    }

    @Test func editedFilesStillValidate() throws {
        let edited = try Self.edit(Self.yaml, ["soft.sigma=3", "photo.shrink=4", "mask.a=[1, 0, 0, 0]"])
        let graph = try Graph.parse(edited, file: "g.yaml", baseFolder: "/tmp", catalog: Catalog.builtin())
        #expect(graph.node(named: "soft")?.parameters["sigma"]?.text == "3")
        #expect(graph.node(named: "photo")?.parameters["shrink"]?.text == "4")
    }

    @Test func quotedValuesAreReplacedWhole() throws {
        let edited = try Self.edit(Self.yaml, ["photo.path=other.png", "out.path=\"b.png\""])
        #expect(edited.contains(#"photo: { op: load, path: other.png }   # quoted path"#))
        #expect(edited.contains(#"out: { op: save, input: mask, path: "b.png" }  # single-quoted"#))
    }

    @Test func jsonFilesKeepTheirLayout() throws {
        let json = """
            {"version": 1,
             "nodes": {
               "photo": {"op": "load", "path": "a.png"},
               "soft": {"op": "gaussianBlur", "input": "photo", "sigma": 20}
             }}
            """
        let edited = try Self.edit(json, ["soft.sigma=2", "photo.shrink=2"], file: "g.json")
        #expect(edited.contains(#""soft": {"op": "gaussianBlur", "input": "photo", "sigma": 2}"#))
        #expect(edited.contains(#""photo": {"op": "load", "shrink": 2, "path": "a.png"}"#))
    }

    /// What cannot be edited in place is refused with the reason, naming the option.
    @Test(arguments: [
        ("black.color=[1, 0, 0, 1]", "block list"),
        ("ghost.sigma=1", "no node 'ghost'"),
    ])
    func refusals(override: String, says: String) throws {
        #expect {
            try Self.edit(Self.yaml, [override])
        } throws: { error in
            "\(error)".contains(says) && "\(error)".contains("--set \(override)")
        }
    }
}
