#if canImport(Glibc)
    import Glibc
#endif

/// Files that are not regular files: a FIFO blocks `open` until some other process writes to it, and a
/// device (`/dev/zero`) may never end, so every reader (graph files, image files, profiles, batch
/// manifests) asks ``problem(_:)`` first.
package enum SpecialFile {
    /// Why `path` is not a file to read, found without opening it, or nil for a regular file (or one that
    /// does not exist: opening it says so). One `stat`, which follows symbolic links.
    package static func problem(_ path: String) -> String? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        switch status.st_mode & S_IFMT {
        case S_IFREG: return nil
        case S_IFDIR: return "is a folder, not a file"
        case S_IFIFO: return "is a named pipe (FIFO), not a regular file; Tessera reads files only"
        case S_IFCHR, S_IFBLK: return "is a device, not a regular file; Tessera reads files only"
        case S_IFSOCK: return "is a socket, not a regular file; Tessera reads files only"
        default: return "is not a regular file; Tessera reads files only"
        }
    }
}
