import Foundation
import Testing
import TesseraCore
import TesseraIO

@Suite(.serialized) struct InterruptTests {
    /// Writes `big.png` into `folder`: noise does not compress, so writing it again at zlib level 9
    /// takes seconds, time to interrupt.
    func writeNoise(in folder: URL) throws {
        let side = 2500
        var state: UInt32 = 12345
        var noise = PixelBuffer(region: Rect(width: side, height: side), channels: 4, value: 1)
        noise.samples.withUnsafeMutableBufferPointer { samples in
            for i in stride(from: 0, to: samples.count, by: 4) {
                for c in 0..<3 {
                    state = state &* 1_664_525 &+ 1_013_904_223
                    samples[i + c] = Float(state >> 24) / 255
                }
            }
        }
        var fast = EncodeOptions()
        fast.pngLevel = 0
        try ImageFile.save(
            Image(buffer: noise, layout: .rgb, depth: .uint8), to: folder.appendingPathComponent("big.png").path,
            options: fast)
    }

    /// Starts `tessera` with `arguments` in `folder` and interrupts it once its temporary output exists.
    func interrupt(_ arguments: [String], in folder: URL) throws -> Process {
        let process = Process()
        process.executableURL = try #require(CLI.executable)
        process.arguments = arguments
        process.currentDirectoryURL = folder
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Wait until the temporary output exists, so the interrupt lands mid-write.
        let deadline = Date().addingTimeInterval(20)
        func writing() -> Bool {
            ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).contains {
                $0.hasSuffix(".tmp")
            }
        }
        while !writing() && process.isRunning && Date() < deadline { usleep(10_000) }
        #expect(writing(), "the conversion was writing when interrupted")
        process.interrupt()
        process.waitUntilExit()
        return process
    }

    @Test func ctrlCLeavesNoFileBehind() throws {
        try withTemporaryFolder { folder in
            try writeNoise(in: folder)
            let process = try interrupt(["convert", "big.png", "out.png", "--compression", "9"], in: folder)
            #expect(
                process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGINT,
                "\(process.terminationReason.rawValue) \(process.terminationStatus) \((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [])"
            )
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["big.png"])
        }
    }

    /// `tessera run` turns Ctrl-C into a cancellation: the workers stop, the temporary file goes, and the
    /// status is 130.
    @Test func ctrlCStopsARunWithStatus130() throws {
        try withTemporaryFolder { folder in
            try writeNoise(in: folder)
            let graph = """
                version: 1
                nodes:
                  noise: { op: load, path: big.png }
                  soft: { op: contrast, input: noise, amount: 0.5 }
                  out: { op: save, input: soft, path: out.png, compression: 9 }
                """
            try graph.write(to: folder.appendingPathComponent("g.yaml"), atomically: false, encoding: .utf8)
            let process = try interrupt(["run", "g.yaml"], in: folder)
            #expect(process.terminationReason == .exit && process.terminationStatus == 130)
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == ["big.png", "g.yaml"])
        }
    }
}
