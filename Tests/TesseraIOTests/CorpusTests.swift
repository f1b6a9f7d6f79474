import Foundation
import Testing
import TesseraCore
import TesseraIO

/// One file of `Fixtures/corpus/` (Scripts/make-decoder-corpus.py): a damaged or unusual file, the
/// samples a reference decoder (Pillow or libvips) reads from it, and the damage it holds.
struct CorpusEntry: Decodable, CustomTestStringConvertible, Sendable {
    var file: String
    var what: String
    var reference: String
    var expected: String
    var width: Int
    var height: Int
    var channels: Int
    var bits: Int
    /// In units of the expected samples (255 or 65535 to 1).
    var tolerance: Double
    /// The lowest failOn that refuses the file ("none" for a file without damage).
    var damage: String
    /// Words of the warning (and, refused, of the error) the damage gives.
    var warning: String?
    /// Truncated files: how many whole rows the reference kept; a prefix of at least half as many must
    /// be the picture's, and every row after it zeros.
    var rows: Int?
    /// x, y, width, height of a frame smaller than its canvas, outside which the canvas is transparent.
    var frame: [Int]?

    var testDescription: String { file }
    var path: String { CorpusEntry.folder.appendingPathComponent(file).path }
    var failOn: FailOn? { FailOn(rawValue: damage).flatMap { $0 == .none ? nil : $0 } }

    static let folder = Fixture.folder.appendingPathComponent("corpus")

    static let all: [CorpusEntry] = {
        struct Corpus: Decodable { var files: [CorpusEntry] }
        do {
            let data = try Data(contentsOf: folder.appendingPathComponent("corpus.json"))
            return try JSONDecoder().decode(Corpus.self, from: data).files
        } catch {
            Issue.record("cannot read the corpus: \(error)")
            return []
        }
    }()

    /// The expected samples, row-major, in units of `bits`.
    func expectedSamples() throws -> [Double] {
        let data = try Data(contentsOf: CorpusEntry.folder.appendingPathComponent(expected))
        if bits == 16 {
            return stride(from: 0, to: data.count, by: 2).map { Double(UInt16(data[$0]) | UInt16(data[$0 + 1]) << 8) }
        }
        return data.map(Double.init)
    }

    /// The damage levels below this file's, which read it, and its own, which refuses it.
    var levelsReading: [FailOn] {
        guard let failOn else { return FailOn.allCases }
        return FailOn.allCases.prefix { $0 != failOn }.map { $0 }
    }
}

/// Collects the warnings a decode gives.
final class Warnings: Sendable {
    let list = Locked<[ImageError]>([])
    var all: [ImageError] { list.withLock { $0 } }
    func add(_ warning: ImageError) { list.withLock { $0.append(warning) } }
}

/// Damaged and unusual files against what Pillow or libvips read from them (issue 37): recoverable damage
/// is read with one warning naming the file under the lenient default, and refused, naming the file,
/// from the `failOn` level of its damage up.
@Suite struct CorpusTests {
    /// The decoded pixels against the reference's, sample by sample, in the expected samples' units.
    static func compare(_ pixels: PixelBuffer, _ entry: CorpusEntry) throws {
        #expect(pixels.region == Rect(width: entry.width, height: entry.height), "\(entry.file): size")
        guard pixels.region == Rect(width: entry.width, height: entry.height) else { return }
        let expected = try entry.expectedSamples()
        #expect(expected.count == entry.width * entry.height * entry.channels, "raw size")
        let scale = entry.bits == 16 ? 65535.0 : 255.0
        // Memory holds gray as one channel and the rest as RGBA.
        func decoded(_ x: Int, _ y: Int, _ c: Int) -> Double {
            (Double(pixels[x, y, pixels.channels == 1 ? 0 : (entry.channels == 2 && c == 1 ? 3 : c)]) * scale)
                .rounded()
        }
        func rowMatches(_ y: Int) -> (worst: Double, at: Int) {
            var worst = (0.0, 0)
            for x in 0..<entry.width {
                for c in 0..<entry.channels {
                    let difference = abs(decoded(x, y, c) - expected[(y * entry.width + x) * entry.channels + c])
                    if difference > worst.0 { worst = (difference, x) }
                }
            }
            return worst
        }
        if let rows = entry.rows {
            // A truncated file read past: a prefix of the picture's rows, then zeros.
            var prefix = 0
            while prefix < entry.height, rowMatches(prefix).worst <= entry.tolerance { prefix += 1 }
            #expect(prefix >= rows / 2, "\(entry.file): \(prefix) whole rows, the reference kept \(rows)")
            #expect(prefix < entry.height, "\(entry.file): the cut file cannot be whole")
            for y in prefix..<entry.height {
                for x in 0..<entry.width {
                    for c in 0..<entry.channels where decoded(x, y, c) != 0 {
                        Issue.record("\(entry.file): (\(x), \(y)) channel \(c) is \(decoded(x, y, c)), not 0")
                        return
                    }
                }
            }
            return
        }
        for y in 0..<entry.height {
            let (worst, x) = rowMatches(y)
            #expect(worst <= entry.tolerance, "\(entry.file): (\(x), \(y)) is \(worst) off (\(entry.reference))")
            if worst > entry.tolerance { return }
        }
    }

    @Test(arguments: CorpusEntry.all)
    func readsWhatTheReferenceReads(_ entry: CorpusEntry) throws {
        let warnings = Warnings()
        var options = DecodeOptions()
        options.warnings = { warnings.add($0) }
        let (_, image) = try ImageFile.load(path: entry.path, options: options)
        try Self.compare(try image.pixels(), entry)
        if let words = entry.warning, entry.failOn != nil {
            // One warning, naming the file, saying what was read past.
            #expect(warnings.all.count == 1, "\(warnings.all)")
            #expect(warnings.all.first?.path == entry.path)
            #expect(warnings.all.first?.message.contains(words) == true, "\(warnings.all)")
            #expect(
                warnings.all.first?.message.hasSuffix("(read anyway; --fail-on \(entry.damage) refuses it)") == true,
                "\(warnings.all)")
        } else {
            #expect(warnings.all.isEmpty, "\(warnings.all)")
        }
    }

    /// Each level below the file's damage reads it; the level of its damage and those above refuse it
    /// with one error naming the file and the damage.
    @Test(arguments: CorpusEntry.all.filter { $0.failOn != nil })
    func failOnRefusesFromTheLevelOfTheDamage(_ entry: CorpusEntry) throws {
        for level in FailOn.allCases {
            var options = DecodeOptions(failOn: level)
            options.warnings = { _ in }
            let reads = entry.levelsReading.contains(level)
            do {
                _ = try ImageFile.load(path: entry.path, options: options).1.pixels()
                #expect(reads, "failOn \(level) read \(entry.file)")
            } catch let error as ImageError {
                #expect(!reads, "failOn \(level) refused \(entry.file): \(error)")
                #expect(error.path == entry.path)
                #expect(error.message.contains(entry.warning ?? ""), "\(error.message)")
            }
        }
    }

    /// A frame smaller than its canvas leaves the rest of the canvas transparent, never what the memory
    /// held: each layout is decoded right after a different image of the same size, whose freed buffer a
    /// decode that left pixels unwritten would show (a one-frame animated WebP did, issue 37).
    @Test func framesSmallerThanTheCanvasShowNoStaleMemory() throws {
        let layouts = CorpusEntry.all.filter { $0.frame != nil }
        #expect(layouts.count >= 5)
        try withTemporaryFolder { folder in
            for entry in layouts {
                // The same size and channels as the layout's decode, every sample far from 0.
                var noise = PixelBuffer(region: Rect(width: entry.width, height: entry.height), channels: 4)
                for i in noise.samples.indices { noise.samples[i] = Float(37 + (i * 7919) % 200) / 255 }
                let noisy = folder.appendingPathComponent("noise-\(entry.file).webp").path
                var lossless = EncodeOptions()
                lossless.lossless = true
                try ImageFile.save(Image(buffer: noise, layout: .rgba), to: noisy, options: lossless)
                for _ in 0..<3 {
                    _ = try ImageFile.load(path: noisy).1.pixels()
                    let pixels = try ImageFile.load(path: entry.path).1.pixels()
                    let frame = try #require(entry.frame)
                    var stale = 0
                    for y in 0..<entry.height {
                        for x in 0..<entry.width
                        where !(frame[0]..<frame[0] + frame[2]).contains(x)
                            || !(frame[1]..<frame[1] + frame[3]).contains(y)
                        {
                            if (0..<4).contains(where: { pixels[x, y, $0] != 0 }) { stale += 1 }
                        }
                    }
                    #expect(stale == 0, "\(entry.file): \(stale) pixels outside the frame are not transparent")
                    try Self.compare(pixels, entry)
                }
            }
        }
    }
}
