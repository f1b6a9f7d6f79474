#if canImport(Glibc)
    import Glibc
#endif

/// A value only reached under a lock: `withLock` gives its closure the value, one thread at a time.
///
/// Built on `pthread_mutex_t`, which ThreadSanitizer understands. The standard library's
/// `Synchronization.Mutex` hands a contended lock over through the kernel on Linux, where TSan cannot
/// see it, so every contended critical section would read as a race and `make tsan` would report
/// nothing but noise.
///
/// A thread may also wait for the value to change (``wait(until:then:)``), woken by
/// ``withLockNotifying(_:)``: the scheduler's workers wait for work, and readers for a tile or a cell
/// another worker is rendering, this way.
package final class Locked<Value>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>
    private var value: Value

    package init(_ value: Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        condition = .allocate(capacity: 1)
        condition.initialize(to: pthread_cond_t())
        pthread_cond_init(condition, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        condition.deallocate()
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` under the lock, then wakes every thread waiting in ``wait(until:then:)``.
    package func withLockNotifying<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result)
        throws(Failure) -> Result
    {
        pthread_mutex_lock(mutex)
        defer {
            pthread_cond_broadcast(condition)
            pthread_mutex_unlock(mutex)
        }
        return try body(&value)
    }

    /// Sleeps until `ready` holds of the value (checked under the lock, again after each
    /// ``withLockNotifying(_:)``), then runs `body` under the same hold of the lock.
    package func wait<Result>(until ready: (inout Value) -> Bool, then body: (inout Value) -> Result) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while !ready(&value) { pthread_cond_wait(condition, mutex) }
        return body(&value)
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
