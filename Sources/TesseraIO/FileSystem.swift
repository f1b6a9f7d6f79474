import CImageShims
import Foundation
import TesseraCore

/// File system helpers shared by the codecs.
public enum FileSystem {
    /// Why opening `path` for reading failed, in the words a user expects.
    static func describeOpenFailure(_ path: String) -> String {
        var isDirectory: ObjCBool = false
        if !FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            return "no such file"
        }
        if isDirectory.boolValue { return "is a folder, not a file" }
        return "cannot open: \(String(cString: strerror(errno)))"
    }

    /// Makes an interrupt (Ctrl-C, SIGTERM, SIGHUP) delete the temporary files being written before the
    /// process ends of that signal. For programs: a library must not take over its host's signals.
    public static func removeTemporaryFilesOnInterrupt() {
        tsr_cleanup_install_signal_handlers()
    }

    /// Makes the first Ctrl-C (SIGINT) only raise ``interrupted``, for a program that stops its work
    /// cleanly on it (`tessera run` cancels its run); a second Ctrl-C removes the temporary files being
    /// written and ends the process, as ``removeTemporaryFilesOnInterrupt()`` does.
    public static func catchInterrupts() {
        tsr_interrupt_install()
    }

    /// Whether Ctrl-C arrived since ``catchInterrupts()``.
    public static var interrupted: Bool { tsr_interrupted() != 0 }

    /// Writes a file through `write`, which receives a temporary path in the same folder; the result
    /// replaces `path` only when `write` returns, so a failure or a crash never leaves a partial file.
    /// Writes `text` to `path` as images are written: under a temporary name in the same folder, renamed
    /// when complete. (Foundation's `atomically:` writes leave an empty folder in /tmp on Linux.)
    public static func write(_ text: String, atomicallyTo path: String) throws {
        try writeAtomically(to: path) { temporary in
            guard FileManager.default.createFile(atPath: temporary, contents: Data(text.utf8)) else {
                throw ImageError(path: path, message: "cannot write: \(String(cString: strerror(errno)))")
            }
        }
    }

    static func writeAtomically(to path: String, _ write: (String) throws -> Void) throws {
        let url = URL(fileURLWithPath: path)
        let named = (path as NSString).deletingLastPathComponent
        let folder = named.isEmpty ? "." : named
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw ImageError(path: path, message: "cannot write: the folder \(folder) does not exist")
        }
        let temporary = url.deletingLastPathComponent()
            .appendingPathComponent(
                ".\(url.lastPathComponent).tessera-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).tmp"
            )
            .path
        let slot = tsr_cleanup_register(temporary)
        defer { tsr_cleanup_unregister(slot) }
        do {
            try write(temporary)
        } catch var error as ImageError {
            // Errors from reading the input already name their file; the writer's name the output.
            unlink(temporary)
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
