import Foundation
import Testing

/// The same input and options give the same bytes, run after run. A profile Tessera makes (sRGB for
/// `--profile srgb`, the colorSpace node's) was dated by Little CMS with the time it was made, so two
/// runs a second apart wrote different files with the same pixels.
@Suite struct ReproducibleOutputTests {
    /// Arguments of one run, `OUT` standing for the output file.
    static let runs: [[String]] = [
        ["convert", "photo.jpg", "OUT.png", "--profile", "srgb"],
        ["convert", "photo.jpg", "OUT.jpg", "--profile", "srgb"],
        ["convert", "photo.jpg", "OUT.tif", "--profile", "srgb"],
        ["convert", "photo.jpg", "OUT.webp", "--profile", "srgb"],
        ["convert", "photo.jpg", "OUT.heic", "--profile", "srgb"],
        ["convert", "photo.jpg", "OUT.avif", "--profile", "srgb"],
        ["thumbnail", "photo.jpg", "OUT.jpg", "--size", "20", "--profile", "srgb"],
        ["run", "p3.yaml", "-q", "--set", "out.path=OUT.png"],
        ["run", "p3.yaml", "-q", "--set", "out.path=OUT.tif", "--set", "p3.to=linearSRGB"],
    ]

    @Test(arguments: runs)
    func twoRunsWriteTheSameBytes(arguments: [String]) throws {
        try withTemporaryFolder { folder in
            try FileManager.default.copyItem(at: MetadataTests.photo, to: folder.appendingPathComponent("photo.jpg"))
            try """
            version: 1
            nodes:
              photo: { op: load, path: photo.jpg }
              p3: { op: colorSpace, input: photo, to: displayP3 }
              out: { op: save, input: p3, path: out.png }
            """.write(to: folder.appendingPathComponent("p3.yaml"), atomically: false, encoding: .utf8)
            var written: [Data] = []
            for name in ["first", "second"] {
                if name == "second" { Thread.sleep(forTimeInterval: 1.1) }  // a profile's date counts seconds
                let result = try CLI.run(arguments.map { $0.replacingOccurrences(of: "OUT", with: name) }, in: folder)
                try #require(result.status == 0, "\(result.stderr)")
                let file = try #require(
                    try FileManager.default.contentsOfDirectory(atPath: folder.path).first { $0.hasPrefix(name) })
                written.append(try Data(contentsOf: folder.appendingPathComponent(file)))
            }
            #expect(written[0] == written[1], "\(arguments)")
            // A profile is there to be dated: the output embeds one.
            let profile = try MetadataTests.profile(
                folder.appendingPathComponent(
                    try #require(
                        try FileManager.default.contentsOfDirectory(atPath: folder.path).first { $0.hasPrefix("first") }
                    )))
            #expect(profile.count > 128)
        }
    }
}
