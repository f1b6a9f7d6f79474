import Foundation
import Testing
import TesseraCore
import TesseraIO

@Suite struct EncodeTests {
    static let losslessPNGs = Fixture.all.filter { $0.format == "png" }

    /// Writer settings cycled over the fixtures so every TIFF writer path gets exercised.
    static let tiffSettings: [(TIFFCompression, Int?)] = [
        (.none, nil), (.lzw, 16), (.deflate, nil), (.packbits, 32), (.deflate, 16), (.lzw, nil),
    ]

    @Test(arguments: losslessPNGs.indices)
    func pngToTIFFAndBackIsPixelExact(index: Int) throws {
        let fixture = Self.losslessPNGs[index]
        let (compression, tile) = Self.tiffSettings[index % Self.tiffSettings.count]
        try withTemporaryFolder { folder in
            let (_, original) = try ImageFile.load(path: fixture.path)
            var options = EncodeOptions()
            options.tiffCompression = compression
            options.tileSize = tile
            let tiff = folder.appendingPathComponent("a.tif").path
            let png = folder.appendingPathComponent("b.png").path
            try ImageFile.save(original, to: tiff, options: options)
            let (tiffInfo, viaTIFF) = try ImageFile.load(path: tiff)
            #expect(tiffInfo.bitsPerSample == (fixture.bitDepth == 16 ? 16 : 8), "16-bit stays 16-bit")
            #expect(tiffInfo.layout == fixture.pixelLayout)
            try ImageFile.save(viaTIFF, to: png)
            let (pngInfo, back) = try ImageFile.load(path: png)
            #expect(pngInfo.bitsPerSample == (fixture.bitDepth == 16 ? 16 : 8))
            #expect(try back.pixels() == original.pixels())
            // The sub-byte and palette fixtures come back as 8-bit samples: check them against the
            // independent decode in 8-bit units.
            var wide = fixture
            if fixture.bitDepth < 8 {
                let scale = 255 / Double((1 << fixture.bitDepth) - 1)
                let pixels = try back.pixels()
                let expected = try fixture.expectedSamples()
                #expect(
                    pixels.samples.indices.allSatisfy {
                        abs(Double(pixels.samples[$0]) * 255 - expected[$0] * scale) < 1e-3
                    })
                wide.bitDepth = fixture.bitDepth
            } else {
                try expectPixels(try back.pixels(), match: wide)
            }
        }
    }

    @Test(arguments: Fixture.all.filter { $0.format == "tiff" && $0.isLossless })
    func tiffRewritesExactlyInEveryDepth(_ fixture: Fixture) throws {
        try withTemporaryFolder { folder in
            let (_, original) = try ImageFile.load(path: fixture.path)
            var options = EncodeOptions()
            options.tiffCompression = .deflate
            options.tileSize = 16
            let path = folder.appendingPathComponent("c.tif").path
            try ImageFile.save(original, to: path, options: options)
            let (info, copy) = try ImageFile.load(path: path)
            #expect(info.isFloat == (fixture.sampleType == "float"))
            #expect(info.bitsPerSample == fixture.bitDepth)
            try expectPixels(try copy.pixels(), match: fixture)
        }
    }

    @Test func depthIsConvertedOnRequest() throws {
        try withTemporaryFolder { folder in
            let fixture = try #require(Fixture.all.first { $0.file == "png/rgb-8bit.png" })
            let (_, image) = try ImageFile.load(path: fixture.path)
            var options = EncodeOptions()
            options.depth = .uint16
            let path = folder.appendingPathComponent("16.png").path
            #expect(try ImageFile.save(image, to: path, options: options) == .uint16)
            let (info, wide) = try ImageFile.load(path: path)
            #expect(info.bitsPerSample == 16)
            // 8-bit k widens to k * 257: the same value, so it narrows back to k.
            let narrow = try image.pixels().samples.map { ($0 * 255).rounded() }
            #expect(try wide.pixels().samples.map { ($0 * 255).rounded() } == narrow)
            #expect(
                try wide.pixels().samples.allSatisfy {
                    ($0 * 65535).rounded().truncatingRemainder(dividingBy: 257) == 0
                })
        }
    }

    @Test func jpegQualityTradesSizeForFidelity() throws {
        try withTemporaryFolder { folder in
            let fixture = try #require(Fixture.all.first { $0.file == "jpeg/color-progressive-optimized-large.jpg" })
            let (_, image) = try ImageFile.load(path: fixture.path)
            let source = try image.pixels()
            var sizes: [Int] = []
            var errors: [Double] = []
            for quality in [20, 60, 95] {
                var options = EncodeOptions()
                options.quality = quality
                let path = folder.appendingPathComponent("q\(quality).jpg").path
                try ImageFile.save(image, to: path, options: options)
                sizes.append(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0)
                let copy = try ImageFile.load(path: path).1.pixels()
                let squared = zip(source.samples, copy.samples).map { Double($0 - $1) * Double($0 - $1) }
                errors.append(squared.reduce(0, +) / Double(squared.count))
            }
            #expect(sizes[0] < sizes[1] && sizes[1] < sizes[2])
            #expect(errors[0] > errors[1] && errors[1] > errors[2])
            let psnr95 = 10 * log10(1 / errors[2])
            #expect(psnr95 > 35, "PSNR at quality 95: \(psnr95) dB")
        }
    }

    @Test func pngLevelTradesSpeedForSizeNotPixels() throws {
        try withTemporaryFolder { folder in
            let fixture = try #require(Fixture.all.first { $0.file == "jpeg/color-progressive-optimized-large.jpg" })
            let (_, image) = try ImageFile.load(path: fixture.path)
            var sizes: [Int] = []
            for level in [0, 1, 9] {
                var options = EncodeOptions()
                options.pngLevel = level
                let path = folder.appendingPathComponent("l\(level).png").path
                try ImageFile.save(image, to: path, options: options)
                sizes.append(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0)
                #expect(try ImageFile.load(path: path).1.pixels() == image.pixels())
            }
            // Level 0 stores: at least the raw RGB bytes.
            #expect(sizes[0] >= image.width * image.height * 3)
            #expect(sizes[0] > sizes[1] && sizes[1] >= sizes[2])
        }
    }

    @Test func grayImagesStayGrayAndAlphaIsDroppedOnlyForJPEG() throws {
        try withTemporaryFolder { folder in
            for (name, layout, expectedJPEG) in [
                ("png/gray-8bit.png", PixelLayout.gray, PixelLayout.gray),
                ("png/grayalpha-8bit.png", .grayAlpha, .gray),
                ("png/rgba-8bit.png", .rgba, .rgb),
            ] {
                let fixture = try #require(Fixture.all.first { $0.file == name })
                let (_, image) = try ImageFile.load(path: fixture.path)
                #expect(image.layout == layout)
                let jpeg = folder.appendingPathComponent("x.jpg").path
                try ImageFile.save(image, to: jpeg)
                #expect(try ImageFile.info(path: jpeg).layout == expectedJPEG)
                let png = folder.appendingPathComponent("x.png").path
                try ImageFile.save(image, to: png)
                #expect(try ImageFile.info(path: png).layout == layout)
            }
        }
    }

    @Test func formatsThatCannotHoldTheDepthSaySo() throws {
        let (_, image) = try ImageFile.load(path: Fixture.folder.appendingPathComponent("png/rgb-16bit.png").path)
        var options = EncodeOptions()
        options.depth = .uint16
        try withTemporaryFolder { folder throws in
            let jpeg = folder.appendingPathComponent("x.jpg").path
            let png = folder.appendingPathComponent("x.png").path
            #expect(throws: ImageError(path: jpeg, message: "JPEG holds 8-bit samples only")) {
                try ImageFile.save(image, to: jpeg, options: options)
            }
            options.depth = .float32
            #expect(throws: ImageError(path: png, message: "PNG holds 8- or 16-bit samples, not float")) {
                try ImageFile.save(image, to: png, options: options)
            }
            // Refused before anything is written.
            let written = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            #expect(written.isEmpty)
        }
    }

    @Test func compressionTextIsParsedPerFormat() throws {
        var options = EncodeOptions()
        try options.setCompression("9", for: .png)
        #expect(options.pngLevel == 9)
        try options.setCompression("LZW", for: .tiff)
        #expect(options.tiffCompression == .lzw)
        #expect(throws: ImageError.self) { try options.setCompression("10", for: .png) }
        #expect(throws: ImageError.self) { try options.setCompression("zip", for: .tiff) }
        #expect(throws: ImageError.self) { try options.setCompression("1", for: .jpeg) }
    }
}
