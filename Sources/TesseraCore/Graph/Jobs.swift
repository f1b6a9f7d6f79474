import Synchronization

/// Independent pieces of a node's work that the engine may run at the same time: a contour sweep's
/// settings, for one. A node never touches threads; it asks ``current`` to map its jobs, and gets the
/// results in job order whatever ran where, so its output does not depend on the thread count.
///
///     let counts = try Jobs.current.map(settings.count) { i in try trace(settings[i]).count }
///
/// The engine sets ``current`` around each node's `run()` to its workers (`--threads`); anywhere else
/// (a node run directly, in a test) jobs run one after another on the caller's thread.
public struct Jobs: Sendable {
    /// Runs `body` once for each index in `0..<count`, in any order and on any thread, and returns
    /// when all have run.
    package let perform: @Sendable (_ count: Int, _ body: @Sendable (Int) -> Void) -> Void

    package init(perform: @escaping @Sendable (_ count: Int, _ body: @Sendable (Int) -> Void) -> Void) {
        self.perform = perform
    }

    /// One job after another on the caller's thread.
    package static let serial = Jobs { count, body in
        for index in 0..<count { body(index) }
    }

    /// The jobs runner of the node running now.
    @TaskLocal public static var current = Jobs.serial

    /// `body(0), body(1), ...` as jobs, results in index order. The first error thrown (by index) is
    /// rethrown once all jobs ended; jobs not started yet when one fails are skipped.
    public func map<T: Sendable>(_ count: Int, _ body: @Sendable (Int) throws -> T) throws -> [T] {
        guard count > 0 else { return [] }
        let results = Locked<[Result<T, any Error>?]>(Array(repeating: nil, count: count))
        let failed = Atomic<Bool>(false)
        withoutActuallyEscaping(body) { body in
            let job: @Sendable (Int) -> Void = { index in
                guard !failed.load(ordering: .relaxed) else { return }
                let result = Result { try body(index) }
                if case .failure = result { failed.store(true, ordering: .relaxed) }
                results.withLock { $0[index] = result }
            }
            perform(count, job)
        }
        let collected = results.withLock { $0 }
        for case .failure(let error)? in collected { throw error }
        // Every job ran when none failed.
        return try collected.map { try ($0 ?? .failure(CancellationError())).get() }
    }
}
