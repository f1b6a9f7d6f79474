import Foundation

/// The little of RFC 6455 the preview needs: the handshake's accept key, text frames to the page, and the
/// client's frames read with a bound (the page sends none but close, ping and pong).
enum WebSocket {
    /// The most a client frame may carry; the page sends none larger.
    static let maximumPayload = 4096

    /// `Sec-WebSocket-Accept` for a client's `Sec-WebSocket-Key`: base64 of SHA-1 of the key and the
    /// protocol's GUID.
    static func acceptKey(for key: String) -> String {
        Data(SHA1.hash(Array((key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").utf8))).base64EncodedString()
    }

    /// A key is the base64 of 16 bytes.
    static func isValidKey(_ key: String) -> Bool { Data(base64Encoded: key)?.count == 16 }

    /// An unmasked frame from the server.
    static func frame(opcode: UInt8, payload: [UInt8]) -> [UInt8] {
        var bytes: [UInt8] = [0x80 | opcode]
        switch payload.count {
        case ..<126: bytes.append(UInt8(payload.count))
        case ..<65536: bytes += [126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        default:
            bytes.append(127)
            for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8((payload.count >> shift) & 0xFF)) }
        }
        return bytes + payload
    }

    /// A frame from the client: its opcode and unmasked payload.
    struct ClientFrame: Equatable {
        var opcode: UInt8
        var payload: [UInt8]
    }

    /// The first complete frame in `bytes` and its length, nil while more bytes are needed. Throws for an
    /// unmasked frame (clients must mask) or one over ``maximumPayload``.
    static func clientFrame(in bytes: [UInt8]) throws(RequestError) -> (frame: ClientFrame, length: Int)? {
        guard bytes.count >= 2 else { return nil }
        guard bytes[1] & 0x80 != 0 else { throw RequestError(400, "a client's WebSocket frame must be masked") }
        var length = Int(bytes[1] & 0x7F)
        var offset = 2
        if length == 126 {
            guard bytes.count >= 4 else { return nil }
            length = Int(bytes[2]) << 8 | Int(bytes[3])
            offset = 4
        } else if length == 127 {
            guard bytes.count >= 10 else { return nil }
            guard bytes[2..<6].allSatisfy({ $0 == 0 }) else { throw RequestError(413, "the frame is too large") }
            length = bytes[6..<10].reduce(0) { $0 << 8 | Int($1) }
            offset = 10
        }
        guard length <= maximumPayload else { throw RequestError(413, "the frame is too large") }
        guard bytes.count >= offset + 4 + length else { return nil }
        let mask = Array(bytes[offset..<(offset + 4)])
        let payload = (0..<length).map { bytes[offset + 4 + $0] ^ mask[$0 % 4] }
        return (ClientFrame(opcode: bytes[0] & 0x0F, payload: payload), offset + 4 + length)
    }
}

/// SHA-1 (FIPS 180-4), for the WebSocket handshake only: Foundation on Linux has no digest, and the
/// accept key is not a secret.
enum SHA1 {
    static func hash(_ message: [UInt8]) -> [UInt8] {
        var h: [UInt32] = [0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476, 0xC3D2_E1F0]
        var bytes = message
        let bitLength = UInt64(message.count) &* 8
        bytes.append(0x80)
        while bytes.count % 64 != 56 { bytes.append(0) }
        for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8((bitLength >> UInt64(shift)) & 0xFF)) }
        var w = [UInt32](repeating: 0, count: 80)
        for chunk in stride(from: 0, to: bytes.count, by: 64) {
            for i in 0..<16 {
                let j = chunk + i * 4
                w[i] =
                    UInt32(bytes[j]) << 24 | UInt32(bytes[j + 1]) << 16 | UInt32(bytes[j + 2]) << 8
                    | UInt32(bytes[j + 3])
            }
            for i in 16..<80 { w[i] = rotate(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1) }
            var (a, b, c, d, e) = (h[0], h[1], h[2], h[3], h[4])
            for i in 0..<80 {
                let (f, k): (UInt32, UInt32) =
                    switch i {
                    case 0..<20: ((b & c) | (~b & d), 0x5A82_7999)
                    case 20..<40: (b ^ c ^ d, 0x6ED9_EBA1)
                    case 40..<60: ((b & c) | (b & d) | (c & d), 0x8F1B_BCDC)
                    default: (b ^ c ^ d, 0xCA62_C1D6)
                    }
                let temp = rotate(a, 5) &+ f &+ e &+ k &+ w[i]
                (e, d, c, b, a) = (d, c, rotate(b, 30), a, temp)
            }
            h[0] &+= a
            h[1] &+= b
            h[2] &+= c
            h[3] &+= d
            h[4] &+= e
        }
        return h.flatMap { word in [24, 16, 8, 0].map { UInt8((word >> UInt32($0)) & 0xFF) } }
    }

    private static func rotate(_ value: UInt32, _ count: UInt32) -> UInt32 { value << count | value >> (32 - count) }
}
