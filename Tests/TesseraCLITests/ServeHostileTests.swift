import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `tessera serve` under hostile requests, sent as raw bytes on a socket (a browser or URLSession would
/// correct most of them): each is refused with its status and a line saying why, quickly, and the server
/// goes on answering its own page. Before, the server had no token, no Host or Origin check and no limit
/// on a request's head: every row but the malformed ones was answered, and the 1 MB line took minutes.
@Suite(.serialized)
struct ServeHostileTests {
    struct Row: CustomTestStringConvertible, Sendable {
        var name: String
        /// The request; `{PORT}` and `{TOKEN}` are replaced by the server's.
        var request: String
        var status: Int
        var says: String
        var testDescription: String { name }
    }

    static let good = "Host: 127.0.0.1:{PORT}\r\nX-Tessera-Token: {TOKEN}\r\n"

    static let rows: [Row] = [
        Row(
            name: "no token", request: "GET /api/state HTTP/1.1\r\nHost: 127.0.0.1:{PORT}\r\n\r\n", status: 403,
            says: "needs the token tessera serve printed"),
        Row(
            name: "a wrong token",
            request: "GET /api/state HTTP/1.1\r\nHost: 127.0.0.1:{PORT}\r\nX-Tessera-Token: 00\r\n\r\n", status: 403,
            says: "not this server's"),
        Row(
            name: "a wrong token in the cookie",
            request: "GET /api/state HTTP/1.1\r\nHost: 127.0.0.1:{PORT}\r\nCookie: tessera-serve-{PORT}=ab\r\n\r\n",
            status: 403, says: "not this server's"),
        Row(
            name: "DNS rebinding: another name for 127.0.0.1",
            request: "GET /api/state HTTP/1.1\r\nHost: evil.example:{PORT}\r\nX-Tessera-Token: {TOKEN}\r\n\r\n",
            status: 403, says: "not to Host 'evil.example:"),
        Row(
            name: "Host without the port",
            request: "GET /api/state HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Tessera-Token: {TOKEN}\r\n\r\n", status: 403,
            says: "not to Host '127.0.0.1'"),
        Row(
            name: "no Host", request: "GET /api/state HTTP/1.1\r\nX-Tessera-Token: {TOKEN}\r\n\r\n", status: 400,
            says: "no Host"),
        Row(
            name: "two Hosts", request: "GET /api/state HTTP/1.1\r\n\(good)Host: evil.example:{PORT}\r\n\r\n",
            status: 400, says: "two host fields"),
        Row(
            name: "a page of another site",
            request: "POST /api/save HTTP/1.1\r\n\(good)Origin: http://evil.example\r\nContent-Length: 2\r\n\r\n{}",
            status: 403, says: "pages of 'http://evil.example' are refused"),
        Row(
            name: "a page on another port of this machine",
            request: "POST /api/save HTTP/1.1\r\n\(good)Origin: http://127.0.0.1:1\r\nContent-Length: 2\r\n\r\n{}",
            status: 403, says: "are refused"),
        Row(
            name: "a sandboxed page (Origin null)",
            request: "POST /api/save HTTP/1.1\r\n\(good)Origin: null\r\nContent-Length: 2\r\n\r\n{}", status: 403,
            says: "pages of 'null' are refused"),
        Row(
            name: "an image tag of a same-site page",
            request: "GET /api/state HTTP/1.1\r\n\(good)Sec-Fetch-Site: same-site\r\nSec-Fetch-Mode: no-cors\r\n\r\n",
            status: 403, says: "other sites' pages"),
        Row(
            name: "a WebSocket from another site",
            request:
                "GET /events HTTP/1.1\r\n\(good)Origin: http://evil.example\r\nUpgrade: websocket\r\n"
                + "Connection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n",
            status: 403, says: "are refused"),
        Row(
            name: "a WebSocket without Origin",
            request:
                "GET /events HTTP/1.1\r\n\(good)Upgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n",
            status: 403, says: "sends no Origin"),
        Row(
            name: "a 1 MB request line",
            request: "GET /" + String(repeating: "a", count: 1 << 20) + " HTTP/1.1\r\n\(good)\r\n", status: 414,
            says: "over 8192 bytes"),
        Row(
            name: "100 KB of header",
            request: "GET / HTTP/1.1\r\n\(good)X-Big: " + String(repeating: "b", count: 100_000),
            status: 431, says: "over 16384 bytes"),
        Row(
            name: "100 header fields",
            request: "GET / HTTP/1.1\r\n\(good)" + (0..<100).map { "X-\($0): 1\r\n" }.joined() + "\r\n", status: 431,
            says: "over 64 header fields"),
        Row(
            name: "a folded header line", request: "GET /api/state HTTP/1.1\r\n\(good)X-A: 1\r\n folded\r\n\r\n",
            status: 400, says: "not NAME: VALUE"),
        Row(
            name: "a control character in a header",
            request: "GET /api/state HTTP/1.1\r\n\(good)X-A: a\u{1}b\r\n\r\n", status: 400, says: "control character"),
        Row(
            name: "a chunked body",
            request: "POST /api/overrides HTTP/1.1\r\n\(good)Transfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n",
            status: 501, says: "Content-Length"),
        Row(
            name: "a body of 10 MB announced",
            request: "POST /api/overrides HTTP/1.1\r\n\(good)Content-Length: 10000000\r\n\r\n{}", status: 413,
            says: "at most 65536"),
        Row(
            name: "a Content-Length that is not a number",
            request: "POST /api/overrides HTTP/1.1\r\n\(good)Content-Length: -1\r\n\r\n{}", status: 400,
            says: "not a number"),
        Row(
            name: "a POST without Content-Length", request: "POST /api/save HTTP/1.1\r\n\(good)\r\n", status: 411,
            says: "Content-Length"),
        Row(
            name: "HTTP/2 in text", request: "GET /api/state HTTP/2.0\r\n\(good)\r\n", status: 505,
            says: "only HTTP/1.1"),
        Row(
            name: "a TLS handshake", request: "\u{16}\u{3}\u{1}\u{2}\u{0}\u{1}\u{0}\u{1}\u{fc}\u{3}\u{3}", status: 400,
            says: "not an HTTP request"),
        Row(
            name: "an absolute target (a proxy request)",
            request: "GET http://evil.example/ HTTP/1.1\r\n\(good)\r\n", status: 400, says: "starting with /"),
        Row(
            name: "two spaces in the request line", request: "GET  /api/state HTTP/1.1\r\n\(good)\r\n", status: 400,
            says: "METHOD TARGET HTTP/1.1"),
        Row(
            name: "a bad percent escape in the query", request: "GET /?token=%zz HTTP/1.1\r\n\(good)\r\n",
            status: 400, says: "percent escape"),
        Row(
            name: "a page override pointing the load at a file outside the folder",
            request:
                "POST /api/overrides HTTP/1.1\r\n\(good)Content-Length: 31\r\n\r\n"
                + #"{"photo.path": "/etc/hostname"}"#,
            status: 403, says: "outside the served folder"),
    ]

    @Test(arguments: rows)
    func refused(row: Row) throws {
        let (folder, file) = try ServeTests.servedFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try ServeTests.Server(serving: file, arguments: ["--preview-size", "128"])
        let request = row.request.replacingOccurrences(of: "{PORT}", with: "\(server.port)")
            .replacingOccurrences(of: "{TOKEN}", with: server.token)
        let started = Date()
        let answer = try RawClient.exchange(Array(request.utf8), port: server.port)
        #expect(answer.status == row.status, "\(answer.head)")
        #expect(answer.body.contains(row.says), "\(answer.body)")
        #expect(Date().timeIntervalSince(started) < 5, "refused at once")
        // The server goes on, and its own page still works.
        #expect(try server.send("GET", "/api/state").status == 200)
        #expect(server.process.isRunning)
        #expect(try String(contentsOf: file, encoding: .utf8) == ServeTests.graph, "the graph file is unchanged")
    }

    /// A request whose head never ends is cut off after 10 s, not kept forever (a slow-loris).
    @Test func aRequestThatNeverEndsTimesOut() throws {
        let (folder, file) = try ServeTests.servedFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try ServeTests.Server(serving: file)
        let started = Date()
        let answer = try RawClient.exchange(Array("GET / HTTP/1.1\r\nHost: 127.0.0.1".utf8), port: server.port)
        #expect(answer.status == 408)
        #expect((9.5..<15).contains(Date().timeIntervalSince(started)))
        #expect(try server.send("GET", "/api/state").status == 200)
    }

    /// More than 32 connections at once: the rest are told to come back, and the page works once they go.
    @Test func connectionsAreBounded() throws {
        let (folder, file) = try ServeTests.servedFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try ServeTests.Server(serving: file)
        let idle = try (0..<32).map { _ in try RawClient.connect(port: server.port) }
        usleep(300_000)
        let answer = try RawClient.exchange(Array("GET / HTTP/1.1\r\n\r\n".utf8), port: server.port)
        #expect(answer.status == 503)
        for socket in idle { close(socket) }
        usleep(300_000)
        #expect(try server.send("GET", "/api/state").status == 200)
    }

    /// The token in the address sets a cookie that later requests may carry instead.
    @Test func theAddressTokenSetsACookie() throws {
        let (folder, file) = try ServeTests.servedFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try ServeTests.Server(serving: file)
        let page = try RawClient.exchange(
            Array("GET /?token=\(server.token) HTTP/1.1\r\nHost: localhost:\(server.port)\r\n\r\n".utf8),
            port: server.port)
        #expect(page.status == 200)
        #expect(
            page.head.contains(
                "Set-Cookie: tessera-serve-\(server.port)=\(server.token); Path=/; HttpOnly; SameSite=Strict"))
        #expect(page.head.contains("Content-Security-Policy: default-src 'none'; script-src 'nonce-"))
        #expect(page.head.contains("frame-ancestors 'none'"))
        let state = try RawClient.exchange(
            Array(
                "GET /api/state HTTP/1.1\r\nHost: [::1]:\(server.port)\r\nCookie: a=b; tessera-serve-\(server.port)=\(server.token)\r\n\r\n"
                    .utf8), port: server.port)
        #expect(state.status == 200)
    }

    /// A page's value can hold YAML of its own (close the node, add a `save` that writes elsewhere): it is
    /// written into the file as a string, and the file keeps its nodes. Before, the text went in as it came.
    @Test func anInjectedValueStaysAValue() throws {
        let (folder, file) = try ServeTests.servedFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try ServeTests.Server(serving: file, arguments: ["--preview-size", "128"])
        _ = try server.stateNow(atLeast: 1)
        // Absolute: a value given by the page, as one given with --set, resolves against the current folder.
        let value =
            folder.path + "/astronaut.png }\n  evil: { op: save, input: photo, path: /tmp/evil.png }\n  x: { op: load, "
            + "path: a.png"
        let body = try String(decoding: JSONSerialization.data(withJSONObject: ["photo.path": value]), as: UTF8.self)
        let set = try server.send("POST", "/api/overrides", body: body)
        #expect(set.status == 200, "\(set.body)")
        let saved = try server.send("POST", "/api/save", body: "{}")
        #expect(saved.status == 200, "\(saved.body)")
        let written = try String(contentsOf: file, encoding: .utf8)
        #expect(!written.contains("\n  evil:"), "\(written)")
        #expect(
            written.contains(#"photo:  { op: load, path: "\#(folder.path)/astronaut.png }\n  evil: { op: save,"#),
            "\(written)")
        let check = try CLI.run(["validate", file.path])
        #expect(check.stdout.contains("ok (5 nodes)"), "\(check.stdout)\(check.stderr)")
    }
}

/// Requests made without `await`: the tests here block their thread instead, so that when the test
/// runner's few threads are busy with other suites, a deadline is not spent waiting to be resumed.
extension ServeTests.Server {
    /// A request with the token, as the page makes it.
    func send(_ method: String, _ path: String, body: String = "") throws -> RawClient.Answer {
        let length = method == "POST" ? "Content-Length: \(body.utf8.count)\r\n" : ""
        let head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nX-Tessera-Token: \(token)\r\n\(length)\r\n"
        return try RawClient.exchange(Array((head + body).utf8), port: port)
    }

    /// The page's state once render `version` or a later one is done, within `seconds`.
    func stateNow(atLeast version: Int, within seconds: Double = 120) throws -> [String: Any] {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            let answer = try send("GET", "/api/state")
            let state = try #require(try JSONSerialization.jsonObject(with: Data(answer.body.utf8)) as? [String: Any])
            if (state["version"] as? Int ?? 0) >= version { return state }
            usleep(100_000)
        }
        throw ServeTests.ServeTestError("no render \(version) within \(seconds) s")
    }

    /// CPU seconds the server's process has used (user and system, from /proc).
    var cpuSeconds: Double {
        guard let text = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/stat", encoding: .utf8),
            let close = text.lastIndex(of: ")")
        else { return 0 }
        let fields = text[text.index(after: close)...].split(separator: " ")
        // After the name: state is field 3 of stat(5); utime and stime are fields 14 and 15.
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }
}

/// A client that sends bytes as they are and reads the answer until the server closes.
enum RawClient {
    struct Answer {
        var status: Int
        var head: String
        var body: String
    }

    static func connect(port: Int) throws -> Int32 {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw ServeTests.ServeTestError("cannot connect to port \(port)") }
        return socket
    }

    /// Sends `request` (on another thread: the server may answer before it has read it all) and reads
    /// until the server closes, for at most 20 s.
    static func exchange(_ request: [UInt8], port: Int) throws -> Answer {
        let socket = try connect(port: port)
        defer { close(socket) }
        let sender = Thread {
            var sent = 0
            while sent < request.count {
                let count = request[sent...].withUnsafeBytes {
                    Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
                }
                guard count > 0 else { return }
                sent += count
            }
        }
        sender.start()
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, 200) >= 0 else { break }
            if descriptor.revents == 0 { continue }
            let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            if count <= 0 { break }
            received += buffer[0..<count]
        }
        let text = String(decoding: received, as: UTF8.self)
        let parts = text.components(separatedBy: "\r\n\r\n")
        let head = parts.first ?? ""
        let status = head.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
        return Answer(status: status, head: head, body: parts.dropFirst().joined(separator: "\r\n\r\n"))
    }
}

/// What the served graph may make the preview read, how it ends, and how quickly it follows an edit.
@Suite(.serialized)
struct ServeFileTests {
    /// A graph whose `load` names a FIFO in the folder: shown as a problem at its line, not waited on
    /// (before, the render opened it and blocked for good, and the page never had a first render).
    @Test func aFIFOIsAProblemNotAWait() throws {
        let graph = ServeTests.graph.replacingOccurrences(of: "path: astronaut.png", with: "path: pipe.png")
        let (folder, file) = try ServeTests.servedFolder(graph: graph)
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(mkfifo(folder.appendingPathComponent("pipe.png").path, 0o600) == 0)
        let server = try ServeTests.Server(serving: file, arguments: ["--preview-size", "128"])
        let state = try server.stateNow(atLeast: 1)
        let problems = try #require(state["problems"] as? [[String: Any]])
        let fifo = problems.first { ($0["message"] as? String)?.contains("pipe.png is a FIFO (named pipe)") == true }
        #expect(fifo?["line"] as? Int == 4, "\(problems)")
        // Another graph of the folder that is a FIFO is refused too.
        #expect(mkfifo(folder.appendingPathComponent("other.yaml").path, 0o600) == 0)
        let open = try server.send("POST", "/api/open", body: #"{"graph": "other.yaml"}"#)
        #expect(open.status == 400 && open.body.contains("is a FIFO (named pipe), not a graph file"), "\(open.body)")
        #expect(try server.send("GET", "/api/state").status == 200)
    }

    /// A graph nested 50,000 levels past the old nesting scan (an apostrophe in a comment): the page shows
    /// the limit at its place, and the server goes on (the render's thread overflowed its stack before).
    @Test func aDeepGraphIsAProblemNotACrash() throws {
        let deep =
            "# don't\nversion: 1\nnodes: " + String(repeating: "[", count: 50_000)
            + String(repeating: "]", count: 50_000)
        let (folder, file) = try ServeTests.servedFolder(graph: deep)
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try ServeTests.Server(serving: file)
        let problems = try #require(try server.stateNow(atLeast: 1)["problems"] as? [[String: Any]])
        #expect(
            problems.first?["text"] as? String
                == "\(file.path):3:207: error: the file nests values more than 200 levels deep")
        #expect(server.process.isRunning)
    }

    /// A FIFO given as the graph: one line and status 1 at once.
    @Test func aFIFOGraphIsRefused() throws {
        try withTemporaryFolder { folder in
            #expect(mkfifo(folder.appendingPathComponent("g.yaml").path, 0o600) == 0)
            let tessera = try #require(CLI.executable).path
            let result = try CLI.run(
                ["-c", "exec timeout 20 \"$@\"", "sh", tessera, "serve", "g.yaml"], in: folder,
                binary: URL(fileURLWithPath: "/bin/sh"))
            #expect(result.status == 1 && !result.signaled, "\(result.status) \(result.stderr)")
            #expect(result.stderr == "Error: g.yaml is a FIFO (named pipe), not a graph file\n")
        }
    }

    /// A file outside the graph's folder is not read unless the command says so.
    @Test func filesOutsideTheFolderNeedAFlag() throws {
        let graph = ServeTests.graph.replacingOccurrences(
            of: "path: astronaut.png", with: "path: \(ServeTests.repository.path)/Examples/images/astronaut.png")
        let (folder, file) = try ServeTests.servedFolder(graph: graph)
        defer { try? FileManager.default.removeItem(at: folder) }
        let refused = try ServeTests.Server(serving: file, arguments: ["--preview-size", "128"])
        let problems = try #require(try refused.stateNow(atLeast: 1)["problems"] as? [[String: Any]])
        #expect(
            problems.contains {
                ($0["message"] as? String)?.hasSuffix(
                    "start tessera serve with --read-anywhere to let the graph read it")
                    == true
            }, "\(problems)")
        let allowed = try ServeTests.Server(serving: file, arguments: ["--preview-size", "128", "--read-anywhere"])
        let state = try allowed.stateNow(atLeast: 1)
        #expect((state["problems"] as? [[String: Any]])?.isEmpty == true, "\(state["problems"] ?? "")")
    }

    /// Ctrl-C or SIGTERM ends the server with status 0 and leaves nothing in the temporary folder (it
    /// left an empty tessera-serve-* folder on every exit).
    @Test(arguments: [SIGINT, SIGTERM])
    func anExitLeavesNoTemporaryFolder(signal: Int32) throws {
        let (folder, file) = try ServeTests.servedFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let temporary = folder.appendingPathComponent("tmp")
        try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: true)
        let server = try ServeTests.Server(
            serving: file, arguments: ["--preview-size", "128"], environment: ["TMPDIR": temporary.path])
        _ = try server.stateNow(atLeast: 1)
        kill(server.process.processIdentifier, signal)
        server.process.waitUntilExit()
        #expect(server.process.terminationReason == .exit && server.process.terminationStatus == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: temporary.path) == [])
    }

    /// An edit made while a large graph is read reaches the page at once. Before, 12,000 nodes kept the
    /// edit off the page for over two minutes of the server's CPU (looking each node up by name scanned
    /// them all, and the run's plan, quadratic too, came before its first cancellation check); now the
    /// graph is read in linear time and is over the preview's 2,000 nodes, which the page says. Measured in
    /// the server's CPU time, which other work on the machine does not stretch.
    @Test func anEditCancelsTheRenderUnderWay() throws {
        var large = "version: 1\nnodes:\n  src: { op: constant, width: 8, height: 8 }\n"
        for index in 0..<12_000 {
            large += "  c\(index): { op: contrast, input: \(index % 10 == 0 ? "src" : "c\(index - 1)") }\n"
        }
        let (folder, file) = try ServeTests.servedFolder(graph: large)
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try ServeTests.Server(serving: file)
        // Until the large graph is being read.
        while server.cpuSeconds < 1 { usleep(50_000) }
        let small =
            "version: 1\nnodes:\n  src: { op: constant, width: 8, height: 8 }\n  edited: { op: contrast, input: src }\n"
        try small.write(to: file, atomically: true, encoding: .utf8)
        let before = server.cpuSeconds
        let edited = Date()
        var shown = false
        while !shown, Date().timeIntervalSince(edited) < 300, server.cpuSeconds - before < 60 {
            shown = try server.send("GET", "/api/state").body.contains(#""name":"edited""#)
            if !shown { usleep(100_000) }
        }
        #expect(shown)
        #expect(server.cpuSeconds - before < 20, "the edit reached the page within 20 s of the server's CPU")
    }
}

extension ServeFileTests {
    /// An edit made while a long chain renders its pixels cancels that render (each of its tiles checks)
    /// and reaches the page within a few seconds of the server's CPU, where the render alone takes minutes.
    @Test func anEditCancelsAPixelRender() throws {
        var chain = "version: 1\nnodes:\n  n0: { op: load, path: astronaut.png }\n"
        for index in 1..<300 { chain += "  n\(index): { op: gaussianBlur, input: n\(index - 1), sigma: 1 }\n" }
        let (folder, file) = try ServeTests.servedFolder(graph: chain)
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try ServeTests.Server(serving: file)
        while server.cpuSeconds < 3 { usleep(50_000) }
        #expect(try server.stateNow(atLeast: 0)["version"] as? Int == 0, "the chain is still rendering")
        let small =
            "version: 1\nnodes:\n  src: { op: constant, width: 8, height: 8 }\n  edited: { op: contrast, input: src }\n"
        try small.write(to: file, atomically: true, encoding: .utf8)
        let before = server.cpuSeconds
        var shown = false
        while !shown, server.cpuSeconds - before < 60 {
            shown = try server.send("GET", "/api/state").body.contains(#""name":"edited""#)
            if !shown { usleep(100_000) }
        }
        #expect(shown)
        #expect(server.cpuSeconds - before < 10, "the edit reached the page within 10 s of the server's CPU")
    }
}
