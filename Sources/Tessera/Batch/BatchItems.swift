import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// One run of a batch: the graph with this item's settings.
package struct BatchItem: Sendable {
    /// Its place in the sorted list of all items, from 0: the same in every shard.
    package var index: Int
    /// The value of the bound parameter (an input file), or nil for a manifest row that does not set it.
    package var input: String?
    /// What its output templates are filled with.
    package var fields: OutputFields
    /// Its parameter settings: the bound parameter, or a manifest row's values.
    package var settings: [ParameterOverride]
}

/// A problem with a batch's inputs, its manifest or its outputs, found before anything runs.
package struct BatchError: Error, Sendable, CustomStringConvertible {
    package var description: String
    package init(_ description: String) { self.description = description }
}

/// Where a batch's items come from: files, folders and globs, or a manifest.
package enum BatchInputs {
    /// The extensions of the image files a folder or glob yields (the formats Tessera reads).
    package static let imageExtensions: Set<String> = Set(ImageFormat.extensions.map(\.0) + ["gif"])

    /// The files `arguments` name, each with the root its `{dir}` is relative to, sorted by path and each
    /// once: a file as given (its root is its folder); a folder's image files at any depth (hidden ones
    /// left out), under the folder; a glob's matches (`photos/*.jpg`, for a shell that did not expand it)
    /// that are image files, under the glob's fixed part. A name that matches nothing is refused.
    package static func files(_ arguments: [String]) throws(BatchError) -> [(path: String, root: String)] {
        var found: [(path: String, root: String)] = []
        for argument in arguments {
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: argument, isDirectory: &isFolder) {
                if isFolder.boolValue {
                    found += imageFiles(under: argument).map { ($0, argument) }
                } else {
                    found.append((argument, (argument as NSString).deletingLastPathComponent))
                }
                continue
            }
            guard argument.contains(where: { "*?[".contains($0) }) else {
                throw BatchError("\(argument): no such file or folder")
            }
            let matches = glob(argument).filter(isImageFile)
            guard !matches.isEmpty else { throw BatchError("\(argument): no image file matches") }
            let root = fixedPart(of: argument)
            found += matches.map { ($0, root) }
        }
        var seen = Set<String>()
        return found.filter { seen.insert(ParameterContext(baseFolder: "").resolve($0.path)).inserted }
            .sorted { Array($0.path.utf8).lexicographicallyPrecedes(Array($1.path.utf8)) }
    }

    static func isImageFile(_ path: String) -> Bool {
        imageExtensions.contains((path as NSString).pathExtension.lowercased())
    }

    /// The image files under `folder`, at any depth, as paths beginning with `folder`.
    static func imageFiles(under folder: String) -> [String] {
        guard let walker = FileManager.default.enumerator(atPath: folder) else { return [] }
        var files: [String] = []
        while let relative = walker.nextObject() as? String {
            let name = (relative as NSString).lastPathComponent
            if name.hasPrefix(".") {
                if walker.fileAttributes?[.type] as? FileAttributeType == .typeDirectory { walker.skipDescendants() }
                continue
            }
            guard isImageFile(name), walker.fileAttributes?[.type] as? FileAttributeType != .typeDirectory else {
                continue
            }
            files.append(folder.hasSuffix("/") ? folder + relative : folder + "/" + relative)
        }
        return files
    }

    /// What `pattern` matches, as the C library's glob does.
    static func glob(_ pattern: String) -> [String] {
        var matches = glob_t()
        defer { globfree(&matches) }
        guard Glibc.glob(pattern, 0, nil, &matches) == 0 else { return [] }
        return (0..<Int(matches.gl_pathc)).compactMap { matches.gl_pathv[$0].map { String(cString: $0) } }
    }

    /// The folders of `pattern` before its first part with a wildcard: `photos/2024` of
    /// `photos/2024/*/IMG_*.jpg`.
    static func fixedPart(of pattern: String) -> String {
        let parts = pattern.split(separator: "/", omittingEmptySubsequences: false)
        let fixed = parts.prefix { !$0.contains(where: { "*?[".contains($0) }) }
        return fixed.joined(separator: "/")
    }

    /// The rows of a manifest: CSV with a header row of `NODE.PARAM` names (RFC 4180 quoting; an empty
    /// cell sets nothing), or JSON Lines (`.jsonl`, `.ndjson`: one object a line, `"NODE.PARAM": value`),
    /// each row as the settings it makes, in the file's order. Relative paths in it are relative to the
    /// current folder, as `--set` values are.
    package static func manifest(_ path: String) throws(BatchError) -> [[ParameterOverride]] {
        let text: String
        if let problem = FileSystem.specialFileProblem(path) { throw BatchError("\(path): \(problem)") }
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            let exists = FileManager.default.fileExists(atPath: path)
            throw BatchError("\(path): " + (exists ? "cannot read the file (is it UTF-8 text?)" : "no such file"))
        }
        let ext = (path as NSString).pathExtension.lowercased()
        let rows = try ext == "jsonl" || ext == "ndjson" ? jsonLines(text, file: path) : csv(text, file: path)
        return try rows.map { row throws(BatchError) in
            try row.settings.map { key, value throws(BatchError) in
                let parts = key.split(separator: ".", maxSplits: 1)
                guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
                    throw BatchError("\(path):\(row.line): '\(key)' is not NODE.PARAMETER, as photo.path")
                }
                return ParameterOverride(
                    node: String(parts[0]), parameter: String(parts[1]), value: value, origin: "\(path):\(row.line)")
            }
        }
    }

    /// A manifest row: its line and its settings, in column order.
    struct Row {
        var line: Int
        var settings: [(String, String)]
    }

    static func csv(_ text: String, file: String) throws(BatchError) -> [Row] {
        var records: [(line: Int, fields: [String])] = []
        var fields: [String] = []
        var field = ""
        var quoted = false
        var line = 1
        var recordLine = 1
        var characters = Array(text)
        if characters.first == "\u{FEFF}" { characters.removeFirst() }
        var index = 0
        func endRecord() {
            fields.append(field)
            field = ""
            if !(fields.count == 1 && fields[0].isEmpty) { records.append((recordLine, fields)) }
            fields = []
        }
        while index < characters.count {
            let character = characters[index]
            index += 1
            if quoted {
                if character == "\"" {
                    if index < characters.count, characters[index] == "\"" {
                        field.append("\"")
                        index += 1
                    } else {
                        quoted = false
                    }
                } else {
                    if character == "\n" || character == "\r\n" { line += 1 }
                    field.append(character)
                }
                continue
            }
            switch character {
            case "\"" where field.isEmpty: quoted = true
            case ",":
                fields.append(field)
                field = ""
            case "\n", "\r\n", "\r":
                endRecord()
                line += 1
                recordLine = line
            default: field.append(character)
            }
        }
        if quoted { throw BatchError("\(file):\(recordLine): a quoted field is not closed") }
        if !field.isEmpty || !fields.isEmpty { endRecord() }
        guard let header = records.first else { throw BatchError("\(file): the manifest is empty") }
        let names = header.fields.map { $0.trimmingCharacters(in: .whitespaces) }
        return try records.dropFirst().map { record throws(BatchError) in
            guard record.fields.count == names.count else {
                throw BatchError(
                    "\(file):\(record.line): \(record.fields.count) fields, but the header names \(names.count)")
            }
            return Row(line: record.line, settings: zip(names, record.fields).filter { !$0.1.isEmpty })
        }
    }

    static func jsonLines(_ text: String, file: String) throws(BatchError) -> [Row] {
        var rows: [Row] = []
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            guard !line.allSatisfy(\.isWhitespace) else { continue }
            let object: [String: ManifestValue]
            do {
                object = try JSONDecoder().decode([String: ManifestValue].self, from: Data(line.utf8))
            } catch {
                throw BatchError("\(file):\(number + 1): not a JSON object of NODE.PARAMETER values")
            }
            rows.append(
                Row(line: number + 1, settings: object.sorted { $0.key < $1.key }.map { ($0.key, $0.value.text) }))
        }
        guard !rows.isEmpty else { throw BatchError("\(file): the manifest is empty") }
        return rows
    }

    /// The items of shard `index` of `count`: every `count`-th item from the `index`-th, so each shard
    /// has the same number of items or one fewer, and every item is in exactly one shard.
    package static func shard<T>(_ items: [T], index: Int, of count: Int) -> [T] {
        stride(from: index, to: items.count, by: Swift.max(count, 1)).map { items[$0] }
    }
}

/// A value in a JSON Lines manifest, as the text `--set` would take: strings as they are, numbers and
/// booleans as written, arrays in flow style (`[1, 0.5, 0, 1]`).
enum ManifestValue: Decodable {
    case text(String)
    case list([ManifestValue])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let value = try? container.decode(Bool.self) {
            self = .text(value ? "true" : "false")
        } else if let value = try? container.decode(Int.self) {
            self = .text(String(value))
        } else if let value = try? container.decode(Double.self) {
            self = .text(String(value))
        } else if let value = try? container.decode(String.self) {
            self = .text(value)
        } else {
            self = .list(try container.decode([ManifestValue].self))
        }
    }

    var text: String {
        switch self {
        case .text(let text): text
        case .list(let items): "[" + items.map(\.quotedText).joined(separator: ", ") + "]"
        }
    }

    /// Inside a list a string is quoted, so `["a, b"]` stays one item.
    private var quotedText: String {
        if case .text(let text) = self, Double(text) == nil, text != "true", text != "false" {
            return JSONText.quoted(text)
        }
        return text
    }
}
