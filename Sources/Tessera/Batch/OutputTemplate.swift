import Foundation

/// The fields an output path may name, filled from one batch item: `out/{dir}/{stem}-small.{ext}`.
///
/// - `{stem}`: the input's file name without its extension (`IMG_0042`);
/// - `{name}`: its file name (`IMG_0042.jpg`);
/// - `{ext}`: its extension, without the dot (`jpg`);
/// - `{dir}`: its folder relative to the input root it was found under (a folder given to `tessera
///   batch`, or a glob's fixed part), so that a tree of folders is mirrored; empty for a file given by
///   name;
/// - `{index}`: the item's number in the sorted list of all items (from 0, the same in every shard);
///   `{index:5}` pads it with zeros to 5 digits.
///
/// A path without `{` is left as it is. In one with fields, `{{` and `}}` write a brace. Any other field is
/// refused, naming the ones there are.
package struct OutputFields: Sendable, Equatable {
    package var stem: String
    package var name: String
    package var ext: String
    package var dir: String
    package var index: Int

    /// The fields of `input` (a path), found under `root` ("" when it has none: `{dir}` is then the
    /// input's own folder as written).
    package init(input: String, root: String, index: Int) {
        let url = input as NSString
        name = url.lastPathComponent
        ext = url.pathExtension
        stem = ext.isEmpty ? name : String(name.dropLast(ext.count + 1))
        let folder = url.deletingLastPathComponent
        dir = Self.relative(folder, to: root)
        self.index = index
    }

    /// An item without an input file (a manifest row that does not set the bound parameter): only
    /// `{index}` can be filled.
    package init(index: Int) {
        (stem, name, ext, dir) = ("", "", "", "")
        self.index = index
    }

    /// The field names, in the order messages list them.
    package static let names = ["stem", "name", "ext", "dir", "index"]

    /// `folder` relative to `root` (both as written), or `folder` itself (without a leading `/`) when it
    /// is not under it. It never climbs: `..` parts are taken away with the part before them, and those
    /// with none before them (`../photos`) are left out, as a leading `/` is, so that `out/{dir}` stays in
    /// `out` whatever a manifest names.
    static func relative(_ folder: String, to root: String) -> String {
        let parts = descending(folder)
        let rootParts = descending(root)
        if parts.starts(with: rootParts) && folder.hasPrefix("/") == root.hasPrefix("/") {
            return parts.dropFirst(rootParts.count).joined(separator: "/")
        }
        return parts.joined(separator: "/")
    }

    /// The folders of `path` without `.` and `..`: `a/../b` is `b`, and `../b` is `b` too.
    static func descending(_ path: String) -> [Substring] {
        var parts: [Substring] = []
        for part in path.split(separator: "/") where part != "." {
            if part == ".." {
                _ = parts.popLast()
            } else {
                parts.append(part)
            }
        }
        return parts
    }

    /// Whether `text` names a field (has a `{` that is not `{{`).
    package static func isTemplate(_ text: String) -> Bool {
        text.replacingOccurrences(of: "{{", with: "").contains("{")
    }

    /// A made-up item's fields, unlike any real item's: a graph is read with them to check it and to
    /// learn its templates before its items are known.
    static func sample(index: Int = 987_654_321) -> OutputFields {
        OutputFields(input: "tessera-sample/item.png", root: "", index: index)
    }

    /// `template` with its fields filled; refused when a field is unknown, a brace is unmatched, or an
    /// input field is asked of an item that has no input.
    package func fill(_ template: String) throws(ParameterProblem) -> String {
        guard template.contains("{") else { return template }
        var result = ""
        var rest = Substring(template)
        while let brace = rest.firstIndex(where: { $0 == "{" || $0 == "}" }) {
            result += rest[..<brace]
            let after = rest.index(after: brace)
            if after < rest.endIndex, rest[after] == rest[brace] {
                result.append(rest[brace])
                rest = rest[rest.index(after: after)...]
                continue
            }
            guard rest[brace] == "{", let close = rest[after...].firstIndex(of: "}") else {
                throw ParameterProblem(
                    "an unmatched '\(rest[brace])' in '\(template)' (write {{ or }} for a brace in a file name)")
            }
            result += try value(of: rest[after..<close], in: template)
            rest = rest[rest.index(after: close)...]
        }
        return result + rest
    }

    private func value(of field: Substring, in template: String) throws(ParameterProblem) -> String {
        let parts = field.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        let key = parts[0]
        if key == "index" {
            guard parts.count == 2 else { return String(index) }
            guard let width = Int(parts[1]), (1...20).contains(width) else {
                throw ParameterProblem("'{\(field)}' in '\(template)': the width after index: is 1 to 20 digits")
            }
            let digits = String(index)
            return String(repeating: "0", count: Swift.max(0, width - digits.count)) + digits
        }
        let known = ["stem": stem, "name": name, "ext": ext, "dir": dir]
        guard parts.count == 1, let value = known[String(key)] else {
            throw ParameterProblem(
                "no field '{\(field)}' in '\(template)'; an output path may use "
                    + Self.names.map { "{\($0)}" }.joined(separator: ", "))
        }
        guard !name.isEmpty || key == "dir" else {
            throw ParameterProblem("'{\(key)}' in '\(template)' needs an input file, and this item has none")
        }
        return value
    }
}
