import TesseraCatalog
import TesseraCore

/// A one-line chain of nodes, as `tessera chain` takes it:
///
///     contrast amount=1.5 | gaussianBlur sigma=2 | crop aspectRatio=4:3
///
/// Steps are separated by `|`; each is an op and its settings as `name=value`, the value written as in a
/// graph file (`rect=[0, 0, 100, 80]`, `color="#ff8800"`). Each step reads the one before through its
/// first image input; `name=@step` connects another input to an earlier step (`@in` is the image read).
/// The chain stands for a graph file (``graphText(reading:writing:catalog:)``), which the one validator
/// checks, so a chain has the same nodes, parameters and errors as a file; ``column(of:)`` points an
/// error of that graph back at the chain.
package struct Chain: Sendable {
    /// A piece of the chain's text and where it starts (a column, counted from 1).
    package struct Token: Sendable, Equatable {
        package var text: String
        package var column: Int

        package init(text: String, column: Int) {
            self.text = text
            self.column = column
        }
    }

    package struct Step: Sendable, Equatable {
        package var op: Token
        /// `name=value` settings: the name, and the value's text.
        package var settings: [(name: Token, value: Token)]

        package static func == (a: Step, b: Step) -> Bool {
            a.op == b.op && a.settings.map(\.name) == b.settings.map(\.name)
                && a.settings.map(\.value) == b.settings.map(\.value)
        }
    }

    package var text: String
    package var steps: [Step]

    /// The node that reads the chain's input, and the one that writes its output.
    package static let inputNode = "in"
    package static let outputNode = "out"

    /// Splits `text` into steps; a syntax error names its column.
    package init(parsing text: String) throws(ChainError) {
        self.text = text
        steps = []
        for piece in try Self.split(Array(text), at: { $0 == "|" }, from: 1) {
            let words = try Self.split(Array(piece.text), at: { $0 == " " || $0 == "\t" }, from: piece.column)
                .filter { !$0.text.isEmpty }
            guard let op = words.first else {
                throw ChainError(
                    column: piece.column, "an empty step: write an op between the bars, as 'contrast amount=1.5'")
            }
            var settings: [(name: Token, value: Token)] = []
            for word in words.dropFirst() {
                guard let equals = word.text.firstIndex(of: "="), equals != word.text.startIndex else {
                    throw ChainError(
                        column: word.column, "'\(word.text)' is not a setting: write name=value, as sigma=2")
                }
                let name = String(word.text[..<equals])
                let value = String(word.text[word.text.index(after: equals)...])
                guard !value.isEmpty else {
                    throw ChainError(column: word.column, "\(name) has no value: write \(name)=VALUE")
                }
                settings.append(
                    (Token(text: name, column: word.column), Token(text: value, column: word.column + name.count + 1)))
            }
            steps.append(Step(op: op, settings: settings))
        }
    }

    /// Splits `characters` at the separators outside quotes and brackets; each part keeps its column
    /// (`first` is the column of the first character). An unclosed quote or bracket is an error at it.
    private static func split(_ characters: [Character], at isSeparator: (Character) -> Bool, from first: Int)
        throws(ChainError) -> [Token]
    {
        var parts: [Token] = []
        var current = ""
        var start = first
        var quote: (character: Character, column: Int)?
        var open: [(character: Character, column: Int)] = []
        let closing: [Character: Character] = ["[": "]", "{": "}", "(": ")"]
        for (offset, character) in characters.enumerated() {
            let column = first + offset
            if let active = quote {
                if character == active.character { quote = nil }
            } else if character == "\"" || character == "'" {
                quote = (character, column)
            } else if closing[character] != nil {
                open.append((character, column))
            } else if let last = open.last, closing[last.character] == character {
                open.removeLast()
            } else if open.isEmpty, isSeparator(character) {
                parts.append(Token(text: current, column: start))
                current = ""
                start = column + 1
                continue
            }
            current.append(character)
        }
        if let quote { throw ChainError(column: quote.column, "the quote \(quote.character) is never closed") }
        if let bracket = open.last {
            throw ChainError(column: bracket.column, "'\(bracket.character)' is never closed")
        }
        parts.append(Token(text: current, column: start))
        return parts
    }

    /// The name of each step's node: its op, numbered from the second of the same op (`contrast`,
    /// `contrast2`).
    package var nodeNames: [String] {
        var seen: [String: Int] = [:]
        return steps.map { step in
            let count = seen[step.op.text, default: 0] + 1
            seen[step.op.text] = count
            let name = count == 1 ? step.op.text : "\(step.op.text)\(count)"
            return [Self.inputNode, Self.outputNode].contains(name) ? name + "Step" : name
        }
    }

    /// Where a piece of the graph text came from: its line and columns there, and its column in the chain.
    struct Origin {
        var line: Int
        var columns: Range<Int>
        var chainColumn: Int
        var length: Int
    }

    /// The graph file this chain stands for: a `load` of `input`, the steps in order, and a `save` to
    /// `output` (none when nil) with `saving`'s settings (`quality: 82`, each value written as in a
    /// graph file), one node a line as the example graphs are written.
    package func graphText(
        reading input: String, writing output: String?, saving: [(name: String, value: String)], catalog: Catalog
    ) -> String {
        graph(reading: input, writing: output, saving: saving, catalog: catalog).text
    }

    package func graphText(reading input: String, writing output: String?, catalog: Catalog) -> String {
        graphText(reading: input, writing: output, saving: [], catalog: catalog)
    }

    func graph(
        reading input: String, writing output: String?, saving: [(name: String, value: String)] = [], catalog: Catalog
    ) -> (text: String, origins: [Origin]) {
        var lines = ["version: 1", "nodes:", "  \(Self.inputNode): { op: load, path: \(JSONText.quoted(input)) }"]
        var origins: [Origin] = []
        var previous = Self.inputNode
        for (step, name) in zip(steps, nodeNames) {
            let line = lines.count + 1
            var text = "  \(name): { op: "
            func piece(_ words: String, from token: Token) {
                origins.append(
                    Origin(
                        line: line, columns: (text.count + 1)..<(text.count + 1 + words.count),
                        chainColumn: token.column, length: token.text.count))
                text += words
            }
            piece(step.op.text, from: step.op)
            let set = Set(step.settings.map(\.name.text))
            // The step reads the one before through its first image input the chain does not set.
            let reads = catalog.declaration(op: step.op.text)?.inputs.first { input in
                input.accepted.contains(.image) && input.readsPixels && !set.contains(input.name)
            }
            if let reads {
                text += ", "
                piece("\(reads.name): \(previous)", from: step.op)
            }
            for (key, value) in step.settings {
                text += ", "
                piece(key.text, from: key)
                text += ": "
                piece(value.text.hasPrefix("@") ? String(value.text.dropFirst()) : value.text, from: value)
            }
            lines.append(text + " }")
            previous = name
        }
        if let output {
            let settings = saving.map { ", \($0.name): \($0.value)" }.joined()
            lines.append(
                "  \(Self.outputNode): { op: save, input: \(previous), path: \(JSONText.quoted(output))\(settings) }")
        }
        return (lines.joined(separator: "\n") + "\n", origins)
    }

    /// The column in the chain of a place in the graph text made for it (`reading`, `writing` and
    /// `catalog` as given there); nil for the lines of the `load` and `save` the chain adds.
    package func column(
        of location: SourceLocation, reading input: String, writing output: String?, catalog: Catalog
    ) -> Int? {
        let origins = graph(reading: input, writing: output, catalog: catalog).origins.filter {
            $0.line == location.line
        }
        guard let first = origins.first else { return nil }
        guard let piece = origins.last(where: { $0.columns.lowerBound <= location.column }) else {
            return first.chainColumn
        }
        let offset = location.column - piece.columns.lowerBound
        return piece.chainColumn + min(max(offset, 0), max(piece.length - 1, 0))
    }
}

/// A mistake in a chain's syntax, at its column.
package struct ChainError: Error, Sendable, CustomStringConvertible {
    package var column: Int
    package var message: String

    package init(column: Int, _ message: String) {
        self.column = column
        self.message = message
    }

    package var description: String { "chain:1:\(column): error: \(message)" }
}
