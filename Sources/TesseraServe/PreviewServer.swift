import FlyingFox
import Foundation

/// The preview page's HTTP server (FlyingFox): the page, its state as JSON, the thumbnails, a WebSocket
/// that announces each new render, and the requests that apply or save the page's controls. Every
/// other request gets a plain-text error naming what is wrong; none can stop the server.
///
///     GET  /                      the page
///     GET  /api/state             PreviewState as JSON
///     GET  /thumbs/VERSION/N.png  thumbnail N of render VERSION (404 once replaced)
///     GET  /events                WebSocket: the version of each new render, as text
///     POST /api/overrides         {"node.parameter": "value", ...}: the page's --set overrides
///     POST /api/save              writes the overrides into the graph file
///     POST /api/open              {"graph": "other.yaml"}: serve another graph of the folder
public final class PreviewServer: Sendable {
    /// Request bodies larger than this are refused before they are read.
    static let maximumBody = 64 * 1024

    let session: PreviewSession
    let server: HTTPServer

    /// A server for `session` on `host` (an IPv4 address; 127.0.0.1 keeps it to this machine) and
    /// `port` (0: any free one).
    public init(session: PreviewSession, host: String, port: UInt16) throws {
        self.session = session
        server = HTTPServer(
            config: .init(address: try .inet(ip4: host, port: port), timeout: 30, logger: .disabled),
            handler: Router(session: session))
    }

    /// Starts listening; returns the port listened on.
    public func start() async throws -> UInt16 {
        let server = server
        Task { try await server.run() }
        try await server.waitUntilListening(timeout: 10)
        guard case .ip4(_, let port)? = await server.listeningAddress else {
            throw ServeError(status: 500, "the server is not listening")
        }
        return port
    }

    public func stop() async { await server.stop() }
}

/// Routes requests by method and path.
private struct Router: HTTPHandler {
    let session: PreviewSession

    func handleRequest(_ request: HTTPRequest) async throws -> HTTPResponse {
        do {
            return try await route(request)
        } catch let error as ServeError {
            return Self.text(error.description + "\n", status: error.status)
        } catch {
            return Self.text("\(error)\n", status: 500)
        }
    }

    private func route(_ request: HTTPRequest) async throws -> HTTPResponse {
        let path = request.path
        switch (request.method, path) {
        case (.GET, "/"), (.GET, "/index.html"):
            return HTTPResponse(
                statusCode: .ok, headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"],
                body: Data(Page.html.utf8))
        case (.GET, "/api/state"):
            return Self.json(session.stateJSON())
        case (.GET, "/events"):
            return try await WebSocketHTTPHandler(handler: MessageFrameWSHandler(handler: Announcer(session: session)))
                .handleRequest(request)
        case (.GET, _) where path.hasPrefix("/thumbs/"):
            let parts = path.dropFirst("/thumbs/".count).split(separator: "/")
            guard parts.count == 2, let version = Int(parts[0]), parts[1].hasSuffix(".png"),
                let index = Int(parts[1].dropLast(4))
            else { throw ServeError(status: 400, "a thumbnail's address is /thumbs/VERSION/N.png, not \(path)") }
            guard let png = session.thumbnail(version: version, index: index) else {
                throw ServeError(status: 404, "no thumbnail \(index) in render \(version) (now \(session.version))")
            }
            return HTTPResponse(
                statusCode: .ok, headers: [.contentType: "image/png", .cacheControl: "max-age=3600"], body: png)
        case (.POST, "/api/overrides"):
            let body = try await Self.jsonObject(request)
            var overrides: [String: String] = [:]
            for (key, value) in body {
                switch value {
                case let text as String: overrides[key] = text
                case let number as NSNumber: overrides[key] = number.stringValue
                default: throw ServeError(status: 400, "the override '\(key)' must be a string or a number")
                }
            }
            try session.setOverrides(overrides)
            return Self.json(Data(#"{"ok": true}"#.utf8))
        case (.POST, "/api/save"):
            let count = try session.writeOverrides()
            return Self.json(Data(#"{"ok": true, "written": \#(count)}"#.utf8))
        case (.POST, "/api/open"):
            guard let name = try await Self.jsonObject(request)["graph"] as? String else {
                throw ServeError(status: 400, #"send {"graph": "NAME.yaml"}, a graph file of the served folder"#)
            }
            try session.open(graph: name)
            return Self.json(Data(#"{"ok": true}"#.utf8))
        case (_, "/"), (_, "/api/state"), (_, "/events"), (_, "/api/overrides"), (_, "/api/save"), (_, "/api/open"):
            throw ServeError(status: 405, "\(request.method.rawValue) is not allowed on \(path)")
        default:
            throw ServeError(status: 404, "no such page: \(path)")
        }
    }

    /// A request's body as a JSON object, refused unless its length is given and small.
    private static func jsonObject(_ request: HTTPRequest) async throws -> [String: Any] {
        guard let length = request.headers[.contentLength].flatMap({ Int($0) }) else {
            throw ServeError(status: 411, "send the body with a Content-Length")
        }
        guard length <= PreviewServer.maximumBody else {
            throw ServeError(status: 413, "the body is \(length) bytes; at most \(PreviewServer.maximumBody)")
        }
        let data = try await request.bodyData
        guard let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else {
            throw ServeError(status: 400, "the body must be a JSON object")
        }
        return object
    }

    static func text(_ text: String, status: Int) -> HTTPResponse {
        HTTPResponse(
            statusCode: HTTPStatusCode(status, phrase: phrase(status)),
            headers: [.contentType: "text/plain; charset=utf-8"], body: Data(text.utf8))
    }

    static func json(_ data: Data) -> HTTPResponse {
        HTTPResponse(
            statusCode: .ok, headers: [.contentType: "application/json", .cacheControl: "no-store"], body: data)
    }

    private static func phrase(_ status: Int) -> String {
        [
            400: "Bad Request", 403: "Forbidden", 404: "Not Found", 405: "Method Not Allowed", 411: "Length Required",
            413: "Payload Too Large", 422: "Unprocessable Content", 500: "Internal Server Error",
        ][status] ?? "Error"
    }
}

/// The WebSocket's messages: the version of each new render, until the page goes away.
private struct Announcer: WSMessageHandler {
    let session: PreviewSession

    func makeMessages(for client: AsyncStream<WSMessage>) async throws -> AsyncStream<WSMessage> {
        let (stream, continuation) = AsyncStream<WSMessage>.makeStream()
        let id = session.listen { version in continuation.yield(.text("\(version)")) }
        continuation.yield(.text("\(session.version)"))
        let session = session
        Task {
            for await _ in client {}
            session.stopListening(id)
            continuation.finish()
        }
        return stream
    }
}
