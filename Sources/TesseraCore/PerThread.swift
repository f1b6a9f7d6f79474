#if canImport(Glibc)
    import Glibc
#endif

/// One `Value` for each thread, made on the thread's first use and released when the thread ends:
/// what the scheduler keeps per worker without a lock (a worker's number and statistics, its spare
/// buffers).
package final class PerThread<Value: AnyObject>: @unchecked Sendable {
    private var key = pthread_key_t()
    private let make: @Sendable () -> Value

    package init(_ make: @escaping @Sendable () -> Value) {
        self.make = make
        // The destructor cannot know `Value`; any class instance is released the same way.
        pthread_key_create(&key) { pointer in
            if let pointer { Unmanaged<AnyObject>.fromOpaque(pointer).release() }
        }
    }

    /// This thread's value.
    package var current: Value {
        if let pointer = pthread_getspecific(key) {
            return Unmanaged<Value>.fromOpaque(pointer).takeUnretainedValue()
        }
        let value = make()
        pthread_setspecific(key, Unmanaged.passRetained(value).toOpaque())
        return value
    }
}
