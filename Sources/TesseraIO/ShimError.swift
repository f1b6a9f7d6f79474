/// The text of a C error buffer filled by the shims.
struct ShimError {
    static let capacity = 1024
    var buffer = [CChar](repeating: 0, count: ShimError.capacity)

    var message: String {
        buffer.withUnsafeBufferPointer { pointer in pointer.baseAddress.map { String(cString: $0) } ?? "" }
    }
}
