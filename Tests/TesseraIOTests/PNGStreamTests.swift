import Foundation
import Testing
import TesseraCore
import TesseraTesting

@testable import TesseraIO

/// The PNG writer filters and deflates its rows itself, in pieces the run's workers make at once
/// (`PNGStream`). Random images of every layout and depth, at every zlib level, with rows from one
/// byte to pieces of one row, and heights across several groups of pieces: each file must be the same
/// bytes written serially and on four threads, and decode to exactly the samples written, read back by
/// libpng (which neither filters nor deflates for the writer any more) and by Pillow.
@Suite struct PNGStreamTests {
    struct Case {
        var width: Int
        var height: Int
        var layout: PixelLayout
        var depth: SampleDepth
        var level: Int
        var seed: UInt64
    }

    static let cases: [Case] = {
        var generator = SplitMix(seed: 0x504E_4753)
        var cases: [Case] = []
        for index in 0..<24 {
            let layout = PixelLayout.allCases[index % 4]
            let depth: SampleDepth = index % 3 == 2 ? .uint16 : .uint8
            // Wide rows make pieces of a few rows (one, past 256 KB); tall images span several groups.
            let width: Int
            switch index % 4 {
            case 0: width = 1 + Int(generator.next() % 4)
            case 1: width = 1 + Int(generator.next() % 700)
            case 2: width = 1000 + Int(generator.next() % 2000)
            // 16-bit RGBA past 33,000 pixels: rows longer than a piece.
            default: width = (index == 11 ? 33_000 : 9000) + Int(generator.next() % 1000)
            }
            let rowBytes = width * layout.fileChannels * depth.bytes
            let groupRows = Swift.max(1, PNGStream.pieceBytes / rowBytes) * PNGStream.piecesPerGroup
            let height = index % 5 == 0 ? 1 : 1 + Int(generator.next() % UInt64(Swift.min(2 * groupRows + 3, 120)))
            cases.append(
                Case(
                    width: width, height: height, layout: layout, depth: depth, level: index % 10,
                    seed: generator.next()))
        }
        return cases
    }()

    /// Samples that make every filter win somewhere: smooth ramps, flat runs and noise, band by band.
    static func samples(_ c: Case) -> [UInt8] {
        var generator = SplitMix(seed: c.seed)
        let bands = c.layout.fileChannels
        let maximum = c.depth == .uint16 ? 65535 : 255
        var values: [Int] = []
        values.reserveCapacity(c.width * c.height * bands)
        for y in 0..<c.height {
            let kind = (y / 3 + Int(c.seed % 5)) % 4
            for x in 0..<c.width {
                for band in 0..<bands {
                    let value: Int
                    switch kind {
                    case 0: value = (x * 7 + y * 3 + band * 50) % (maximum + 1)
                    case 1: value = (band * 90) % (maximum + 1)
                    case 2: value = Int(generator.next() % UInt64(maximum + 1))
                    default: value = (x * x / 3 + y + Int(generator.next() % 9)) % (maximum + 1)
                    }
                    values.append(value)
                }
            }
        }
        guard c.depth == .uint16 else { return values.map { UInt8($0) } }
        return values.withUnsafeBufferPointer { values in
            var bytes = [UInt8](repeating: 0, count: values.count * 2)
            bytes.withUnsafeMutableBytes { raw in
                for (i, value) in values.enumerated() {
                    raw.storeBytes(of: UInt16(value), toByteOffset: 2 * i, as: UInt16.self)
                }
            }
            return bytes
        }
    }

    /// Four threads of the test's own, standing in for the run's workers.
    static let parallel = Jobs { count, body in DispatchQueue.concurrentPerform(iterations: count, execute: body) }

    @Test func piecesMakeOneStreamWhateverTheThreads() throws {
        try withTemporaryFolder { folder in
            var pillowChecks: [(path: String, expected: [UInt8])] = []
            for (index, c) in Self.cases.enumerated() {
                let bytes = Self.samples(c)
                let format = SampleFormat(depth: c.depth, bands: c.layout.fileChannels)
                let image = Image(
                    width: c.width, height: c.height, layout: c.layout, depth: c.depth,
                    source: PackedBufferSource(format: format, width: c.width, bytes: bytes))
                var options = EncodeOptions()
                options.pngLevel = c.level
                let serial = folder.appendingPathComponent("s\(index).png").path
                let threaded = folder.appendingPathComponent("p\(index).png").path
                try ImageFile.save(image, to: serial, options: options)
                try Jobs.$current.withValue(Self.parallel) { try ImageFile.save(image, to: threaded, options: options) }
                let label = "\(c.width)x\(c.height) \(c.layout) \(c.depth) level \(c.level)"
                let identical =
                    FileManager.default.contents(atPath: serial) == FileManager.default.contents(atPath: threaded)
                #expect(identical, "\(label): other bytes on four threads")
                // libpng reads back the very samples written.
                let (info, back) = try ImageFile.load(path: threaded)
                #expect(info.layout == c.layout && info.bitsPerSample == c.depth.bits, "\(label)")
                var read = [UInt8](repeating: 0, count: bytes.count)
                var scratch = PixelBuffer(region: .empty, channels: back.channels)
                try read.withUnsafeMutableBytes { raw in
                    try back.encode(
                        back.extent, with: back.encoder(for: format), scratch: &scratch, into: raw.baseAddress!,
                        rowBytes: c.width * format.bytesPerPixel)
                }
                let same = read == bytes
                #expect(same, "\(label): libpng reads other samples")
                if c.depth == .uint8 || c.layout == .gray {
                    // Pillow gives 16-bit gray as little-endian "I;16": the samples' own order here.
                    pillowChecks.append((threaded, bytes))
                }
            }
            try Self.checkWithPillow(pillowChecks, folder: folder)
        }
    }

    /// Pillow decodes each file (its own zlib and unfiltering) and writes its samples beside it.
    static func checkWithPillow(_ checks: [(path: String, expected: [UInt8])], folder: URL) throws {
        let script = """
            import sys
            import numpy
            from PIL import Image
            for path in sys.argv[1:]:
                image = Image.open(path)
                # Pillow widens 16-bit gray to 32-bit "I": packed back to 16 bits.
                data = numpy.asarray(image).astype("<u2").tobytes() if image.mode == "I" else image.tobytes()
                with open(path + ".raw", "wb") as out:
                    out.write(data)
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", script] + checks.map(\.path)
        try process.run()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "Pillow could not read the files")
        for check in checks {
            let samples = FileManager.default.contents(atPath: check.path + ".raw").map { [UInt8]($0) }
            let same = samples == check.expected
            #expect(same, "\(check.path): Pillow reads other samples")
        }
    }
}
