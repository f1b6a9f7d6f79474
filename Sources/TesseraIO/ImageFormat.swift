import Foundation
import TesseraCore

/// The image file formats Tessera reads and writes.
public enum ImageFormat: String, Sendable, CaseIterable, CustomStringConvertible {
    case png
    case tiff
    case jpeg
    case webp
    case gif
    case heic
    case avif

    public var description: String { self == .webp ? "WebP" : rawValue.uppercased() }

    /// Whether Tessera writes this format (GIF is read only).
    public var isWritable: Bool { self != .gif }

    /// The file extensions that name each written format, as `save` and `convert` read them.
    package static let extensions: [(String, ImageFormat)] = [
        ("png", .png), ("tif", .tiff), ("tiff", .tiff), ("jpg", .jpeg), ("jpeg", .jpeg), ("jpe", .jpeg),
        ("webp", .webp), ("heic", .heic), ("heif", .heic), ("avif", .avif),
    ]

    /// "png, tif, tiff, ..." for messages.
    static var writtenExtensions: String { extensions.map { "." + $0.0 }.joined(separator: ", ") }

    /// The ISO base media brands of HEIF images: HEVC-coded (HEIC) and AV1-coded (AVIF).
    private static let heicBrands: Set<String> = ["heic", "heix", "heim", "heis", "hevc", "hevx", "hevm", "hevs"]
    private static let avifBrands: Set<String> = ["avif", "avis"]

    /// The format whose signature starts `bytes`, or nil. Readers go by content, never by file name.
    package static func detect(_ bytes: some Collection<UInt8>) -> ImageFormat? {
        let head = Array(bytes.prefix(64))
        if head.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if head.starts(with: [0xFF, 0xD8, 0xFF]) { return .jpeg }
        // Classic TIFF (42) and BigTIFF (43), in either byte order.
        if head.starts(with: [0x49, 0x49, 0x2A, 0x00]) || head.starts(with: [0x4D, 0x4D, 0x00, 0x2A])
            || head.starts(with: [0x49, 0x49, 0x2B, 0x00]) || head.starts(with: [0x4D, 0x4D, 0x00, 0x2B])
        {
            return .tiff
        }
        if head.count >= 12, head.starts(with: Array("RIFF".utf8)), head[8..<12].elementsEqual("WEBP".utf8) {
            return .webp
        }
        if head.starts(with: Array("GIF87a".utf8)) || head.starts(with: Array("GIF89a".utf8)) { return .gif }
        // ISO base media: a box "ftyp" with a major brand, a version, then compatible brands.
        if head.count >= 16, head[4..<8].elementsEqual("ftyp".utf8) {
            let size = Swift.min(head.count, Int(head[0]) << 24 | Int(head[1]) << 16 | Int(head[2]) << 8 | Int(head[3]))
            let brands = ([8] + Array(stride(from: 16, to: size - 3, by: 4))).map {
                String(decoding: head[$0..<($0 + 4)], as: UTF8.self)
            }
            if brands.contains(where: avifBrands.contains) { return .avif }
            if brands.contains(where: heicBrands.contains) || brands.first == "mif1" { return .heic }
        }
        return nil
    }

    /// Reads the first bytes of the file at `path` and names its format.
    ///
    /// - Throws: ``ImageError`` naming the file when it cannot be read, is empty or is no known image.
    package static func detect(path: String) throws -> ImageFormat {
        if let problem = FileSystem.specialFileProblem(path) { throw ImageError(path: path, message: problem) }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue,
            let handle = FileHandle(forReadingAtPath: path)
        else {
            throw ImageError(path: path, message: FileSystem.describeOpenFailure(path))
        }
        defer { try? handle.close() }
        let head: Data
        do {
            head = try handle.read(upToCount: 64) ?? Data()
        } catch {
            throw ImageError(path: path, message: "cannot read: \(error.localizedDescription)")
        }
        if head.isEmpty { throw ImageError(path: path, message: "the file is empty") }
        guard let format = detect(head) else {
            throw ImageError(
                path: path,
                message:
                    "not a PNG, JPEG, TIFF, WebP, GIF, HEIC or AVIF file (unknown signature); those are what Tessera reads"
            )
        }
        return format
    }

    /// The format to write for a file name, from its extension.
    package static func forWriting(path: String) throws -> ImageFormat {
        let written = (path as NSString).pathExtension.lowercased()
        if written == "gif" {
            throw ImageError(path: path, message: "GIF is read, not written: use .png or .webp (lossless) instead")
        }
        guard let format = extensions.first(where: { $0.0 == written })?.1 else {
            throw ImageError(
                path: path, message: "cannot tell the output format from the name: use \(writtenExtensions)")
        }
        return format
    }
}
