import FuzzDriver

/// `tessera serve`'s request parser (Sources/TesseraServe/RequestHead.swift and WebSocket.swift, linked
/// here): the bytes arrive in chunks whose sizes the input's first byte picks, as a socket would deliver
/// them; the head is found, parsed, and what follows it read as WebSocket frames. A refusal is the expected
/// outcome; a crash, a sanitizer report, a limit not kept or a scan that is not linear is a finding.
func fuzzRequest(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data, size > 0 else { return 0 }
    let chunk = Int(data[0] % 64) + 1
    let bytes = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    var scanner = RequestHead.Scanner()
    var received: [UInt8] = []
    var offset = 0
    var end: Int?
    do {
        while end == nil, offset < bytes.count {
            received += bytes[offset..<min(bytes.count, offset + chunk)]
            offset += chunk
            end = try scanner.end(in: received)
        }
    } catch {
        precondition([400, 414, 431].contains(error.status), "a scan refuses with 400, 414 or 431")
        return 0
    }
    guard let end else {
        precondition(received.count <= RequestHead.maximumHead, "an unfinished head stays within the limit")
        return 0
    }
    precondition(end <= RequestHead.maximumHead + chunk, "a head is found within a chunk of the limit")
    do {
        let head = try RequestHead(parsing: received[0..<end])
        precondition(head.path.hasPrefix("/") && head.contentLength <= RequestHead.maximumBody)
        precondition(head.fields.count <= RequestHead.maximumFields)
        _ = head.cookie("tessera-serve-1")
    } catch {
        precondition([400, 413, 414, 431, 501, 505].contains(error.status), "status \(error.status)")
    }
    var frames = Array(bytes[min(bytes.count, end)...])
    while let (frame, length) = try? WebSocket.clientFrame(in: frames) {
        precondition(frame.payload.count <= WebSocket.maximumPayload && length <= frames.count)
        frames.removeFirst(length)
    }
    return 0
}

runFuzzer(fuzzRequest)
