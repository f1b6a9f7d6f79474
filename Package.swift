// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "Tessera",
    products: [
        .library(name: "Tessera", targets: ["Tessera"]),
        .executable(name: "tessera", targets: ["TesseraCLI"]),
        // What a plugin package depends on to write nodes in Swift (Plugins/Vignette).
        .library(name: "TesseraPluginSDK", targets: ["TesseraPluginSDK"]),
        // The node verifier, for the tests of built-in and plugin nodes alike (and `tessera verify`).
        .library(name: "TesseraTesting", targets: ["TesseraTesting"]),
        // The C API (Sources/CTessera/include/tessera.h) as a shared library; `make libtessera` names it
        // libtessera.so (SwiftPM calls it libTesseraC.so: the name tessera is the executable's).
        .library(name: "TesseraC", type: .dynamic, targets: ["TesseraC"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        // 5.x, not 6.x: 6.x stops at the first duplicate key, and graph validation reports them all.
        .package(url: "https://github.com/jpsim/Yams", from: "5.0.1"),
        // `swift package generate-documentation --target Tessera` (make api-docs): the embedding API's DocC.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // MARK: System libraries (headers and link flags from pkg-config)
        .systemLibrary(
            name: "CPNG", pkgConfig: "libpng",
            providers: [.apt(["libpng-dev"])]),
        .systemLibrary(
            name: "CTIFF", pkgConfig: "libtiff-4",
            providers: [.apt(["libtiff-dev"])]),
        .systemLibrary(
            name: "CJPEG", pkgConfig: "libjpeg",
            providers: [.apt(["libjpeg62-turbo-dev"])]),
        .systemLibrary(
            name: "CLCMS2", pkgConfig: "lcms2",
            providers: [.apt(["liblcms2-dev"])]),
        .systemLibrary(
            name: "CWebP", pkgConfig: "libwebpmux",
            providers: [.apt(["libwebp-dev"])]),
        .systemLibrary(
            name: "CGIF", pkgConfig: "libgif",
            providers: [.apt(["libgif-dev"])]),
        .systemLibrary(
            name: "CHEIF", pkgConfig: "libheif",
            providers: [.apt(["libheif-dev"])]),
        // libpng reports errors by longjmp and libjpeg by exit(): both are caught here, in C. WebP, GIF and
        // HEIF/AVIF decode whole images through the same shims (formats.c).
        .target(
            name: "CImageShims", dependencies: ["CPNG", "CTIFF", "CJPEG", "CWebP", "CGIF", "CHEIF"],
            // libwebpmux's pkg-config names libwebp but not the demuxer, which lives beside them; the PNG
            // writer deflates its image data with zlib itself (pngstream.c), which libpng-dev brings.
            linkerSettings: [.linkedLibrary("webpdemux"), .linkedLibrary("z")]),
        // The plugin ABI: the only types that cross between Tessera and a plugin shared library.
        .target(name: "CTesseraPlugin"),

        // Inner loops built for AVX2 and AVX-512 beside the SSE2 baseline, chosen at run time (the Swift
        // targets are built for the baseline): the same bits whichever runs.
        .target(name: "CTesseraSIMD"),

        // MARK: Core: regions, pixel buffers, images, values, the Node protocol and its declarations
        .target(name: "TesseraCore", dependencies: ["CTesseraSIMD"]),

        // MARK: Codecs
        .target(name: "TesseraIO", dependencies: ["TesseraCore", "CImageShims", "CTIFF", "CLCMS2"]),

        // MARK: Nodes (built-ins, one per file); they import neither the graph language nor the runner
        .target(name: "TesseraNodes", dependencies: ["TesseraCore", "TesseraIO", "CTesseraSIMD"]),

        // MARK: The engine, one role a module
        // The catalog: node declarations read once by reflection, and what derives from them (the
        // validator's types, `tessera nodes`, the JSON Schema, the docs).
        .target(name: "TesseraCatalog", dependencies: ["TesseraCore"]),
        // The plugin host: loading shared libraries through the C ABI, their nodes as declarations.
        .target(name: "TesseraPluginHost", dependencies: ["TesseraCore", "TesseraCatalog", "CTesseraPlugin"]),
        // The graph language: YAML and JSON graph files, chains, validation with places and fixes.
        .target(name: "TesseraGraph", dependencies: ["TesseraCore", "TesseraCatalog", "Yams"]),
        // The render plan and the scheduler: pixels, tiles, workers; nothing of graph files or plugins.
        .target(name: "TesseraScheduler", dependencies: ["TesseraCore"]),
        // The runner: a validated graph run (or prepared and run again) on the scheduler.
        .target(
            name: "TesseraRunner", dependencies: ["TesseraCore", "TesseraCatalog", "TesseraGraph", "TesseraScheduler"]),

        // MARK: The Swift plugin SDK: nodes written as built-ins, exported through the C plugin ABI
        .target(
            name: "TesseraPluginSDK",
            dependencies: ["TesseraCore", "TesseraCatalog", "TesseraPluginHost", "CTesseraPlugin"]),

        // MARK: The node verifier: no test framework in it, so any test runner (or the CLI) can use it
        .target(name: "TesseraTesting", dependencies: ["TesseraCore", "TesseraCatalog", "TesseraPluginHost"]),

        // MARK: Embedding API and command line
        .target(
            name: "Tessera",
            dependencies: [
                "TesseraCore", "TesseraIO", "TesseraNodes", "TesseraCatalog", "TesseraPluginHost", "TesseraGraph",
                "TesseraRunner",
            ]),
        // The executable's signal handlers: process-wide state, so the program's, never the library's.
        .target(name: "CTesseraSignals", dependencies: ["CImageShims"]),
        // `tessera serve`: the live preview page and its small HTTP and WebSocket server (its own, with a
        // limit on every length and time: the page's requests come from a browser that has other pages open),
        // apart from the library.
        .target(name: "TesseraServe", dependencies: ["Tessera"]),
        .executableTarget(
            name: "TesseraCLI",
            dependencies: [
                "Tessera", "TesseraTesting", "CTesseraSignals", "TesseraServe",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),

        // MARK: The C API: a header, and its implementation in Swift
        .target(name: "CTessera"),
        .target(name: "TesseraC", dependencies: ["Tessera", "CTessera"]),

        // MARK: Examples: a program embedding the engine (the tests run it)
        .executableTarget(name: "EmbeddingExample", dependencies: ["Tessera"], path: "Examples/Embedding"),

        // MARK: Tests
        .testTarget(name: "TesseraCoreTests", dependencies: ["TesseraCore", "CTesseraSIMD"]),
        .testTarget(
            name: "TesseraIOTests", dependencies: ["TesseraIO", "CImageShims", "CTIFF", "TesseraTesting"],
            exclude: ["Fixtures"]),
        .testTarget(
            name: "TesseraNodesTests",
            dependencies: [
                "TesseraNodes", "TesseraCatalog", "TesseraGraph", "TesseraRunner", "TesseraPluginHost", "TesseraIO",
                "TesseraTesting",
            ],
            exclude: ["Fixtures"]),
        .testTarget(
            name: "TesseraEngineTests",
            dependencies: ["Tessera", "TesseraCatalog", "TesseraGraph", "TesseraPluginHost", "TesseraRunner"],
            exclude: ["SchemaRejects", "Fixtures"]),
        .testTarget(
            name: "TesseraCLITests", dependencies: ["TesseraCLI", "EmbeddingExample", "TesseraIO", "TesseraServe"],
            exclude: ["Plugins", "CAPI"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
