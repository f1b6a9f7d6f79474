import Benchmark
import Tessera

let benchmarks: @Sendable () -> Void = {
    Benchmark("noop") { _ in }
}
