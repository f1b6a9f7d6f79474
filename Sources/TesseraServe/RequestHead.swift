// The head of an HTTP/1.1 request as `tessera serve` reads it: its own small parser, with limits on
// every length, because the server's requests come from any page the user's browser has open. (FlyingFox,
// which served before, read a request line of any length: one of 1 MB kept a thread busy for minutes.)
// This file stands alone (Foundation is not needed) so that the fuzz package compiles it too
// (Fuzz/Sources/FuzzServe links to it).

/// A request refused before it reaches a route: the HTTP status and a line saying why.
struct RequestError: Error, Equatable, CustomStringConvertible {
    var status: Int
    var message: String

    init(_ status: Int, _ message: String) {
        self.status = status
        self.message = message
    }

    var description: String { message }
}

/// A request's method, target and header fields, parsed from the bytes up to its blank line.
///
///     GET /api/state HTTP/1.1\r\n
///     Host: 127.0.0.1:8080\r\n
///     \r\n
///
/// Names of fields are lowercased; a field given twice keeps both, in order. Lines may end in CRLF or LF.
/// Anything outside RFC 9112's grammar for a request head is refused with status 400, a request line
/// longer than ``maximumLine`` with 414, a head longer than ``maximumHead`` or with more than
/// ``maximumFields`` fields with 431, a `Transfer-Encoding` with 501, and a body longer than
/// ``maximumBody`` with 413 (before it is read).
struct RequestHead: Equatable {
    static let maximumLine = 8 * 1024
    static let maximumHead = 16 * 1024
    static let maximumFields = 64
    static let maximumBody = 64 * 1024

    var method: String
    /// The request target as sent (`/thumbs/3/0.png?token=...`).
    var target: String
    /// The target up to `?`.
    var path: String
    /// The query's `name=value` pairs, percent-decoded (`+` is a plus, not a space).
    var query: [String: String]
    var fields: [Field]
    /// The length of the body that follows the head (0 without `Content-Length`).
    var contentLength: Int

    struct Field: Equatable {
        var name: String
        var value: String
    }

    /// The first value of the field `name` (lowercase).
    func field(_ name: String) -> String? { fields.first { $0.name == name }?.value }

    /// The cookie `name`'s value, from the `Cookie` fields.
    func cookie(_ name: String) -> String? {
        for field in fields where field.name == "cookie" {
            for pair in field.value.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                if parts.count == 2, Self.trimmed(parts[0]) == name { return Self.trimmed(parts[1]) }
            }
        }
        return nil
    }

    /// Finds where a head ends as its bytes arrive, scanning each byte once.
    struct Scanner {
        private var scanned = 0
        private var firstBreak: Int?

        /// The offset just past the head's blank line in `bytes` (the bytes received so far, the ones
        /// seen before first), or nil while more are needed. Throws as soon as the bytes cannot begin a
        /// request within the limits.
        mutating func end(in bytes: [UInt8]) throws(RequestError) -> Int? {
            if let first = bytes.first, !RequestHead.isTokenCharacter(first) {
                throw RequestError(400, "not an HTTP request")
            }
            // Back two bytes: a line break seen last time may begin the blank line.
            var index = max(0, scanned - 2)
            while index < bytes.count {
                if bytes[index] == 10 {
                    if firstBreak == nil {
                        firstBreak = index
                        if index > RequestHead.maximumLine { throw RequestError(414, RequestHead.tooLong) }
                    }
                    if index + 1 < bytes.count, bytes[index + 1] == 10 { return index + 2 }
                    if index + 2 < bytes.count, bytes[index + 1] == 13, bytes[index + 2] == 10 { return index + 3 }
                }
                index += 1
            }
            scanned = bytes.count
            if firstBreak == nil, bytes.count > RequestHead.maximumLine {
                throw RequestError(414, RequestHead.tooLong)
            }
            if bytes.count > RequestHead.maximumHead {
                throw RequestError(431, "the request's head is over \(RequestHead.maximumHead) bytes")
            }
            return nil
        }
    }

    private static let tooLong = "the request line is over \(maximumLine) bytes"

    /// Parses a complete head (the bytes up to and including its blank line).
    init(parsing bytes: ArraySlice<UInt8>) throws(RequestError) {
        guard bytes.count <= Self.maximumHead else {
            throw RequestError(431, "the request's head is over \(Self.maximumHead) bytes")
        }
        var lines: [ArraySlice<UInt8>] = []
        var start = bytes.startIndex
        for index in bytes.indices where bytes[index] == 10 {
            var line = bytes[start..<index]
            if line.last == 13 { line = line.dropLast() }
            lines.append(line)
            start = index + 1
        }
        guard start == bytes.endIndex, lines.count >= 2, lines.last?.isEmpty == true else {
            throw RequestError(400, "the request's head does not end in a blank line")
        }
        lines.removeLast()
        let requestLine = lines.removeFirst()
        guard requestLine.count <= Self.maximumLine else { throw RequestError(414, Self.tooLong) }

        // METHOD SP TARGET SP HTTP/1.x, single spaces.
        let parts = requestLine.split(separator: 32, omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw RequestError(400, "the request line is not METHOD TARGET HTTP/1.1") }
        guard !parts[0].isEmpty, parts[0].count <= 16, parts[0].allSatisfy(Self.isTokenCharacter) else {
            throw RequestError(400, "the request's method is not a token")
        }
        method = Self.text(parts[0])
        let version = Self.text(parts[2])
        guard version == "HTTP/1.1" || version == "HTTP/1.0" else {
            throw RequestError(505, "only HTTP/1.1 and HTTP/1.0 are served")
        }
        guard parts[1].first == 47, parts[1].allSatisfy({ $0 > 32 && $0 < 127 }) else {
            throw RequestError(400, "the request target must be a path starting with /")
        }
        target = Self.text(parts[1])
        let pieces = parts[1].split(separator: 63, maxSplits: 1, omittingEmptySubsequences: false)
        path = Self.text(pieces[0])
        var query: [String: String] = [:]
        if pieces.count == 2 {
            for pair in pieces[1].split(separator: 38) {
                let nameValue = pair.split(separator: 61, maxSplits: 1, omittingEmptySubsequences: false)
                guard let name = Self.percentDecoded(nameValue[0]),
                    let value = nameValue.count == 2 ? Self.percentDecoded(nameValue[1]) : ""
                else { throw RequestError(400, "the query has a bad percent escape") }
                if query[name] == nil { query[name] = value }
            }
        }
        self.query = query

        guard lines.count <= Self.maximumFields else {
            throw RequestError(431, "the request has over \(Self.maximumFields) header fields")
        }
        var fields: [Field] = []
        for line in lines {
            guard let colon = line.firstIndex(of: 58), colon > line.startIndex,
                line[line.startIndex..<colon].allSatisfy(Self.isTokenCharacter)
            else {
                // Also a line folded onto the one before (it starts with a space): obsolete and refused.
                throw RequestError(400, "a header line is not NAME: VALUE")
            }
            let value = line[(colon + 1)...]
            guard value.allSatisfy({ $0 == 9 || ($0 >= 32 && $0 != 127) }) else {
                throw RequestError(400, "a header value holds a control character")
            }
            fields.append(Field(name: Self.text(line[..<colon]).lowercased(), value: Self.trimmed(value)))
        }
        self.fields = fields

        for unique in ["host", "content-length", "origin", "transfer-encoding"]
        where fields.count(where: { $0.name == unique }) > 1 {
            throw RequestError(400, "the request has two \(unique) fields")
        }
        if fields.contains(where: { $0.name == "transfer-encoding" }) {
            throw RequestError(501, "a body must be sent with a Content-Length, not a Transfer-Encoding")
        }
        if let length = fields.first(where: { $0.name == "content-length" })?.value {
            guard !length.isEmpty, length.count <= 12, length.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }),
                let value = Int(length)
            else { throw RequestError(400, "the Content-Length is not a number") }
            guard value <= Self.maximumBody else {
                throw RequestError(413, "the body is \(value) bytes; at most \(Self.maximumBody)")
            }
            contentLength = value
        } else {
            contentLength = 0
        }
    }

    /// RFC 9110's `tchar`: what a method or a field name is made of.
    static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case 48...57, 65...90, 97...122: true
        case 33, 35, 36, 37, 38, 39, 42, 43, 45, 46, 94, 95, 96, 124, 126: true
        default: false
        }
    }

    private static func text(_ bytes: some Collection<UInt8>) -> String { String(decoding: bytes, as: UTF8.self) }

    private static func trimmed(_ bytes: some BidirectionalCollection<UInt8>) -> String {
        let isBlank: (UInt8) -> Bool = { $0 == 32 || $0 == 9 }
        guard let first = bytes.firstIndex(where: { !isBlank($0) }), let last = bytes.lastIndex(where: { !isBlank($0) })
        else { return "" }
        return text(bytes[first...last])
    }

    private static func trimmed(_ text: Substring) -> String { trimmed(Array(text.utf8)) }

    /// `%XX` decoded; nil for a `%` not followed by two hex digits or bytes that are not UTF-8.
    private static func percentDecoded(_ bytes: ArraySlice<UInt8>) -> String? {
        var result: [UInt8] = []
        var index = bytes.startIndex
        while index < bytes.endIndex {
            if bytes[index] == 37 {
                guard index + 2 < bytes.endIndex, let high = hexValue(bytes[index + 1]),
                    let low = hexValue(bytes[index + 2])
                else { return nil }
                result.append(high * 16 + low)
                index += 3
            } else {
                result.append(bytes[index])
                index += 1
            }
        }
        return String(validating: result, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 48...57: byte - 48
        case 65...70: byte - 55
        case 97...102: byte - 87
        default: nil
        }
    }
}
