import TesseraCore

extension Jobs {
    /// Jobs run on the run's workers: the calling thread takes jobs until none is left, the other
    /// workers take them beside it, and it returns once the last one running is done.
    static func workers(of pool: WorkerPool, cancellation: Cancellation) -> Jobs {
        Jobs { count, body in
            guard pool.threads > 1, count > 1 else {
                for index in 0..<count where !cancellation.isCancelled { body(index) }
                return
            }
            withoutActuallyEscaping(body) { body in
                let batch = JobBatch(count: count, body: body, cancellation: cancellation)
                pool.submit(batch)
                while batch.runOne() {}
                batch.finish()
            }
        }
    }
}

extension RunMonitor {
    /// The jobs runner for nodes of this run (``Jobs/current``): its workers, stopping at cancellation.
    package var jobs: Jobs { .workers(of: pool, cancellation: cancellation) }
}

/// One ``Jobs/perform`` call's jobs, handed out by index. Jobs not started when the run is cancelled
/// are skipped (``Jobs/map(_:_:)`` then fails).
private final class JobBatch: WorkSet, @unchecked Sendable {
    private struct State {
        var next = 0
        var running = 0
        /// Cleared by ``finish()``: the caller's closure must not outlive its call.
        var body: (@Sendable (Int) -> Void)?
    }

    private let count: Int
    private let cancellation: Cancellation
    private let state: Locked<State>

    init(count: Int, body: @escaping @Sendable (Int) -> Void, cancellation: Cancellation) {
        self.count = count
        self.cancellation = cancellation
        state = Locked(State(body: body))
    }

    func runOne() -> Bool {
        guard run() else { return false }
        state.withLockNotifying { $0.running -= 1 }
        return true
    }

    /// Takes and runs the next job; the closure is released when this returns, before the job counts
    /// as done.
    private func run() -> Bool {
        let job = state.withLock { state -> (Int, @Sendable (Int) -> Void)? in
            guard state.next < count, let body = state.body, !cancellation.isCancelled else { return nil }
            state.next += 1
            state.running += 1
            return (state.next - 1, body)
        }
        guard let (index, body) = job else { return false }
        body(index)
        return true
    }

    /// Waits for the jobs other workers are running, then forgets the closure.
    func finish() {
        state.wait(until: { $0.running == 0 }) { state in
            state.next = count
            state.body = nil
        }
    }
}
