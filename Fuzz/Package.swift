// swift-tools-version: 6.1
// Coverage-guided fuzzing (libFuzzer) of what reads untrusted bytes: graph files (YAML and strict JSON,
// parsed and validated), the PNG, TIFF, JPEG, WebP, GIF and HEIF decoders, and `tessera serve`'s request
// parser. A package of its own, so that its sanitizer flags and libFuzzer's main never reach Tessera's own
// build. `make fuzz` at the top builds it with `-sanitize=fuzzer,address` and runs every target; `make
// test` runs each briefly.
import PackageDescription

let package = Package(
    name: "TesseraFuzz",
    dependencies: [
        .package(name: "Tessera", path: "..")
    ],
    targets: [
        // libFuzzer's driver, started by each target's main.
        .target(name: "FuzzDriver", path: "Sources/FuzzDriver"),
        // One binary for text: graph files as YAML or JSON, or plugin catalogs (TESSERA_FUZZ_INPUT).
        .executableTarget(
            name: "FuzzGraph", dependencies: ["FuzzDriver", .product(name: "Tessera", package: "Tessera")],
            path: "Sources/FuzzGraph"),
        // One binary for images: the format is recognized from the bytes, as `load` does.
        .executableTarget(
            name: "FuzzImage", dependencies: ["FuzzDriver", .product(name: "Tessera", package: "Tessera")],
            path: "Sources/FuzzImage"),
        // `tessera serve`'s request head and WebSocket frame parsers: their two files are linked into this
        // target (they stand alone), so it builds without the rest of Tessera.
        .executableTarget(name: "FuzzServe", dependencies: ["FuzzDriver"], path: "Sources/FuzzServe"),
    ],
    swiftLanguageModes: [.v6]
)
