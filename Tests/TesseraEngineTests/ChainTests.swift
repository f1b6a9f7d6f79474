import Testing

@testable import Tessera

/// One-line chains: their syntax, the graph they stand for, and errors pointed back at their columns.
@Suite struct ChainTests {
    @Test func stepsAndSettingsKeepTheirColumns() throws {
        let chain = try Chain(parsing: "contrast amount=1.5 |  crop rect=[0, 0, 10, 8] | save path=\"a b|c.png\"")
        #expect(chain.steps.map(\.op.text) == ["contrast", "crop", "save"])
        #expect(chain.steps.map(\.op.column) == [1, 24, 50])
        let rect = try #require(chain.steps[1].settings.first)
        #expect(rect.name == Chain.Token(text: "rect", column: 29))
        #expect(rect.value == Chain.Token(text: "[0, 0, 10, 8]", column: 34))
        #expect(chain.steps[2].settings.first?.value.text == "\"a b|c.png\"")
    }

    @Test(arguments: [
        ("contrast | | crop", 11, "an empty step"),
        ("contrast amount", 10, "'amount' is not a setting: write name=value"),
        ("contrast =3", 10, "'=3' is not a setting"),
        ("contrast amount=", 10, "amount has no value"),
        ("crop rect=[0, 0", 11, "'[' is never closed"),
        ("save path=\"x.png", 11, "the quote \" is never closed"),
        ("", 1, "an empty step"),
    ])
    func syntaxErrorsNameTheirColumn(text: String, column: Int, message: String) {
        do {
            _ = try Chain(parsing: text)
            Issue.record("'\(text)' parsed")
        } catch {
            #expect(error.column == column)
            #expect(error.message.hasPrefix(message), "\(error.message)")
        }
    }

    @Test func theGraphReadsStepByStepAndNamesRepeatsApart() throws {
        let chain = try Chain(
            parsing: "contrast amount=2 | contrast amount=0.5 | blendWithMask background=@in mask=@contrast")
        #expect(chain.nodeNames == ["contrast", "contrast2", "blendWithMask"])
        let text = chain.graphText(reading: "a.png", writing: "b.png", catalog: .builtin())
        #expect(
            text == """
                version: 1
                nodes:
                  in: { op: load, path: "a.png" }
                  contrast: { op: contrast, input: in, amount: 2 }
                  contrast2: { op: contrast, input: contrast, amount: 0.5 }
                  blendWithMask: { op: blendWithMask, input: contrast2, background: in, mask: contrast }
                  out: { op: save, input: blendWithMask, path: "b.png" }

                """)
        // It is a valid graph: the one validator checked it.
        let graph = try Graph.parse(text, file: "chain", baseFolder: "/", catalog: .builtin())
        #expect(graph.nodes.count == 5)
    }

    /// A validation error of the graph comes back to the place in the chain that caused it.
    @Test(arguments: [
        ("contrast amount=1.5 | gaussianBlur sigma=-2", 42, "sigma: -2 is out of range"),
        ("contrast amount=1.5 | gausianBlur sigma=2", 23, "unknown op 'gausianBlur'; did you mean 'gaussianBlur'?"),
        ("contrast amount=1.5 | gaussianBlur sigam=2", 36, "has no input or parameter 'sigam'"),
        ("crop aspectRatio=4:0", 18, "aspectRatio"),
    ])
    func validationErrorsPointIntoTheChain(text: String, column: Int, message: String) throws {
        let chain = try Chain(parsing: text)
        let catalog = Catalog.builtin()
        let graphText = chain.graphText(reading: "a.png", writing: "b.png", catalog: catalog)
        do {
            _ = try Graph.parse(graphText, file: "chain", baseFolder: "/", catalog: catalog)
            Issue.record("'\(text)' validated")
        } catch {
            let first = try #require(error.diagnostics.first)
            #expect(first.message.contains(message), "\(first.message)")
            let found = chain.column(of: first.location, reading: "a.png", writing: "b.png", catalog: catalog)
            #expect(found == column, "\(first)")
        }
    }
}
