import Dispatch
import Synchronization
import TesseraCore

extension Jobs {
    /// Jobs spread over up to `threads` Dispatch workers, each taking the next index until none is left.
    package static func workers(_ threads: Int) -> Jobs {
        Jobs { count, body in
            let workers = Swift.min(threads, count)
            guard workers > 1 else {
                for index in 0..<count { body(index) }
                return
            }
            let next = Atomic<Int>(0)
            DispatchQueue.concurrentPerform(iterations: workers) { _ in
                while true {
                    let index = next.add(1, ordering: .relaxed).oldValue
                    if index >= count { break }
                    body(index)
                }
            }
        }
    }
}
