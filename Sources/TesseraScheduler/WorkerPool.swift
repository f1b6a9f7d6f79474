import TesseraCore

#if canImport(Glibc)
    import Glibc
#endif

/// Work that the run's workers take one piece at a time: the tiles of the bands a sink or a global node
/// reads (``ParallelSource``), the jobs a node hands out (``Jobs``).
protocol WorkSet: AnyObject, Sendable {
    /// Does one piece of the work on the calling thread; false when none was left to take (every
    /// piece is done or taken by another worker, or the run stopped).
    func runOne() -> Bool
}

/// The threads a run renders on: the thread that started the run (worker 0) and `threads - 1` more
/// (workers 1 and up), started with the run and joined at its end.
///
/// Work sets with pieces to hand out wait in one queue, oldest first. An idle worker takes the
/// oldest set's pieces until it has none left, then the next set's, and sleeps when the queue is
/// empty; ``submit(_:)`` wakes it. Nothing polls and nothing waits on a timer.
///
/// A thread that needs a result another piece of work makes (a band of tiles, a batch of jobs) never
/// just blocks: it takes the pieces of that work itself until none is left to take, and only then
/// waits for the ones other workers are finishing. That is why the run needs no more threads than
/// cores, whatever its graph: no thread waits for work that no thread is doing.
final class WorkerPool: Sendable {
    /// Workers, the run's own thread among them.
    let threads: Int
    private let state = Locked(State())
    private let handles = Locked<[pthread_t]>([])

    private struct State {
        /// Sets that may have pieces left, oldest first, each with how many times it was submitted.
        var queue: [(set: any WorkSet, submissions: Int)] = []
        var stopping = false
    }

    /// Starts `threads - 1` threads; each gets `Worker.current.id` 1, 2, ..., and runs its loop
    /// inside `around` (the run installs its per-worker statistics there, and reads them after).
    init(threads: Int, around: @escaping @Sendable (Worker, _ loop: () -> Void) -> Void) {
        self.threads = Swift.max(1, threads)
        var started: [pthread_t] = []
        for id in 1..<self.threads {
            let body = ThreadBody { [self] in
                let worker = Worker.current
                worker.id = id
                around(worker) { work() }
            }
            var handle = pthread_t()
            let context = Unmanaged.passRetained(body).toOpaque()
            let created = pthread_create(
                &handle, nil,
                { context in
                    guard let context else { return nil }
                    Unmanaged<ThreadBody>.fromOpaque(context).takeRetainedValue().run()
                    return nil
                }, context)
            if created == 0 {
                started.append(handle)
            } else {
                // No thread to be had (a process at its limit): the run goes on with fewer.
                Unmanaged<ThreadBody>.fromOpaque(context).release()
            }
        }
        handles.withLock { $0 = started }
    }

    /// Offers `set`'s pieces to the workers; call it whenever the set has new pieces to hand out.
    func submit(_ set: any WorkSet) {
        state.withLockNotifying { state in
            if let index = state.queue.firstIndex(where: { $0.set === set }) {
                state.queue[index].submissions += 1
            } else {
                state.queue.append((set, 0))
            }
        }
    }

    /// Stops the workers once the pieces they are running are done, and waits for them. Sets still
    /// queued must have nothing left to hand out by then (a finished run's sets stop handing out).
    func stop() {
        state.withLockNotifying { $0.stopping = true }
        let started = handles.withLock { handles in
            defer { handles = [] }
            return handles
        }
        for handle in started { pthread_join(handle, nil) }
        // Sets are taken off the queue by the workers' loop only: a run of one thread (no loop) leaves
        // every set it submitted there, and a set holds the run's monitor, which holds this pool. Dropped
        // here, so that a finished run is freed (a batch runs thousands in one process).
        state.withLock { $0.queue.removeAll() }
    }

    private func work() {
        while let (set, submissions) = next() {
            while set.runOne() {}
            // Out of pieces: off the queue, unless it was submitted again meanwhile (new pieces that
            // the last `runOne` may not have seen).
            state.withLock { state in
                if let index = state.queue.firstIndex(where: { $0.set === set }),
                    state.queue[index].submissions == submissions
                {
                    state.queue.remove(at: index)
                }
            }
        }
    }

    /// The oldest set with pieces, waiting for one; nil once the pool stops.
    private func next() -> (any WorkSet, Int)? {
        state.wait(until: { $0.stopping || !$0.queue.isEmpty }) { state in
            state.stopping ? nil : state.queue.first.map { ($0.set, $0.submissions) }
        }
    }
}

/// What a new thread runs, passed through `pthread_create`'s context pointer.
private final class ThreadBody {
    let run: () -> Void
    init(_ run: @escaping () -> Void) { self.run = run }
}

/// A result one worker is computing that others wait for (a cell of a cached or kept image): no cell
/// is rendered twice at once. A wait cannot deadlock: a cell's rendering reads only images upstream
/// of it, never the image of a cell its worker is waiting for.
final class Pending<Value: Sendable>: Sendable {
    private let result = Locked<Result<Value, any Error>?>(nil)

    func fulfil(_ outcome: Result<Value, any Error>) { result.withLockNotifying { $0 = outcome } }

    /// The result, once the computing worker has it.
    func wait() throws -> Value {
        try result.wait(until: { $0 != nil }) { $0 ?? .failure(CancellationError()) }.get()
    }
}
