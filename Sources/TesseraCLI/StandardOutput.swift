import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Standard output, written so that a failure is seen: what the commands print goes through here,
/// straight to the file descriptor, and each write's error is handled at once.
///
/// - A full disk or any other write error (`tessera schema > /dev/full`) is reported on stderr as
///   `tessera: cannot write to standard output: No space left on device`, status 1: a redirect to a file
///   must not leave a truncated file behind a status of 0.
/// - A reader that closed the pipe (`tessera nodes --json | head -c 10`) ends the command quietly with
///   status 0, as `ls` and `git` treat it: it is not an error worth a message. The executable ignores
///   SIGPIPE (``ignoreBrokenPipes()``) so that the write reports EPIPE instead of killing the process
///   with status 141.
enum StandardOutput {
    /// Writes `text` and `terminator`, as `Swift.print` does, or ends the process as described above.
    static func print(_ text: String, terminator: String = "\n") {
        write(text + terminator)
    }

    static func write(_ text: String) {
        var text = text
        text.withUTF8 { bytes in
            guard let base = bytes.baseAddress else { return }
            var offset = 0
            while offset < bytes.count {
                let written = Glibc.write(STDOUT_FILENO, base + offset, bytes.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    fail(errno)
                }
                offset += written
            }
        }
    }

    /// For a program only (a library must not change its host's signals): a write to a closed pipe then
    /// fails with EPIPE instead of killing the process.
    static func ignoreBrokenPipes() {
        signal(SIGPIPE, SIG_IGN)
    }

    /// Flushes what went through C's `stdout` (swift-argument-parser's help and version), with the same
    /// handling of failures.
    static func flush() {
        errno = 0
        if fflush(nil) != 0 { fail(errno == 0 ? EIO : errno) }
    }

    static func fail(_ code: Int32) -> Never {
        if code == EPIPE { exit(0) }
        StandardError.write(
            "tessera: cannot write to standard output: \(String(cString: strerror(code)))\n")
        exit(1)
    }
}
