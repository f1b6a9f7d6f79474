/// The Float32 pixels of one rectangular region of an image, interleaved, row by row.
///
/// The region is in the image's coordinates, so a buffer for `Rect(x: 100, y: 50, width: 8, height: 8)`
/// holds pixels (100, 50) to (107, 57). Channels are 1 (gray) or 4 (red, green, blue, alpha).
public struct PixelBuffer: Sendable, Equatable {
    public private(set) var region: Rect
    public let channels: Int
    /// `region.height` rows of `region.width * channels` samples.
    public var samples: [Float]

    /// A buffer for `region` with every sample set to `value`.
    public init(region: Rect, channels: Int, value: Float = 0) {
        precondition(channels == 1 || channels == 4, "images have 1 or 4 channels")
        self.region = region
        self.channels = channels
        self.samples = [Float](repeating: value, count: region.area * channels)
        if !region.isEmpty { Self.countAllocation() }
    }

    public init(region: Rect, channels: Int, samples: [Float]) {
        precondition(channels == 1 || channels == 4, "images have 1 or 4 channels")
        precondition(samples.count == region.area * channels, "sample count does not match the region")
        self.region = region
        self.channels = channels
        self.samples = samples
    }

    /// Points this buffer at another region, reusing its storage: the samples are left as they were,
    /// for a source to overwrite. This is how a loop over bands or tiles avoids allocating (and
    /// zero-filling) a buffer for each one. Storage too small is swapped for the thread's best spare
    /// (``scratch(region:channels:)``), so that an empty buffer handed to a source that may need room
    /// costs nothing unless it does.
    public mutating func reshape(to newRegion: Rect) {
        let count = newRegion.area * channels
        if count <= samples.capacity {
            samples.resizeWithinCapacity(to: count)
        } else {
            let old = samples
            samples = .scratch(count: count)
            if old.capacity > 0 { old.recycleScratch() }
        }
        region = newRegion
    }

    /// Samples per row.
    public var rowLength: Int { region.width * channels }

    /// The index in `samples` of channel 0 of the pixel at image coordinates (x, y).
    @inlinable
    public func index(x: Int, y: Int) -> Int {
        ((y - region.y) * region.width + (x - region.x)) * channels
    }

    /// The sample at image coordinates (x, y), channel `c`.
    @inlinable
    public subscript(x: Int, y: Int, c: Int) -> Float {
        get { samples[index(x: x, y: y) + c] }
        set { samples[index(x: x, y: y) + c] = newValue }
    }

    /// Copies the pixels of `source` that fall inside this buffer's region.
    public mutating func copy(from source: PixelBuffer) {
        precondition(source.channels == channels, "channel counts differ")
        let common = region.intersection(source.region)
        guard !common.isEmpty else { return }
        let length = common.width * channels
        let targetStart = index(x: common.minX, y: common.minY)
        let sourceStart = source.index(x: common.minX, y: common.minY)
        let targetRow = rowLength
        let sourceRow = source.rowLength
        samples.withUnsafeMutableBufferPointer { target in
            source.samples.withUnsafeBufferPointer { from in
                guard let t = target.baseAddress, let s = from.baseAddress else { return }
                for row in 0..<common.height {
                    (t + targetStart + row * targetRow).update(from: s + sourceStart + row * sourceRow, count: length)
                }
            }
        }
    }

    /// A new buffer holding the part of this one inside `subregion`, which must lie inside `region`.
    public func cropped(to subregion: Rect) -> PixelBuffer {
        precondition(region.contains(subregion), "\(subregion) is not inside \(region)")
        var result = PixelBuffer(region: subregion, channels: channels)
        result.copy(from: self)
        return result
    }
}
