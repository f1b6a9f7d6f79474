import Foundation
import Tessera

#if canImport(Glibc)
    import Glibc
#endif

/// The preview page's HTTP server: the page, its state as JSON, the thumbnails, a WebSocket that
/// announces each new render, and the requests that apply or save the page's controls.
///
///     GET  /?token=TOKEN          the page (sets the token's cookie)
///     GET  /api/state             PreviewState as JSON
///     GET  /thumbs/VERSION/N.png  thumbnail N of render VERSION (404 once replaced)
///     GET  /events                WebSocket: the version of each new render, as text
///     POST /api/overrides         {"node.parameter": "value", ...}: the page's --set overrides
///     POST /api/save              writes the overrides into the graph file
///     POST /api/open              {"graph": "other.yaml"}: serve another graph of the folder
///
/// It answers its user only, whatever page their browser has open (Jupyter's rules, and more):
///
/// - **Host**: every request must name the server as the browser reached it, a loopback name with the
///   port (`127.0.0.1:PORT`, `localhost:PORT`, `[::1]:PORT`, or the `--host` address): a DNS-rebinding
///   page, whose name resolves to 127.0.0.1, sends its own name and is refused.
/// - **Origin**: when a browser sends one (on every POST and WebSocket), it must be this server's; the
///   WebSocket must send one. `Sec-Fetch-Site`, when sent, must be `same-origin` (or `none`, a typed
///   address), except for a page opened by a link: a page on another port of this machine is same-site
///   but not same-origin, and its `<img>` tags send no Origin.
/// - **Token**: a random token, printed in the page's address (`/?token=...`), then kept in an HttpOnly,
///   SameSite=Strict cookie named for the port and sent by the page in `X-Tessera-Token`.
/// - **Limits**: a request's head is at most 16 KB (its line 8 KB), its body 64 KB, and all of it must
///   arrive within 10 s; at most 32 connections at once; every response closes its connection.
///
/// Every refusal is a plain-text line naming what is wrong; none can stop the server.
public final class PreviewServer: @unchecked Sendable {
    /// Seconds a request (head and body) may take to arrive, and a response to be taken.
    static let requestSeconds = 10.0
    static let maximumConnections = 32

    let session: PreviewSession
    /// The address listened on (IPv4).
    public let host: String
    /// What the page's address carries and every request must show.
    public let token: String
    private let requestedPort: UInt16
    private let listener = Locked<Int32>(-1)
    private let connections = Locked(0)
    private let stopping = Locked(false)
    private var port: UInt16 = 0

    /// A server for `session` on `host` (an IPv4 address; 127.0.0.1 keeps it to this machine) and
    /// `port` (0: any free one). `token` is made at random unless given (tests give one).
    public init(session: PreviewSession, host: String, port: UInt16, token: String? = nil) {
        self.session = session
        self.host = host
        requestedPort = port
        self.token = token ?? Self.randomToken()
    }

    /// 32 random bytes as hex, from the system's generator (getrandom).
    static func randomToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }

    /// The address to open: the page with its token.
    public var url: String {
        let shown = host == "0.0.0.0" ? "127.0.0.1" : host
        return "http://\(shown):\(port)/?token=\(token)"
    }

    /// Listens and starts accepting on a thread of its own; returns the port listened on.
    public func start() throws -> UInt16 {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = requestedPort.bigEndian
        guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else {
            throw ServeError(status: 500, "--host must be an IPv4 address, not '\(host)'")
        }
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard socket >= 0 else { throw ServeError(status: 500, "cannot make a socket: \(Self.errorText())") }
        var yes: Int32 = 1
        setsockopt(socket, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(socket, 64) == 0 else {
            let reason = Self.errorText()
            close(socket)
            throw ServeError(status: 500, reason)
        }
        var actual = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) }
        }
        port = UInt16(bigEndian: actual.sin_port)
        listener.withLock { $0 = socket }
        let thread = Thread { [self] in acceptLoop(socket) }
        thread.name = "tessera serve: accept"
        thread.start()
        return port
    }

    /// Stops accepting; connections under way end within their deadline, WebSockets at once.
    public func stop() {
        stopping.withLock { $0 = true }
        let socket = listener.withLock { socket in
            defer { socket = -1 }
            return socket
        }
        if socket >= 0 {
            // Wakes the thread blocked in accept, which then closes it.
            shutdown(socket, Int32(SHUT_RDWR))
        }
    }

    private var isStopping: Bool { stopping.withLock { $0 } }

    private func acceptLoop(_ socket: Int32) {
        defer { close(socket) }
        while !isStopping {
            let client = accept(socket, nil, nil)
            if client < 0 {
                if errno == EINTR || errno == ECONNABORTED { continue }
                if isStopping { return }
                usleep(10_000)  // out of descriptors, say: try again shortly
                continue
            }
            _ = fcntl(client, F_SETFD, FD_CLOEXEC)
            let admitted = connections.withLock { count in
                guard count < Self.maximumConnections else { return false }
                count += 1
                return true
            }
            guard admitted else {
                let connection = Connection(socket: client, deadline: Date().addingTimeInterval(1))
                connection.send(Response.text("too many connections; try again\n", status: 503))
                connection.close(draining: false)
                continue
            }
            let thread = Thread { [self] in
                defer { connections.withLock { $0 -= 1 } }
                let connection = Connection(
                    socket: client, deadline: Date().addingTimeInterval(Self.requestSeconds))
                defer { connection.close() }
                handle(connection)
            }
            thread.name = "tessera serve: connection"
            thread.start()
        }
    }

    // MARK: One request

    private func handle(_ connection: Connection) {
        let head: RequestHead
        let body: [UInt8]
        do {
            (head, body) = try connection.readRequest()
        } catch {
            connection.send(Response.text(error.message + "\n", status: error.status))
            return
        }
        do {
            let viaQuery = try authorize(head)
            if head.path == "/events" {
                guard head.method == "GET" else { throw RequestError(405, "\(head.method) is not allowed on /events") }
                try webSocket(head, connection)
                return
            }
            var response = try route(head, body: body)
            if viaQuery {
                // The page keeps working through the cookie, also after a reload of the address without it.
                response.headers.append(
                    ("Set-Cookie", "\(cookieName)=\(token); Path=/; HttpOnly; SameSite=Strict"))
            }
            connection.send(response)
        } catch let error as RequestError {
            connection.send(Response.text(error.message + "\n", status: error.status))
        } catch let error as ServeError {
            connection.send(Response.text(error.description + "\n", status: error.status))
        } catch {
            connection.send(Response.text("\(error)\n", status: 500))
        }
    }

    var cookieName: String { "tessera-serve-\(port)" }

    /// The names the browser may call this server by, each with the port.
    var allowedHosts: Set<String> {
        var names = ["127.0.0.1", "localhost", "[::1]"]
        if host != "0.0.0.0", !names.contains(host) { names.append(host) }
        return Set(names.map { "\($0):\(port)" })
    }

    /// Checks Host, Origin, Sec-Fetch-Site and the token; returns whether the token came in the query
    /// (so the response sets its cookie).
    func authorize(_ head: RequestHead) throws(RequestError) -> Bool {
        let allowed = allowedHosts
        guard let hostField = head.field("host") else { throw RequestError(400, "the request has no Host") }
        guard allowed.contains(hostField.lowercased()) else {
            throw RequestError(
                403, "this server answers to \(allowed.sorted().joined(separator: ", ")), not to Host '\(hostField)'")
        }
        if let origin = head.field("origin") {
            guard origin.lowercased().hasPrefix("http://"), allowed.contains(String(origin.lowercased().dropFirst(7)))
            else { throw RequestError(403, "requests from pages of '\(origin)' are refused") }
        } else if head.path == "/events" {
            throw RequestError(403, "a WebSocket must come from the page (it sends no Origin)")
        }
        if let site = head.field("sec-fetch-site"), site != "same-origin", site != "none" {
            let isNavigation =
                head.method == "GET" && head.field("sec-fetch-mode") == "navigate" && head.path == "/"
            guard isNavigation else { throw RequestError(403, "requests from other sites' pages are refused") }
        }
        let given = head.query["token"] ?? head.field("x-tessera-token") ?? head.cookie(cookieName)
        guard let given, Self.equalInConstantTime(given, token) else {
            throw RequestError(
                403,
                given == nil
                    ? "this page needs the token tessera serve printed: open the address it printed "
                        + "(http://HOST:\(port)/?token=...)"
                    : "the token is not this server's: open the address tessera serve printed")
        }
        return head.query["token"] != nil
    }

    static func equalInConstantTime(_ a: String, _ b: String) -> Bool {
        let (x, y) = (Array(a.utf8), Array(b.utf8))
        guard x.count == y.count else { return false }
        return zip(x, y).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }

    private func route(_ head: RequestHead, body: [UInt8]) throws -> Response {
        let path = head.path
        switch (head.method, path) {
        case ("GET", "/"), ("GET", "/index.html"):
            let nonce = Self.randomToken()
            var response = Response(
                status: 200, contentType: "text/html; charset=utf-8",
                body: Array(Page.html(token: token, nonce: nonce).utf8))
            response.headers.append(
                (
                    "Content-Security-Policy",
                    "default-src 'none'; script-src 'nonce-\(nonce)'; style-src 'unsafe-inline'; img-src 'self' data:; "
                        + "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"
                ))
            return response
        case ("GET", "/api/state"):
            return Response(status: 200, contentType: "application/json", body: Array(session.stateJSON()))
        case ("GET", _) where path.hasPrefix("/thumbs/"):
            let parts = path.dropFirst("/thumbs/".count).split(separator: "/")
            guard parts.count == 2, let version = Int(parts[0]), parts[1].hasSuffix(".png"),
                let index = Int(parts[1].dropLast(4))
            else { throw ServeError(status: 400, "a thumbnail's address is /thumbs/VERSION/N.png, not \(path)") }
            guard let png = session.thumbnail(version: version, index: index) else {
                throw ServeError(status: 404, "no thumbnail \(index) in render \(version) (now \(session.version))")
            }
            return Response(status: 200, contentType: "image/png", body: Array(png))
        case ("POST", "/api/overrides"):
            var overrides: [String: String] = [:]
            for (key, value) in try Self.jsonObject(body) {
                switch value {
                case let text as String: overrides[key] = text
                case let number as NSNumber: overrides[key] = number.stringValue
                default: throw ServeError(status: 400, "the override '\(key)' must be a string or a number")
                }
            }
            try session.setOverrides(overrides)
            return Response(status: 200, contentType: "application/json", body: Array(#"{"ok": true}"#.utf8))
        case ("POST", "/api/save"):
            let count = try session.writeOverrides()
            return Response(
                status: 200, contentType: "application/json", body: Array(#"{"ok": true, "written": \#(count)}"#.utf8))
        case ("POST", "/api/open"):
            guard let name = try Self.jsonObject(body)["graph"] as? String else {
                throw ServeError(status: 400, #"send {"graph": "NAME.yaml"}, a graph file of the served folder"#)
            }
            try session.open(graph: name)
            return Response(status: 200, contentType: "application/json", body: Array(#"{"ok": true}"#.utf8))
        case (_, "/"), (_, "/index.html"), (_, "/api/state"), (_, "/api/overrides"), (_, "/api/save"),
            (_, "/api/open"):
            throw ServeError(status: 405, "\(head.method) is not allowed on \(path)")
        default:
            throw ServeError(status: 404, "no such page: \(path)")
        }
    }

    /// A request's body as a JSON object.
    private static func jsonObject(_ body: [UInt8]) throws -> [String: Any] {
        guard let object = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] else {
            throw ServeError(status: 400, "the body must be a JSON object")
        }
        return object
    }

    // MARK: The WebSocket

    /// Upgrades the connection and sends the version of each new render until the page goes away (or the
    /// server stops). The page sends nothing but control frames; anything larger than a control frame
    /// ends the connection.
    private func webSocket(_ head: RequestHead, _ connection: Connection) throws {
        guard head.field("upgrade")?.lowercased() == "websocket",
            head.field("connection")?.lowercased().split(separator: ",").contains(where: {
                $0.trimmingCharacters(in: .whitespaces) == "upgrade"
            }) == true,
            head.field("sec-websocket-version") == "13", let key = head.field("sec-websocket-key"),
            WebSocket.isValidKey(key)
        else { throw RequestError(400, "/events is a WebSocket (version 13)") }
        var response = Response(status: 101, contentType: nil, body: [])
        response.headers = [
            ("Upgrade", "websocket"), ("Connection", "Upgrade"),
            ("Sec-WebSocket-Accept", WebSocket.acceptKey(for: key)),
        ]
        guard connection.send(response, closing: false) else { return }
        let versions = Locked<[Int]>([])
        let id = session.listen { version in versions.withLock { $0.append(version) } }
        defer { session.stopListening(id) }
        versions.withLock { $0.append(session.version) }
        var received: [UInt8] = []
        while !isStopping {
            for version in versions.withLock({ queue in
                defer { queue = [] }
                return queue
            }) {
                guard connection.write(WebSocket.frame(opcode: 1, payload: Array("\(version)".utf8))) else { return }
            }
            switch connection.waitForInput(milliseconds: 50) {
            case .closed: return
            case .timedOut: continue
            case .ready:
                guard let bytes = connection.receive(), !bytes.isEmpty else { return }
                received += bytes
            }
            while let (frame, length) = try WebSocket.clientFrame(in: received) {
                received.removeFirst(length)
                switch frame.opcode {
                case 8:
                    _ = connection.write(WebSocket.frame(opcode: 8, payload: Array(frame.payload.prefix(2))))
                    return
                case 9:
                    guard connection.write(WebSocket.frame(opcode: 10, payload: frame.payload)) else { return }
                default:
                    break
                }
            }
        }
        _ = connection.write(WebSocket.frame(opcode: 8, payload: [0x03, 0xE9]))  // 1001: going away
    }

    static func errorText() -> String { String(cString: strerror(errno)) }
}

/// What the server sends back.
struct Response {
    var status: Int
    var headers: [(String, String)]
    var body: [UInt8]

    init(status: Int, contentType: String?, body: [UInt8]) {
        self.status = status
        self.body = body
        headers = [
            ("Cache-Control", "no-store"), ("X-Content-Type-Options", "nosniff"), ("Referrer-Policy", "no-referrer"),
        ]
        if let contentType { headers.append(("Content-Type", contentType)) }
    }

    static func text(_ text: String, status: Int) -> Response {
        Response(status: status, contentType: "text/plain; charset=utf-8", body: Array(text.utf8))
    }

    static let phrases = [
        101: "Switching Protocols", 200: "OK", 400: "Bad Request", 403: "Forbidden", 404: "Not Found",
        405: "Method Not Allowed", 408: "Request Timeout", 411: "Length Required", 413: "Content Too Large",
        414: "URI Too Long", 422: "Unprocessable Content", 431: "Request Header Fields Too Large",
        500: "Internal Server Error", 501: "Not Implemented", 503: "Service Unavailable",
        505: "HTTP Version Not Supported",
    ]

    /// The bytes on the wire; every response but a WebSocket's closes its connection.
    var bytes: [UInt8] {
        var head = "HTTP/1.1 \(status) \(Self.phrases[status] ?? "Error")\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if status != 101 { head += "Content-Length: \(body.count)\r\nConnection: close\r\n" }
        return Array((head + "\r\n").utf8) + body
    }
}

/// One accepted connection: reads a request within its deadline, writes with a timeout.
final class Connection {
    let socket: Int32
    let deadline: Date
    private var isClosed = false

    init(socket: Int32, deadline: Date) {
        self.socket = socket
        self.deadline = deadline
        var timeout = timeval(tv_sec: Int(PreviewServer.requestSeconds), tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    enum Wait { case ready, timedOut, closed }

    /// Waits until bytes can be read, for at most `milliseconds`.
    func waitForInput(milliseconds: Int32) -> Wait {
        var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
        let result = poll(&descriptor, 1, milliseconds)
        if result < 0 { return errno == EINTR ? .timedOut : .closed }
        if result == 0 { return .timedOut }
        return descriptor.revents & Int16(POLLIN) != 0 ? .ready : .closed
    }

    /// The bytes available now (nil on error, empty at the end of the stream).
    func receive() -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
        guard count >= 0 else { return nil }
        return Array(buffer[0..<count])
    }

    /// Reads one request: its head (with ``RequestHead``'s limits) and its body, all before the deadline.
    func readRequest() throws(RequestError) -> (RequestHead, [UInt8]) {
        var bytes: [UInt8] = []
        var scanner = RequestHead.Scanner()
        var headEnd: Int?
        while headEnd == nil {
            try receiveMore(into: &bytes)
            headEnd = try scanner.end(in: bytes)
        }
        guard let headEnd else { throw RequestError(400, "no request") }
        let head = try RequestHead(parsing: bytes[0..<headEnd])
        if head.method == "POST", head.field("content-length") == nil {
            throw RequestError(411, "send the body with a Content-Length")
        }
        while bytes.count - headEnd < head.contentLength { try receiveMore(into: &bytes) }
        return (head, Array(bytes[headEnd..<min(bytes.count, headEnd + head.contentLength)]))
    }

    private func receiveMore(into bytes: inout [UInt8]) throws(RequestError) {
        let left = deadline.timeIntervalSinceNow
        guard left > 0 else {
            throw RequestError(408, "the request took over \(Int(PreviewServer.requestSeconds)) s to arrive")
        }
        switch waitForInput(milliseconds: Int32(min(left * 1000 + 1, 10_000))) {
        case .timedOut: return
        case .closed: throw RequestError(400, "the connection closed")
        case .ready:
            guard let more = receive(), !more.isEmpty else { throw RequestError(400, "the connection closed") }
            bytes += more
        }
    }

    /// Writes all of `bytes`; false when the peer is gone or does not read within the timeout.
    func write(_ bytes: [UInt8]) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes {
                Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return false }
            sent += count
        }
        return true
    }

    @discardableResult
    func send(_ response: Response, closing: Bool = true) -> Bool {
        let written = write(response.bytes)
        if closing { shutdown(socket, Int32(SHUT_WR)) }
        return written
    }

    /// Closes after reading what the peer still sends (up to 2 MB or 2 s): closing with unread bytes
    /// would reset the connection, and the peer could lose the response (a refusal sent before a body
    /// that is too large was read).
    /// `draining: false` closes at once (the accept thread refusing a connection must not wait on it).
    func close(draining: Bool = true) {
        guard !isClosed else { return }
        isClosed = true
        shutdown(socket, Int32(SHUT_WR))
        let until = Date().addingTimeInterval(draining ? 2 : 0)
        var drained = 0
        while drained < 2 << 20, until.timeIntervalSinceNow > 0,
            waitForInput(milliseconds: Int32(max(1, until.timeIntervalSinceNow * 1000))) == .ready,
            let bytes = receive(), !bytes.isEmpty
        {
            drained += bytes.count
        }
        Glibc.close(socket)
    }
}
