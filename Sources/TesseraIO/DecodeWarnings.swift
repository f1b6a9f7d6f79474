import CImageShims
import TesseraCore

extension ImageFile {
    /// Sets what receives the damage decoders read past when their ``DecodeOptions/warnings`` is nil: one
    /// ``ImageError`` per file (its first damage), on the thread that decodes. Nil (the default) drops them. The
    /// program decides where they go (`tessera` prints each as one line on stderr); a library sets none.
    public static func setWarningHandler(_ handler: (@Sendable (ImageError) -> Void)?) {
        DecodeWarnings.state.withLock { $0.handler = handler }
    }
}

extension ImageFile {
    /// Writes the program's own `text` to stderr between the captures of what decoders print there, so
    /// that none of it is taken into another file's message.
    package static func writeToStandardError(_ text: String) {
        var text = text
        text.withUTF8 { tsr_stderr_write($0.baseAddress, $0.count) }
    }
}

/// Where damage read past goes: one line per file, its first.
enum DecodeWarnings {
    struct State {
        var handler: (@Sendable (ImageError) -> Void)?
        /// Files already warned about, so that the header read, the decode, a decoder started again (a
        /// restart from the top) or a second load of the same file do not repeat it.
        var given: Set<String> = []
    }

    static let state = Locked(State())

    /// Gives `warning` to `options.warnings` or the handler: the first of a load only (its header read,
    /// its decode and any restart of it share one ``Once``), and the handler's the first of its file in
    /// the process (two loads of one file, or a smaller decode of it, say nothing new).
    static func give(_ warning: ImageError, options: DecodeOptions) {
        guard options.once?.first() ?? true else { return }
        if let own = options.warnings {
            own(warning)
            return
        }
        let handler = state.withLock { state -> (@Sendable (ImageError) -> Void)? in
            let key = warning.path ?? warning.message
            guard !state.given.contains(key) else { return nil }
            // A long-running program reading many damaged files forgets the oldest, now and then.
            if state.given.count >= 10_000 { state.given.removeAll() }
            state.given.insert(key)
            return state.handler
        }
        handler?(warning)
    }

    /// Whether a load has warned yet.
    final class Once: Sendable {
        private let given = Locked(false)

        /// True the first time only.
        func first() -> Bool {
            given.withLock { given in
                defer { given = true }
                return !given
            }
        }
    }
}

extension DecodeOptions {
    /// Reports the damage a shim read past (nothing when it read past none), as `format`'s.
    func report(_ damage: tsr_damage, format: String, path: String) {
        guard damage.worst > 0 else { return }
        let message = withUnsafeBytes(of: damage.message) { bytes in
            String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        }
        let level = FailOn.failing(kind: damage.worst)
        DecodeWarnings.give(
            ImageError(path: path, message: "\(format): \(message) (read anyway; --fail-on \(level) refuses it)"),
            options: self)
    }

    /// A fresh damage record for a shim, with this policy.
    var damage: tsr_damage {
        var damage = tsr_damage()
        damage.fail_on = failOn.shimValue
        return damage
    }
}

extension DecodeOptions {
    /// Whether this policy reads past damage that `level` is the lowest level to fail on; if so,
    /// `message` (the format's, as "TIFF: ...") is reported as read past.
    func readsPast(_ level: FailOn, message: String, path: String) -> Bool {
        let order = FailOn.allCases.firstIndex(of:)
        guard failOn == .none || (order(failOn) ?? 0) < (order(level) ?? 0) else { return false }
        DecodeWarnings.give(
            ImageError(path: path, message: "\(message) (read anyway; --fail-on \(level) refuses it)"), options: self)
        return true
    }
}
