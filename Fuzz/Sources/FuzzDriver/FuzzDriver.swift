import Foundation

/// libFuzzer's driver, which the `-sanitize=fuzzer` runtime provides.
@_silgen_name("LLVMFuzzerRunDriver")
func runDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ input: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

/// Runs libFuzzer with the process's arguments, calling `input` with each input it makes, and exits with
/// its status. SwiftPM gives every executable its own `main`, so a target starts libFuzzer itself
/// instead of linking libFuzzer's `main`.
public func runFuzzer(_ input: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> Never {
    var argc = CommandLine.argc
    var argv = CommandLine.unsafeArgv
    exit(runDriver(&argc, &argv, input))
}
