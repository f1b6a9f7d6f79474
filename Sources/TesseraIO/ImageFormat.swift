import Foundation
import TesseraCore

/// The image file formats Tessera reads and writes.
public enum ImageFormat: String, Sendable, CaseIterable, CustomStringConvertible {
    case png
    case tiff
    case jpeg

    public var description: String { rawValue.uppercased() }

    /// The format whose signature starts `bytes`, or nil. Readers go by content, never by file name.
    public static func detect(_ bytes: some Collection<UInt8>) -> ImageFormat? {
        let head = Array(bytes.prefix(8))
        if head.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if head.starts(with: [0xFF, 0xD8, 0xFF]) { return .jpeg }
        // Classic TIFF (42) and BigTIFF (43), in either byte order.
        if head.starts(with: [0x49, 0x49, 0x2A, 0x00]) || head.starts(with: [0x4D, 0x4D, 0x00, 0x2A])
            || head.starts(with: [0x49, 0x49, 0x2B, 0x00]) || head.starts(with: [0x4D, 0x4D, 0x00, 0x2B])
        {
            return .tiff
        }
        return nil
    }

    /// Reads the first bytes of the file at `path` and names its format.
    ///
    /// - Throws: ``ImageError`` naming the file when it cannot be read, is empty or is no known image.
    public static func detect(path: String) throws -> ImageFormat {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue,
            let handle = FileHandle(forReadingAtPath: path)
        else {
            throw ImageError(path: path, message: FileSystem.describeOpenFailure(path))
        }
        defer { try? handle.close() }
        let head: Data
        do {
            head = try handle.read(upToCount: 8) ?? Data()
        } catch {
            throw ImageError(path: path, message: "cannot read: \(error.localizedDescription)")
        }
        if head.isEmpty { throw ImageError(path: path, message: "the file is empty") }
        guard let format = detect(head) else {
            throw ImageError(path: path, message: "not a PNG, TIFF or JPEG file (unknown signature)")
        }
        return format
    }

    /// The format to write for a file name, from its extension.
    public static func forWriting(path: String) throws -> ImageFormat {
        switch (path as NSString).pathExtension.lowercased() {
        case "png": return .png
        case "tif", "tiff": return .tiff
        case "jpg", "jpeg", "jpe": return .jpeg
        default:
            throw ImageError(
                path: path, message: "cannot tell the output format from the name: use .png, .tif, .tiff, .jpg or .jpeg"
            )
        }
    }
}
