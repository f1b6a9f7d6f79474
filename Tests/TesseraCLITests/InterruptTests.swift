import Foundation
import Testing
import TesseraCore
import TesseraIO

@Suite struct InterruptTests {
    @Test func ctrlCLeavesNoFileBehind() throws {
        try withTemporaryFolder { folder in
            // Noise does not compress, so writing it at zlib level 9 takes seconds: time to interrupt.
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

            let process = Process()
            process.executableURL = try #require(CLI.executable)
            process.arguments = ["convert", "big.png", "out.png", "--compression", "9"]
            process.currentDirectoryURL = folder
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
            #expect(
                process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGINT,
                "\(process.terminationReason.rawValue) \(process.terminationStatus) \((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [])"
            )
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["big.png"])
        }
    }
}
