import Testing
import TesseraCore

@Suite struct ImageTests {
    /// A 5x4 RGBA image whose sample values encode their own position.
    func numbered() -> PixelBuffer {
        var buffer = PixelBuffer(region: Rect(width: 5, height: 4), channels: 4)
        for y in 0..<4 {
            for x in 0..<5 {
                for c in 0..<4 { buffer[x, y, c] = Float(y * 100 + x * 10 + c) }
            }
        }
        return buffer
    }

    @Test func bufferIndexesInImageCoordinates() {
        var buffer = PixelBuffer(region: Rect(x: 10, y: 20, width: 3, height: 2), channels: 1)
        buffer[12, 21, 0] = 7
        #expect(buffer.samples == [0, 0, 0, 0, 0, 7])
        #expect(buffer.rowLength == 3)
    }

    @Test func regionsOfAnImageAreItsPixels() throws {
        let image = Image(buffer: numbered(), layout: .rgba)
        let part = try image.pixels(in: Rect(x: 1, y: 2, width: 3, height: 2))
        #expect(part.region == Rect(x: 1, y: 2, width: 3, height: 2))
        for y in 2..<4 {
            for x in 1..<4 {
                for c in 0..<4 { #expect(part[x, y, c] == Float(y * 100 + x * 10 + c)) }
            }
        }
    }

    @Test func regionsOutsideTheImageAreRefused() {
        let image = Image(buffer: numbered(), layout: .rgba)
        #expect(throws: ImageError.self) { try image.pixels(in: Rect(x: 3, y: 0, width: 3, height: 1)) }
        #expect(throws: ImageError.self) { try image.pixels(in: Rect(x: 0, y: 0, width: 0, height: 1)) }
    }

    @Test func copyTakesOnlyTheOverlap() {
        let source = numbered()
        var target = PixelBuffer(region: Rect(x: 3, y: 3, width: 4, height: 4), channels: 4, value: -1)
        target.copy(from: source)
        #expect(target[3, 3, 2] == 332 && target[4, 3, 0] == 340)
        #expect(target[5, 3, 0] == -1 && target[3, 4, 0] == -1)
        let cropped = source.cropped(to: Rect(x: 4, y: 1, width: 1, height: 2))
        #expect(cropped.samples == [140, 141, 142, 143, 240, 241, 242, 243])
    }

    @Test func layoutsMapToOneOrFourChannels() {
        #expect(PixelLayout.allCases.map(\.channels) == [1, 4, 4, 4])
        #expect(PixelLayout.allCases.map(\.fileChannels) == [1, 2, 3, 4])
        #expect(PixelLayout.allCases.filter(\.hasAlpha) == [.grayAlpha, .rgba])
    }
}

@Suite struct BufferReuseTests {
    @Test func reshapeKeepsStorageForTheNextRegion() throws {
        var buffer = PixelBuffer(region: Rect(width: 4, height: 4), channels: 4, value: 1)
        buffer.reshape(to: Rect(x: 10, y: 20, width: 2, height: 3))
        #expect(buffer.samples.count == 24 && buffer.region == Rect(x: 10, y: 20, width: 2, height: 3))
        buffer.reshape(to: Rect(x: 0, y: 0, width: 5, height: 5))
        #expect(buffer.samples.count == 100)
        let image = Image(buffer: PixelBuffer(region: Rect(width: 5, height: 5), channels: 4, value: 3), layout: .rgba)
        try image.render(into: &buffer)
        #expect(buffer.samples.allSatisfy { $0 == 3 })
        var gray = PixelBuffer(region: Rect(width: 1, height: 1), channels: 1)
        #expect(throws: ImageError.self) { try image.render(into: &gray) }
    }
}
