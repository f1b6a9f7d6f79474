#if canImport(Glibc)
    import Glibc
#endif

/// A value only reached under a lock: `withLock` gives its closure the value, one thread at a time.
///
/// Built on `pthread_mutex_t`, which ThreadSanitizer understands. The standard library's
/// `Synchronization.Mutex` hands a contended lock over through the kernel on Linux, where TSan cannot
/// see it, so every contended critical section would read as a race and `make tsan` would report
/// nothing but noise.
package final class Locked<Value>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

    package init(_ value: Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with the value, holding the lock; `body` must not take this lock again.
    package func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure)
        -> Result
    {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
