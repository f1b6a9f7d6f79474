import Foundation
import Testing

/// What `tessera info` prints of a file's own text (its ICC profile's description, its EXIF fields)
/// reaches the terminal written out, never as the escapes and line breaks it holds: they cleared the
/// screen, set the window title or the clipboard, and a description could print a forged `Error:` line.
@Suite struct PrintedTextTests {
    /// The texts a hostile file holds: each a terminal escape (CSI, OSC with BEL, an 8-bit CSI), a line
    /// break or a right-to-left override.
    static let description = "Evil\u{1B}[2J\u{1B}]0;owned\u{07}\nError: forged line\r\u{9B}31m\u{202E}A"
    static let make = "Make\u{1B}[31mRed"
    static let model = "Model\nforged: line"
    static let copyright = "(c)\u{1B}]52;c;aGVsbG8=\u{07} me\u{202E}gnp.exe"

    /// Writes `name` (a JPEG or PNG, by Pillow) whose ICC profile (Little CMS's sRGB, its description
    /// replaced) and EXIF hold the texts above.
    static func makeFile(_ name: String, in folder: URL) throws {
        let script = """
            import json, struct, sys
            from PIL import Image, ImageCms
            texts = json.loads(sys.argv[2])
            data = bytearray(ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes())
            text = texts["description"].encode("utf-8") + b"\\0"
            # A v2 textDescriptionType: the ASCII part, then empty Unicode and ScriptCode parts.
            tag = b"desc" + b"\\0" * 4 + struct.pack(">I", len(text)) + text + b"\\0" * 78
            tag += b"\\0" * (-len(tag) % 4)
            for i in range(struct.unpack(">I", data[128:132])[0]):
                entry = 132 + 12 * i
                if data[entry:entry + 4] == b"desc":
                    data[entry + 4:entry + 12] = struct.pack(">II", len(data), len(tag))
            data += tag
            data[0:4] = struct.pack(">I", len(data))
            exif = Image.Exif()
            exif[0x010F] = texts["make"]
            exif[0x0110] = texts["model"]
            exif[0x8298] = texts["copyright"].encode("utf-8")
            Image.new("RGB", (8, 6), (200, 100, 50)).save(sys.argv[1], icc_profile=bytes(data), exif=exif.tobytes())
            """
        let texts = ["description": description, "make": make, "model": model, "copyright": copyright]
        let json = String(decoding: try JSONSerialization.data(withJSONObject: texts), as: UTF8.self)
        let result = try CLI.run(
            ["-c", script, folder.appendingPathComponent(name).path, json],
            binary: URL(fileURLWithPath: "/usr/bin/python3"))
        try #require(result.status == 0, "\(result.stderr)")
    }

    /// Whether `text` holds a character a terminal acts on (other than the line breaks between lines).
    static func hasControls(_ text: String) -> Bool {
        text.unicodeScalars.contains {
            ($0.value < 0x20 && $0 != "\n") || (0x7F...0x9F).contains($0.value) || $0 == "\u{202E}"
        }
    }

    @Test(arguments: ["hostile.jpg", "hostile.png"])
    func infoWritesOutWhatTheFileSays(name: String) throws {
        try withTemporaryFolder { folder in
            try Self.makeFile(name, in: folder)
            // exiftool, reading the file on its own, finds the texts as they were written.
            let tags = try MetadataTests.tags(folder.appendingPathComponent(name))
            #expect(tags["Make"] == Self.make && tags["Copyright"] == Self.copyright)

            let text = try CLI.run(["info", name], in: folder)
            #expect(text.status == 0, "\(text.stderr)")
            #expect(!Self.hasControls(text.stdout))
            let lines = text.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            #expect(!lines.contains { $0.hasPrefix("Error") || $0.hasPrefix("forged") })
            #expect(
                lines.contains(
                    #"profile:     Evil\x1B[2J\x1B]0;owned\x07\nError: forged line\r\x9B31m\u{202E}A (ICC, "#
                        + "\(try MetadataTests.profile(folder.appendingPathComponent(name)).count) bytes)"),
                "\(lines)")
            #expect(lines.contains(#"camera:      Make\x1B[31mRed Model\nforged: line"#), "\(lines)")
            #expect(lines.contains(#"copyright:   (c)\x1B]52;c;aGVsbG8=\x07 me\u{202E}gnp.exe"#), "\(lines)")

            // JSON escapes them too (C1 and the override as \u escapes) and keeps the values exactly.
            let json = try CLI.run(["info", "--json", name], in: folder)
            #expect(json.status == 0, "\(json.stderr)")
            #expect(!Self.hasControls(json.stdout))
            let object = try #require(
                try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
            #expect(object["profile"] as? String == Self.description)
            let exif = try #require(object["exif"] as? [String: String])
            #expect(exif["camera"] == "\(Self.make) \(Self.model)" && exif["copyright"] == Self.copyright)
        }
    }

    /// A file name holding a line break or an escape is written out in an error, as any error's text is.
    @Test func anErrorNamesItsFileWrittenOut() throws {
        try withTemporaryFolder { folder in
            let name = "a\u{1B}[2J\nError: b.png"
            try Data("not an image".utf8).write(to: folder.appendingPathComponent(name))
            for arguments in [
                ["info", name], ["convert", name, "out.png"], ["thumbnail", name, "o.png", "--size", "9"],
            ] {
                let result = try CLI.run(arguments, in: folder)
                #expect(result.status == 1)
                #expect(
                    result.stderr
                        == #"Error: a\x1B[2J\nError: b.png: not a PNG, JPEG, TIFF, WebP, GIF, HEIC or AVIF file "#
                        + "(unknown signature); those are what Tessera reads\n")
            }
        }
    }

    /// A profile a colorSpace node cannot convert to names its file (it named only the profile's
    /// description, which came from the file too).
    @Test func aProfileErrorNamesItsFile() throws {
        try withTemporaryFolder { folder in
            let script = """
                from PIL import ImageCms
                open("lab.icc", "wb").write(ImageCms.ImageCmsProfile(ImageCms.createProfile("LAB")).tobytes())
                """
            let made = try CLI.run(["-c", script], in: folder, binary: URL(fileURLWithPath: "/usr/bin/python3"))
            try #require(made.status == 0, "\(made.stderr)")
            try FileManager.default.copyItem(at: MetadataTests.photo, to: folder.appendingPathComponent("photo.jpg"))
            try """
            version: 1
            nodes:
              photo: { op: load, path: photo.jpg }
              lab: { op: colorSpace, input: photo, profile: lab.icc }
              out: { op: save, input: lab, path: out.png }
            """.write(to: folder.appendingPathComponent("g.yaml"), atomically: false, encoding: .utf8)
            let result = try CLI.run(["run", "g.yaml", "-q"], in: folder)
            #expect(result.status == 1)
            #expect(
                result.stderr
                    == "g.yaml:4:3: error: colorSpace node 'lab': lab.icc: the profile \"Lab identity built-in\" is "
                    + "not an RGB profile\n")
        }
    }
}
