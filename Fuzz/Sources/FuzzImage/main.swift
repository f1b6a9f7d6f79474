import Foundation
import FuzzDriver
import Tessera

/// A folder of this process's own, for the one file each input is written to (the decoders read files).
let folder: String = {
    var template = Array((FileManager.default.temporaryDirectory.path + "/tessera-fuzz-XXXXXX").utf8CString)
    guard let made = mkdtemp(&template) else { fatalError("cannot make a temporary folder") }
    return String(cString: made)
}()

/// Limits small enough that each input decodes in milliseconds: what is fuzzed is the parsing and the
/// checks before allocating, not the time a legitimately large image takes.
let options = DecodeOptions(maxPixels: 1 << 22, maxMemory: 256 << 20)

/// Writes the input to a file and decodes it as `tessera info` and `load` do: the header, then every
/// pixel. Errors are the expected outcome; a crash, a sanitizer report or a leak is a finding.
func fuzzImage(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data else { return 0 }
    let path = folder + "/input"
    guard FileManager.default.createFile(atPath: path, contents: Data(bytes: data, count: size)) else { return 0 }
    _ = try? ImageFile.info(path: path, options: options)
    if let (_, image) = try? ImageFile.load(path: path, options: options) {
        _ = try? image.pixels()
    }
    return 0
}

runFuzzer(fuzzImage)
