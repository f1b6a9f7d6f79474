/// Sample storage a thread renders tiles into, kept for its next tiles: a kernel's input regions, a
/// tile on its way into a band. A worker rendering tile after tile then allocates (and page-faults)
/// nothing per tile once its first few tiles have sized the buffers it keeps.
///
/// Kept per thread, so taking and giving back takes no lock. Buffers nest as renders do (a kernel's
/// input renders its own inputs first): last taken, first given back.
extension PixelBuffer {
    /// A buffer for `region` with storage from this thread's spares: its samples are stale, for the
    /// caller to overwrite all of them. Give it back with ``recycle()``.
    package static func scratch(region: Rect, channels: Int) -> PixelBuffer {
        PixelBuffer(region: region, channels: channels, reusing: SpareSamples.current.take(region.area * channels))
    }

    /// Hands the storage back to this thread's spares, for the next ``scratch(region:channels:)``.
    package consuming func recycle() {
        SpareSamples.current.give(samples)
    }

    /// Buffers this thread has allocated sample storage for so far: the scheduler reports its
    /// workers' count for a run, which must not grow with the run's number of tiles.
    package static var allocationsOnThisThread: Int { SpareSamples.current.allocations }

    /// Counts a new allocation of sample storage (``allocationsOnThisThread``).
    static func countAllocation() {
        SpareSamples.current.allocations += 1
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
    private var arrays: [[Float]] = []
    /// Empty arrays of buffers with room for a kernel's inputs.
    private var frames: [[PixelBuffer]] = []

    /// The spare that holds `count` samples with the least room to spare, or else the largest (which
    /// grows): buffers of many sizes share the list without a small one forcing a big allocation.
    func take(_ count: Int) -> [Float] {
        var best: Int?
        for index in arrays.indices {
            let capacity = arrays[index].capacity
            guard let current = best else {
                best = index
                continue
            }
            let bestCapacity = arrays[current].capacity
            if capacity >= count ? (bestCapacity < count || capacity < bestCapacity) : capacity > bestCapacity {
                best = index
            }
        }
        guard let best else { return [] }
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
