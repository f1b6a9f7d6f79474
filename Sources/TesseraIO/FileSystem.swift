import CImageShims
import Foundation
import TesseraCore

/// File system helpers shared by the codecs. Files are written under a temporary name that the
/// executable's signal handlers remove if the process dies mid-write (Sources/TesseraCLI/Signals.swift).
package enum FileSystem {
    /// The size in bytes of the file at `path`, or nil when it cannot be read.
    static func size(of path: String) -> Int? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        return Int(status.st_size)
    }

    /// Why opening `path` for reading failed, in the words a user expects.
    static func describeOpenFailure(_ path: String) -> String {
        var isDirectory: ObjCBool = false
        if !FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            return "no such file"
        }
        if isDirectory.boolValue { return "is a folder, not a file" }
        return "cannot open: \(String(cString: strerror(errno)))"
    }

    /// Why `path` is not a file to read (``SpecialFile/problem(_:)``), or nil for a regular file.
    package static func specialFileProblem(_ path: String) -> String? { SpecialFile.problem(path) }

    /// Writes a file through `write`, which receives a temporary path in the same folder; the result
    /// replaces `path` only when `write` returns, so a failure or a crash never leaves a partial file.
    /// Writes `text` to `path` as images are written: under a temporary name in the same folder, renamed
    /// when complete. (Foundation's `atomically:` writes leave an empty folder in /tmp on Linux.)
    package static func write(_ text: String, atomicallyTo path: String) throws {
        try writeAtomically(to: path) { temporary in
            guard FileManager.default.createFile(atPath: temporary, contents: Data(text.utf8)) else {
                throw ImageError(path: path, message: "cannot write: \(String(cString: strerror(errno)))")
            }
        }
    }

    /// Why `path` cannot be written, found without writing it (its folder is missing or not writable,
    /// it is a folder), or nil: for a file written only after a long run (a trace), checked before.
    package static func writeProblem(_ path: String) -> ImageError? {
        if let missing = missingFolder(path) { return missing }
        let folder = self.folder(of: path)
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            return ImageError(path: path, message: "cannot write: is a folder, not a file")
        }
        if access(folder, W_OK | X_OK) != 0 {
            return ImageError(path: path, message: "cannot write: \(String(cString: strerror(errno)))")
        }
        return nil
    }

    /// The error for a path whose folder does not exist, or nil.
    private static func missingFolder(_ path: String) -> ImageError? {
        let folder = self.folder(of: path)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue else {
            return ImageError(path: path, message: "cannot write: the folder \(folder) does not exist")
        }
        return nil
    }

    private static func folder(of path: String) -> String {
        let named = (path as NSString).deletingLastPathComponent
        return named.isEmpty ? "." : named
    }

    /// The longest file name (in bytes) the temporary names are held to: Linux file systems' NAME_MAX.
    static let longestName = 255

    /// A hidden temporary name beside `name`, unique to this process and call, never longer than
    /// ``longestName`` bytes: the final name's stem is cut (at a character's edge) to make room, so any
    /// name the file system accepts can be written.
    static func temporaryName(for name: String) -> String {
        let suffix = ".tessera-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).tmp"
        let room = longestName - 1 - suffix.utf8.count
        var stem = ""
        var bytes = 0
        for scalar in name.unicodeScalars {
            bytes += String(scalar).utf8.count
            if bytes > room { break }
            stem.unicodeScalars.append(scalar)
        }
        return "." + stem + suffix
    }

    /// Removes the temporary files (``temporaryName(for:)``) that a process killed before it could clean up
    /// (SIGKILL, a power cut) left beside `path`: those of processes no longer running. A batch run again
    /// calls it for each output, so a killed batch leaves nothing behind once it is finished.
    package static func removeStaleTemporaries(of path: String) {
        let folder = self.folder(of: path)
        let name = (path as NSString).lastPathComponent
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return }
        let marker = ".tessera-"
        for entry in entries where entry.hasPrefix(".") && entry.hasSuffix(".tmp") {
            guard let range = entry.range(of: marker, options: .backwards) else { continue }
            let stem = entry[entry.index(after: entry.startIndex)..<range.lowerBound]
            guard !stem.isEmpty, name.hasPrefix(stem) else { continue }
            let numbers = entry[range.upperBound...].dropLast(4).split(separator: "-")
            guard numbers.count == 2, let pid = pid_t(numbers[0]), pid > 0, UInt32(numbers[1]) != nil else { continue }
            if kill(pid, 0) != 0 && errno == ESRCH { unlink(folder + "/" + entry) }
        }
    }

    /// Why a write failed, in words, for the errors a full disk or a size limit give; nil for others.
    static func writeFailure(_ code: Int32) -> String? {
        switch code {
        case EFBIG: "file too large: the file size limit (ulimit -f) was reached"
        case ENOSPC: "no space left on the device"
        case EDQUOT: "the disk quota was reached"
        default: nil
        }
    }

    static func writeAtomically(to path: String, _ write: (String) throws -> Void) throws {
        let url = URL(fileURLWithPath: path)
        if let missing = missingFolder(path) { throw missing }
        let temporary = url.deletingLastPathComponent().appendingPathComponent(
            temporaryName(for: url.lastPathComponent)
        )
        .path
        let slot = tsr_cleanup_register(temporary)
        defer { tsr_cleanup_unregister(slot) }
        errno = 0
        do {
            try write(temporary)
        } catch var error as ImageError {
            // The codecs' own words ("Write error at scanline 0") do not say why a write failed; errno,
            // read before anything else can change it, does.
            let cause = errno
            // Errors from reading the input already name their file; the writer's name the output.
            unlink(temporary)
            if error.path == nil, let reason = Self.writeFailure(cause) { error.message += " (\(reason))" }
            error.path = error.path ?? path
            throw error
        } catch {
            unlink(temporary)
            throw error
        }
        if rename(temporary, path) != 0 {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw ImageError(path: path, message: "cannot write: \(reason)")
        }
    }
}
