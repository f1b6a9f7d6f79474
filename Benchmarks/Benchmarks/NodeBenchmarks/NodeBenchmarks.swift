import Benchmark
import Foundation
import Tessera

// One benchmark per built-in node: a graph that loads the 4K RGB fixture (an uncompressed TIFF), runs
// the node and saves an uncompressed TIFF, through the library API as an embedding program would.
// `load -> save` is the baseline: a node's own cost is its time minus the baseline's.

/// A benchmark's graph: `photo` loads the 4K fixture, `nodes` define `result`, and `out` saves it.
struct Job {
    var name: String
    /// The ops this job needs; it is skipped while the catalog lacks one (nodes still being written).
    var ops: [String]
    /// YAML lines of the nodes between the loads and the save, defining `result`.
    var nodes: String
    /// Whether the graph also loads the 4K gray mask as `mask`.
    var readsMask = false
    /// The node the save reads.
    var saves = "result"
    /// The saved file's extension: `json` for contours.
    var format = "tif"
    var threads = RunOptions.cores

    func graphText(output: String) -> String {
        var lines = ["version: 1", "nodes:", "  photo: { op: load, path: \(Fixture.photo) }"]
        if readsMask { lines.append("  mask: { op: load, path: \(Fixture.mask) }") }
        lines += nodes.split(separator: "\n").map { "  " + $0 }
        // 8-bit always: a node whose output is Float32 (normalize) would otherwise write 4x the bytes.
        lines.append(
            format == "tif"
                ? "  out: { op: save, input: \(saves), path: \(output).tif, depth: 8, compression: none }"
                : "  out: { op: save, input: \(saves), path: \(output).\(format) }")
        return lines.joined(separator: "\n") + "\n"
    }
}

let jobs: [Job] = [
    Job(name: "load-save (baseline)", ops: [], nodes: "", saves: "photo"),
    Job(
        name: "constant-save", ops: ["constant"],
        nodes: "result: { op: constant, like: photo, color: [0.2, 0.4, 0.6, 1] }"),
    Job(
        name: "colorMatrix", ops: ["colorMatrix"],
        nodes:
            "result: { op: colorMatrix, input: photo, r: [0.5, 0.3, 0.2, 0], g: [0.2, 0.6, 0.2, 0], b: [0.1, 0.2, 0.7, 0] }"
    ),
    Job(name: "contrast", ops: ["contrast"], nodes: "result: { op: contrast, input: photo, amount: 1.5 }"),
    Job(name: "grayscale", ops: ["grayscale"], nodes: "result: { op: grayscale, input: photo }"),
    Job(name: "normalize", ops: ["normalize"], nodes: "result: { op: normalize, input: photo }"),
    Job(
        name: "blendWithMask", ops: ["blendWithMask", "constant"],
        nodes: """
            black: { op: constant, like: photo, color: [0, 0, 0, 1] }
            result: { op: blendWithMask, input: photo, background: black, mask: mask }
            """, readsMask: true),
    Job(
        name: "composite", ops: ["composite", "constant"],
        nodes: """
            veil: { op: constant, like: photo, color: [1, 1, 1, 0.5] }
            result: { op: composite, input: veil, background: photo }
            """),
    Job(
        name: "crop", ops: ["crop"],
        nodes: "result: { op: crop, input: photo, rect: [100, 100, \(Fixture.width - 200), \(Fixture.height - 200)] }"),
    Job(
        name: "gaussianBlur sigma 2", ops: ["gaussianBlur"],
        nodes: "result: { op: gaussianBlur, input: photo, sigma: 2 }"),
    Job(
        name: "gaussianBlur sigma 20", ops: ["gaussianBlur"],
        nodes: "result: { op: gaussianBlur, input: photo, sigma: 20 }"),
    Job(
        name: "gaussianBlur sigma 20, 1 thread", ops: ["gaussianBlur"],
        nodes: "result: { op: gaussianBlur, input: photo, sigma: 20 }", threads: 1),
    Job(name: "resize factor 0.5", ops: ["resize"], nodes: "result: { op: resize, input: photo, factor: 0.5 }"),
    Job(name: "resize factor 2", ops: ["resize"], nodes: "result: { op: resize, input: photo, factor: 2 }"),
    Job(
        name: "resize to a 240 px thumbnail", ops: ["resize"],
        nodes: "result: { op: resize, input: photo, width: 240 }"),
    // The analysis nodes write a 64x64 heat map or a JSON file: their time is reading the frame and
    // the analysis.
    Job(
        name: "saliency attention", ops: ["saliency"],
        nodes: "result: { op: saliency, input: photo, kind: attention }"),
    Job(
        name: "saliency objectness", ops: ["saliency"],
        nodes: "result: { op: saliency, input: photo, kind: objectness }"),
    Job(
        name: "detectContours (512)", ops: ["detectContours"],
        nodes: "result: { op: detectContours, input: photo, epsilon: 0.002 }", format: "json"),
    Job(
        name: "detectContours (full resolution)", ops: ["detectContours"],
        nodes: "result: { op: detectContours, input: photo, maximumImageDimension: 3840, epsilon: 0.002 }",
        format: "json"),
    Job(
        name: "detectContours (tutorial sweep)", ops: ["detectContours"],
        nodes: """
            result: { op: detectContours, input: photo, contrastPivotSweep: [0.2, 0.7, 0.1], \
            contrastAdjustmentSweep: [0.5, 3.0, 0.2], iouThreshold: 0.9, epsilon: 0.01 }
            """, format: "json"),
    Job(
        name: "drawContours", ops: ["detectContours", "drawContours"],
        nodes: """
            edges: { op: detectContours, input: photo }
            result: { op: drawContours, contours: edges, input: photo, color: [1, 0, 0, 1], lineWidth: 2 }
            """),
]

/// Frame pixels processed per second of wall time: the same 4K frame for every job, so the figures
/// compare directly (the built-in `throughput` counts whole runs per second, too coarse below 1/s).
let pixelRate = BenchmarkMetric.custom("pixels/s (4K frame)", polarity: .prefersLarger)

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .peakMemoryResident, .cpuTotal, pixelRate],
        timeUnits: .milliseconds,
        units: [.peakMemoryResident: .mega],
        // One untimed run warms the page cache and the allocator; a few timed runs are enough for
        // runs of a fraction of a second on 2 shared cores.
        warmupIterations: 1,
        maxDuration: .seconds(3),
        maxIterations: 5
    )
    Benchmark.setup = { try Fixture.prepare() }

    let catalog = Catalog.builtin()
    for job in jobs where job.ops.allSatisfy({ catalog.declaration(op: $0) != nil }) {
        let fileName = job.name.filter { $0.isLetter || $0.isNumber }
        Benchmark(job.name) { benchmark in
            let graph = try Graph.parse(
                job.graphText(output: Fixture.output(fileName)), file: "\(fileName).yaml", baseFolder: Fixture.folder,
                catalog: catalog)
            let options = RunOptions(threads: job.threads)
            benchmark.startMeasurement()
            let start = ContinuousClock.now
            try graph.run(options: options)
            let elapsed = (ContinuousClock.now - start) / .seconds(1)
            benchmark.stopMeasurement()
            benchmark.measurement(pixelRate, Int(Double(Fixture.pixels) / elapsed))
        }
    }
}
