/// Sample storage a thread renders tiles into, kept for its next tiles: a kernel's input regions, a
/// tile on its way into a band. A worker rendering tile after tile then allocates (and page-faults)
/// nothing per tile once its first few tiles have sized the buffers it keeps.
///
/// Kept per thread, so taking and giving back takes no lock. Buffers nest as renders do (a kernel's
/// input renders its own inputs first): last taken, first given back.
extension PixelBuffer {
    /// A buffer for `region` with storage from this thread's spares (``Swift/Array/scratch(count:)``):
    /// its samples are stale, for the caller to overwrite all of them. Give it back with ``recycle()``.
    package static func scratch(region: Rect, channels: Int) -> PixelBuffer {
        PixelBuffer(region: region, channels: channels, samples: .scratch(count: region.area * channels))
    }

    /// Hands the storage back to this thread's spares, for the next ``scratch(region:channels:)``.
    package consuming func recycle() {
        samples.recycleScratch()
    }

    /// Buffers this thread has allocated sample storage for so far: the scheduler reports its
    /// workers' count for a run, which must not grow with the run's number of tiles.
    package static var allocationsOnThisThread: Int { SpareSamples.current.allocations }

    /// Samples this thread has cleared so far growing a buffer within its storage, work that a worker
    /// taking its spares well does not repeat for every tile.
    package static var zeroFilledOnThisThread: Int { SpareSamples.current.zeroFilled }

    /// Counts a new allocation of sample storage (``allocationsOnThisThread``).
    static func countAllocation() {
        SpareSamples.current.allocations += 1
    }
}

/// Zeros to grow an array of samples by, a block at a time.
private let zeroSamples = [Float](repeating: 0, count: 16384)

extension [Float] {
    /// `count` samples from this thread's spares, stale (or, in new storage, uninitialized): for a
    /// kernel's own scratch, every sample of which it writes before reading. Give them back with
    /// ``recycleScratch()``.
    package static func scratch(count: Int) -> [Float] {
        if count == 0 { return [] }
        var samples = SpareSamples.current.take(count)
        if count <= samples.capacity {
            samples.resizeWithinCapacity(to: count)
        } else {
            samples = [Float](unsafeUninitializedCapacity: count) { _, initialized in initialized = count }
            PixelBuffer.countAllocation()
        }
        return samples
    }

    /// Sets the count to `count`, at most the capacity: shrinking is free, growing zero-fills the new part
    /// (which is why ``SpareSamples/take(_:)`` prefers arrays that need no growing).
    package mutating func resizeWithinCapacity(to count: Int) {
        if count < self.count {
            removeLast(self.count - count)
        } else {
            // Copied from a block of zeros: appending a repeated element goes one element at a time.
            SpareSamples.current.zeroFilled += count - self.count
            while self.count < count { append(contentsOf: zeroSamples.prefix(count - self.count)) }
        }
    }

    /// Hands samples from ``scratch(count:)`` back to this thread's spares.
    package consuming func recycleScratch() {
        SpareSamples.current.give(self)
    }
}

/// The current thread's spare sample arrays.
package final class SpareSamples {
    /// More than a kernel's inputs times the depth of a chain, so a steady render finds one always.
    private static let limit = 16
    /// Bytes kept at most, over all spares: tiles and their input regions (a 256-pixel RGBA tile is
    /// 1 MB) fit many times over; a band-sized request (a 6400-pixel-wide band, 26 MB) is not kept,
    /// which would hold hundreds of megabytes per thread for the rare reads that size.
    private static let limitBytes = 32 << 20
    private var keptBytes = 0
    var allocations = 0
    /// Samples cleared so far to grow an array within its capacity (``resizeWithinCapacity(to:)``).
    var zeroFilled = 0
    private var arrays: [[Float]] = []
    /// Empty arrays of buffers with room for a kernel's inputs.
    private var frames: [[PixelBuffer]] = []

    /// The spare that best holds `count` samples: among those with the capacity, the one whose samples
    /// number closest to `count`, else the largest (which grows). Shrinking an array drops samples that
    /// a later, larger request must zero-fill again, and growing one zero-fills the new part now: this
    /// clears the fewest either way (taking the smallest capacity that fits, as before, made a tile's
    /// input grow, clearing megabytes it was about to overwrite, on every tile). Buffers of many sizes
    /// share the list without a small one forcing a big allocation.
    func take(_ count: Int) -> [Float] {
        func rank(_ array: [Float]) -> (Int, Int) {
            array.capacity >= count ? (0, abs(array.count - count)) : (1, -array.capacity)
        }
        guard let best = arrays.indices.min(by: { rank(arrays[$0]) < rank(arrays[$1]) }) else { return [] }
        arrays.swapAt(best, arrays.count - 1)
        let taken = arrays.removeLast()
        keptBytes -= taken.capacity * MemoryLayout<Float>.size
        return taken
    }

    /// An empty array of buffers, for a kernel's inputs; give it back with ``giveFrame(_:)``.
    func takeFrame() -> [PixelBuffer] { frames.popLast() ?? [] }

    func giveFrame(_ frame: consuming [PixelBuffer]) {
        guard frames.count < Self.limit else { return }
        frame.removeAll(keepingCapacity: true)
        frames.append(frame)
    }

    func give(_ samples: consuming [Float]) {
        let bytes = samples.capacity * MemoryLayout<Float>.size
        guard arrays.count < Self.limit, bytes > 0, keptBytes + bytes <= Self.limitBytes else { return }
        keptBytes += bytes
        arrays.append(samples)
    }

    /// Frees this thread's spares: a run's own thread calls it as the run ends, so a program that ran
    /// a big graph does not keep its tile buffers.
    package static func dropCurrent() {
        current.arrays = []
        current.keptBytes = 0
        current.frames = []
    }

    private static let perThread = PerThread { SpareSamples() }

    static var current: SpareSamples { perThread.current }
}
