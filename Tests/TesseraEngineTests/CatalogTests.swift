import Foundation
import Tessera
import Testing

@testable import TesseraCatalog
@testable import TesseraGraph
@testable import TesseraPluginHost
@testable import TesseraRunner
@testable import TesseraNodes

/// A node that exists only here: the catalog JSON, the schema and the docs must show its declaration
/// without any other code mentioning it.
struct TestVignette: Node {
    static let info = NodeInfo(
        op: "testVignette", summary: "Darkens the corners of an image.", access: .point,
        outputs: [.init("output", .image, doc: "The darkened image.")],
        example: """
            a: { op: testConstant }
            v: { op: testVignette, input: a, strength: 0.8 }
            """)

    enum Falloff: String, ParameterChoice { case linear, smooth }

    @Input(doc: "The image to darken.") var input: Image
    @Parameter(doc: "How dark the corners get.", range: 0...2, suggested: 0...1, unit: "stops") var strength = 0.5
    @Parameter(doc: "How the darkening grows toward the corners.") var falloff = Falloff.smooth

    func run() throws -> NodeOutputs { NodeOutputs(.image(input)) }
}

/// A node whose default breaks its own range: registering it must fail.
struct BadDefault: Node {
    static let info = NodeInfo(op: "badDefault", summary: "Broken.", access: .point, outputs: [], example: "")
    @Parameter(doc: "Out of its range.", range: 0...1) var amount = 2.0
    func run() throws -> NodeOutputs { .none }
}

/// A node with a stored property that is not a declaration.
struct UndeclaredProperty: Node {
    static let info = NodeInfo(op: "undeclaredProperty", summary: "Broken.", access: .point, outputs: [], example: "")
    var cache = 0
    func run() throws -> NodeOutputs { .none }
}

@Suite struct CatalogTests {
    func catalogWithVignette() throws -> Catalog {
        var catalog = testCatalog
        try catalog.register(TestVignette.self)
        return catalog
    }

    @Test func declarationIsReadFromTheProperties() throws {
        let declaration = try NodeDeclaration(TestVignette.self)
        #expect(declaration.inputs.map(\.name) == ["input"])
        #expect(declaration.parameters.map(\.name) == ["strength", "falloff"])
        let strength = try #require(declaration.parameter(named: "strength"))
        #expect(strength.defaultValue == .number(0.5))
        #expect(strength.range == 0...2)
        #expect(strength.suggested == 0...1)
        #expect(strength.unit == "stops")
        #expect(strength.type == .number)
        #expect(declaration.parameter(named: "falloff")?.type == .choice(["linear", "smooth"]))
    }

    @Test func nodesJSONShowsATestOnlyNode() throws {
        let json = try catalogWithVignette().json
        let object = try #require(JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let nodes = try #require(object["nodes"] as? [[String: Any]])
        let node = try #require(nodes.first { $0["op"] as? String == "testVignette" })
        #expect(node["summary"] as? String == "Darkens the corners of an image.")
        #expect(node["access"] as? String == "point")
        let parameters = try #require(node["parameters"] as? [[String: Any]])
        let strength = try #require(parameters.first { $0["name"] as? String == "strength" })
        #expect(strength["default"] as? Double == 0.5)
        #expect(strength["minimum"] as? Int == 0)
        #expect(strength["maximum"] as? Int == 2)
        #expect(strength["suggestedMaximum"] as? Int == 1)
        #expect(strength["unit"] as? String == "stops")
        #expect(strength["doc"] as? String == "How dark the corners get.")
        let falloff = try #require(parameters.first { $0["name"] as? String == "falloff" })
        #expect(falloff["choices"] as? [String] == ["linear", "smooth"])
        let inputs = try #require(node["inputs"] as? [[String: Any]])
        #expect(inputs.first?["type"] as? String == "image")
    }

    @Test func schemaShowsATestOnlyNode() throws {
        let schema = try catalogWithVignette().jsonSchema
        let object = try #require(JSONSerialization.jsonObject(with: Data(schema.utf8)) as? [String: Any])
        let definitions = try #require(object["$defs"] as? [String: Any])
        let node = try #require(definitions["op-testVignette"] as? [String: Any])
        let properties = try #require(node["properties"] as? [String: Any])
        let strength = try #require(properties["strength"] as? [String: Any])
        // A number parameter may also come from an upstream number: {from: node.port}.
        let choices = try #require(strength["anyOf"] as? [[String: Any]])
        #expect(choices.first?["type"] as? String == "number")
        #expect(choices.first?["minimum"] as? Int == 0)
        #expect(choices.first?["maximum"] as? Int == 2)
        #expect(choices.last?["$ref"] as? String == "#/$defs/upstream")
        #expect(strength["default"] as? Double == 0.5)
        #expect(
            strength["description"] as? String
                == "How dark the corners get. Unit: stops. Suggested: 0...1. May come from a number ({from: node.port})."
        )
        #expect((properties["falloff"] as? [String: Any])?["enum"] as? [String] == ["linear", "smooth"])
        #expect(node["required"] as? [String] == ["op", "input"])
        let ops = ((definitions["node"] as? [String: Any])?["properties"] as? [String: Any])?["op"] as? [String: Any]
        #expect((ops?["enum"] as? [String])?.contains("testVignette") == true)
    }

    @Test func docsShowATestOnlyNode() throws {
        let catalog = try catalogWithVignette()
        let markdown = catalog.markdown
        #expect(markdown.contains("## testVignette\n\nDarkens the corners of an image."))
        #expect(
            markdown.contains("| `strength` | number | `0.5` | 0...2 (suggested 0...1) | How dark the corners get."))
        #expect(markdown.contains("| `falloff` | one of linear, smooth | `smooth` |"))
        let text = try #require(catalog.declaration(op: "testVignette")).text
        #expect(text.contains("  strength: number, default 0.5, 0...2\n      How dark the corners get."))
        let row = catalog.table.split(separator: "\n").first { $0.hasPrefix("testVignette ") }
        #expect(
            row?.split(separator: " ", omittingEmptySubsequences: true).prefix(3) == [
                "testVignette", "point", "Darkens",
            ])
    }

    @Test func registrationRefusesBrokenDeclarations() {
        #expect(throws: CatalogError.self) { try NodeDeclaration(BadDefault.self) }
        #expect(throws: CatalogError.self) { try NodeDeclaration(UndeclaredProperty.self) }
        var catalog = Catalog.builtin()
        #expect(throws: CatalogError.self) { try catalog.register(Load.self) }
    }

    /// Every default lies inside its range (registration checks it) and every example validates.
    @Test(arguments: try catalogWithVignetteOps())
    func exampleValidates(_ op: String) throws {
        var catalog = testCatalog
        try catalog.register(TestVignette.self)
        let declaration = try #require(catalog.declaration(op: op))
        let text =
            "version: 1\nnodes:\n"
            + declaration.info.example.split(separator: "\n").map { "  " + $0 }
            .joined(separator: "\n")
        let graph = try Graph.parse(text, file: "\(op) example", baseFolder: "", catalog: catalog)
        #expect(graph.nodes.contains { $0.declaration.op == op })
    }

    /// Every parameter type a node declares survives a plugin's catalog: its JSON (as `tessera nodes --json`
    /// writes it) read back by the plugin loader gives the same type, default and range. Output paths
    /// are left out: plugin nodes are never sinks.
    @Test func pluginCatalogReadsEveryParameterType() throws {
        let catalog = try catalogWithVignette()
        var types: Set<String> = []
        for declaration in catalog.declarations {
            for parameter in declaration.parameters where parameter.type != .path(isOutput: true) {
                let entry = try JSONDecoder().decode(
                    PluginCatalog.ParameterEntry.self, from: Data(JSON.text(parameter.jsonObject).utf8))
                let read = try PluginCatalog.field(entry, op: declaration.op).declaration
                let name = "\(declaration.op).\(parameter.name)"
                #expect(read.type == parameter.type, "\(name)")
                #expect(read.defaultValue == parameter.defaultValue, "\(name)")
                #expect(read.range == parameter.range, "\(name)")
                types.insert(parameter.typeKeyword)
            }
        }
        #expect(types.isSuperset(of: ["number", "integer", "boolean", "string", "choice", "path", "numbers", "rect"]))
        #expect(types.isSuperset(of: ["numberOrAuto", "ratio"]))
    }

    /// A plugin's `create` gets a ratio as its number, set or default, so a C plugin never parses `4:3`.
    @Test func pluginsGetRatiosAsNumbers() throws {
        var set = Parameter<Ratio?>(wrappedValue: nil, doc: "Set.").declaration
        set.name = "set"
        var optional = Parameter<Ratio?>(wrappedValue: nil, doc: "Set, optional.").declaration
        optional.name = "optional"
        var byDefault = Parameter<Ratio>(wrappedValue: .terms(width: 16, height: 9), doc: "Default.").declaration
        byDefault.name = "byDefault"
        let json = PluginNode.parametersJSON(
            [set, optional, byDefault],
            values: ["set": Ratio.terms(width: 4, height: 3), "optional": Ratio?.some(.number(1.5))])
        // JSONDecoder, as the Swift SDK reads them: JSONSerialization on Linux reads 16/9 a bit off.
        let object = try JSONDecoder().decode([String: Double].self, from: Data(json.utf8))
        #expect(object == ["set": 4.0 / 3, "optional": 1.5, "byDefault": 16.0 / 9])
    }

    /// The parameters' JSON a plugin's `create` reads is JSON whatever the values hold: quotes, backslashes
    /// and control characters in strings, fractions read back exactly, whole numbers as integers, keys
    /// sorted, a number JSON cannot hold as null.
    @Test func pluginParametersAreValidJSON() throws {
        let text = PluginNode.json(
            .mapping([
                "b": .string("a \"quoted\" C:\\path\nline\u{1}é"), "a": .number(0.1), "c": .number(2),
                "d": .list([.bool(true), .null, .integer(-3), .number(1e-7)]), "e": .number(.infinity),
                "f": .mapping(["y": .number(16.0 / 9), "x": .string("")]),
            ]))
        #expect(text.hasPrefix("{\"a\":0.1,\"b\":"))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect(object["b"] as? String == "a \"quoted\" C:\\path\nline\u{1}é")
        #expect(object["c"] as? Int == 2 && object["e"] is NSNull)
        let list = try #require(object["d"] as? [Any])
        #expect(list.count == 4 && list[0] as? Bool == true && list[1] is NSNull && list[2] as? Int == -3)
        let fractions = PluginNode.json(.mapping(["y": .number(16.0 / 9), "z": .number(1e-7)]))
        let exact = try JSONDecoder().decode([String: Double].self, from: Data(fractions.utf8))
        #expect(exact == ["y": 16.0 / 9, "z": 1e-7])
    }

    /// The committed schema, node reference and the guide's node table are what the catalog generates now.
    @Test func committedFilesAreCurrent() throws {
        let catalog = Catalog.builtin()
        let hint = "stale: run `make docs`"
        let schema = try String(
            contentsOf: repositoryRoot.appendingPathComponent("tessera.schema.json"), encoding: .utf8)
        #expect(schema == catalog.jsonSchema, "tessera.schema.json is \(hint)")
        let docs = try String(contentsOf: repositoryRoot.appendingPathComponent("Docs/Nodes.md"), encoding: .utf8)
        #expect(docs == catalog.markdown, "Docs/Nodes.md is \(hint)")
        let guide = try String(contentsOf: repositoryRoot.appendingPathComponent("Docs/Guide.md"), encoding: .utf8)
        #expect(
            guide.contains("<!-- nodes:begin -->\n" + catalog.markdownTable + "<!-- nodes:end -->"),
            "Docs/Guide.md's node list is \(hint)")
    }
}

func catalogWithVignetteOps() throws -> [String] {
    testCatalog.ops + ["testVignette"]
}

/// A plugin's catalog read without its library, as a plugin author checks it (and the fuzzer reads it).
@Suite struct CatalogCheckTests {
    static let sobel = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fuzz/Corpus/catalog/sobel.json")

    @Test func aCatalogIsReadAsLoadingReadsIt() throws {
        let text = try String(contentsOf: Self.sobel, encoding: .utf8)
        let declarations = try Plugin.declarations(catalog: text, path: "libsobel.so")
        #expect(declarations.map(\.op) == ["sobel"])
        #expect(declarations.first?.parameter(named: "scale") != nil)
        #expect(declarations.first?.origin == "libsobel.so")
        // Declared, not runnable: there is no library behind it.
        #expect(throws: (any Error).self) { try declarations.first?.instantiate(parameters: [:], inputs: [:]) }
        #expect(throws: PluginError.self) { try Plugin.declarations(catalog: "{\"nodes\": 3}", path: "x.so") }
        do {
            _ = try Plugin.declarations(
                catalog: text.replacingOccurrences(of: "\"area\"", with: "\"sink\""), path: "x.so")
            Issue.record("a sink is not a node a plugin can have")
        } catch {
            #expect(error.description.hasPrefix("x.so: sobel: access 'sink' is not one a plugin node can have"))
        }
    }
}
