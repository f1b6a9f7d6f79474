// swift-tools-version: 6.1
import Foundation
import PackageDescription

// The Vision plugin: faces and people through MediaPipe's models on OpenVINO's C API, barcodes through
// zxing-cpp. `make` fetches the pinned runtime into runtime/ (Scripts/fetch-runtime.sh), installs
// libzxing-dev, builds .build/release/libvision.so and copies it here as libvision.so, which finds
// runtime/lib and runtime/models beside it.
let here = URL(fileURLWithPath: #filePath).deletingLastPathComponent().path
let runtime = here + "/runtime"

let package = Package(
    name: "Vision",
    products: [
        .library(name: "vision", type: .dynamic, targets: ["Vision"])
    ],
    dependencies: [
        .package(name: "Tessera", path: "../..")
    ],
    targets: [
        // OpenVINO's C headers and library, from the runtime folder `make` fills.
        .systemLibrary(name: "COpenVINO", path: "Sources/COpenVINO"),
        // zxing-cpp 1.4 (Debian's libzxing-dev) for barcodes, through a small C++ file with a C face.
        .systemLibrary(name: "CZXing", pkgConfig: "zxing", providers: [.apt(["libzxing-dev"])]),
        .target(name: "ZXingShim", dependencies: ["CZXing"]),
        .target(
            name: "Vision",
            dependencies: ["COpenVINO", "ZXingShim", .product(name: "TesseraPluginSDK", package: "Tessera")],
            swiftSettings: [.unsafeFlags(["-Xcc", "-I\(runtime)/include"])],
            linkerSettings: [
                // The copy beside runtime/ finds the libraries from where it is; the build's own copy by path.
                .unsafeFlags([
                    "-L\(runtime)/lib", "-Xlinker", "-rpath", "-Xlinker", "$ORIGIN/runtime/lib", "-Xlinker", "-rpath",
                    "-Xlinker", "\(runtime)/lib",
                ])
            ]),
    ],
    swiftLanguageModes: [.v6],
    cxxLanguageStandard: .cxx17
)
