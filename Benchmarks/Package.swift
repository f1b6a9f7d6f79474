// swift-tools-version: 6.1
// Benchmarks for Tessera's nodes, in their own package so that the benchmark harness (and its malloc
// interposer) never becomes a dependency of Tessera itself. Run with `swift package benchmark` here, or
// `make bench` at the top.
import PackageDescription

let package = Package(
    name: "TesseraBenchmarks",
    dependencies: [
        // The parent package; `name:` keeps the product reference independent of the clone's folder name.
        .package(name: "Tessera", path: ".."),
        // The interposer trait alone: the default traits also pull in a runtime interposer this machine lacks.
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        .executableTarget(
            name: "NodeBenchmarks",
            dependencies: [
                .product(name: "Tessera", package: "Tessera"),
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/NodeBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        )
    ],
    swiftLanguageModes: [.v6]
)
