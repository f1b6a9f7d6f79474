// swift-tools-version: 6.1
import PackageDescription

// A Tessera plugin in Swift: `swift build -c release` makes .build/release/libvignette.so; `swift test`
// checks its nodes with the node verifier.
let package = Package(
    name: "Vignette",
    products: [
        // A dynamic library: the plugin file. It holds its own copy of the SDK's Swift modules.
        .library(name: "vignette", type: .dynamic, targets: ["Vignette"])
    ],
    dependencies: [
        // The Tessera repository this folder sits in; a plugin elsewhere names its own copy's path.
        .package(name: "Tessera", path: "../..")
    ],
    targets: [
        .target(name: "Vignette", dependencies: [.product(name: "TesseraPluginSDK", package: "Tessera")]),
        // `swift test`: the nodes through the node verifier every built-in passes (TesseraTesting).
        .testTarget(
            name: "VignetteTests",
            dependencies: ["Vignette", .product(name: "TesseraTesting", package: "Tessera")]),
    ],
    swiftLanguageModes: [.v6]
)
