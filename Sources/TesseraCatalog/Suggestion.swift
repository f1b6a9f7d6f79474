/// Finding the name a user probably meant.
package enum Suggestion {
    /// The candidate closest to `name` by edit distance (ignoring case), if it is close enough to be a
    /// plausible typo: at most two edits, or a third of the longer name's letters, and fewer edits than
    /// letters (so that `a` does not suggest `b`).
    package static func nearest(to name: String, in candidates: [String]) -> String? {
        let lowered = Array(name.lowercased())
        var best: (distance: Int, name: String)?
        for candidate in candidates {
            let distance = editDistance(lowered, Array(candidate.lowercased()))
            let limit = max(2, max(lowered.count, candidate.count) / 3)
            guard distance <= limit, distance < max(lowered.count, candidate.count) else { continue }
            if best == nil || distance < best?.distance ?? .max { best = (distance, candidate) }
        }
        return best?.name
    }

    /// "; did you mean 'sigma'?" or "".
    package static func didYouMean(_ name: String, in candidates: [String]) -> String {
        nearest(to: name, in: candidates).map { "; did you mean '\($0)'?" } ?? ""
    }

    /// Levenshtein distance, with a transposition counting as one edit (Damerau, optimal string alignment).
    package static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous2 = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    current[j] = min(current[j], previous2[j - 2] + 1)
                }
            }
            (previous2, previous, current) = (previous, current, previous2)
        }
        return previous[b.count]
    }
}

extension Array where Element == String {
    /// `'a', 'b' and 'c'`.
    package var quotedList: String {
        let quoted = map { "'\($0)'" }
        guard quoted.count > 1, let last = quoted.last else { return quoted.first ?? "" }
        return quoted.dropLast().joined(separator: ", ") + " and " + last
    }
}
