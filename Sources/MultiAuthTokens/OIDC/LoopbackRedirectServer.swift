import Dispatch
import MultiAuthCore
import MultiAuthHTTP

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The loopback redirect of RFC 8252 §7.3: listens on 127.0.0.1 (a random port unless one is
/// given) for the browser's one request to `/callback` (a redirect, or a form an identity
/// provider posts), answers it with a short page, and hands back its parameters. Waiting happens on a dispatch thread, never on a
/// cooperative one.
public final class LoopbackRedirectServer: Sendable {
    /// The listening port.
    public let port: UInt16
    /// The path the redirect comes to.
    public let path: String
    private let socket: Int32

    /// Where the provider must redirect to.
    public var redirectURI: String { "http://127.0.0.1:\(port)\(path)" }

    /// Starts listening for a redirect to `path`.
    /// - Throws: ``TokenError/local(_:)`` if the port cannot be bound.
    public init(port: UInt16 = 0, path: String = "/callback") throws(TokenError) {
        self.path = path
        #if canImport(Darwin)
        let fd = Darwin.socket(AF_INET, SOCK_STREAM, 0)
        #else
        let fd = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #endif
        guard fd >= 0 else { throw .local("cannot open a socket for the redirect (errno \(errno))") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
                bind(fd, raw, length) == 0 && listen(fd, 4) == 0 && getsockname(fd, raw, &length) == 0
            }
        }
        guard bound else {
            close(fd)
            throw .local("cannot listen on 127.0.0.1:\(port) for the redirect (errno \(errno))")
        }
        socket = fd
        self.port = UInt16(bigEndian: address.sin_port)
    }

    deinit { close(socket) }

    /// Waits up to `timeout` (whole seconds) for the redirect and returns its query parameters.
    public func waitForRedirect(timeout: Duration) async throws(TokenError) -> [String: String] {
        try await wait(for: "GET", timeout: timeout, maxBytes: 0)
    }

    /// Waits up to `timeout` (whole seconds) for a form posted to the path (SAML's HTTP-POST
    /// binding) and returns its fields. A body longer than `maxBytes` is answered 413 and
    /// refused without being read.
    public func waitForFormPost(timeout: Duration, maxBytes: Int) async throws(TokenError) -> [String: String] {
        try await wait(for: "POST", timeout: timeout, maxBytes: maxBytes)
    }

    private func wait(for method: String, timeout: Duration, maxBytes: Int) async throws(TokenError) -> [String: String] {
        let seconds = Int(max(0, timeout.components.seconds))
        return try await runBlocking { self.receive(method, timeout: seconds, maxBytes: maxBytes) }
    }

    private func receive(_ method: String, timeout: Int, maxBytes: Int) -> Result<[String: String], TokenError> {
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(timeout) * 1_000_000_000
        let what = method == "GET" ? "the browser's redirect" : "the identity provider's post"
        while true {
            let now = DispatchTime.now().uptimeNanoseconds
            guard now < deadline else { return .failure(.timedOut(what: what, seconds: timeout)) }
            var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, Int32((deadline - now) / 1_000_000)) > 0 else { continue }
            let client = accept(socket, nil, nil)
            guard client >= 0 else { continue }
            defer { close(client) }
            guard let request = Self.readRequest(client), request.method == method else { continue }
            guard request.target == path || request.target.hasPrefix(path + "?") else {
                Self.respond(client, status: "404 Not Found", text: "Not found.")
                continue
            }
            var form = String(request.target.split(separator: "?", maxSplits: 1).dropFirst().first ?? "")
            if method == "POST" {
                guard request.contentLength <= maxBytes else {
                    Self.respond(client, status: "413 Content Too Large", text: "The sign-in response is too large.")
                    return .failure(.local("\(what) is \(request.contentLength) bytes; at most \(maxBytes) are read"))
                }
                guard let body = Self.readBody(client, after: request.rest, length: request.contentLength) else {
                    Self.respond(client, status: "400 Bad Request", text: "The sign-in response was cut short.")
                    return .failure(.local("\(what) was cut short"))
                }
                form = String(decoding: body, as: UTF8.self)
            }
            Self.respond(client, status: "200 OK", text: "Sign-in finished. You can close this window and return to the terminal.")
            var parameters: [String: String] = [:]
            for (name, value) in FormURLEncoding.decode(form) where parameters[name] == nil { parameters[name] = value }
            return .success(parameters)
        }
    }

    private struct RequestHead {
        let method: String
        let target: String
        let contentLength: Int
        let rest: [UInt8]
    }

    /// The request line, `Content-Length` and the bytes read past the head, with a 5-second
    /// limit and a 16 KiB cap on the head.
    private static func readRequest(_ client: Int32) -> RequestHead? {
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        let end = Array("\r\n\r\n".utf8)
        while buffer.count < 16_384, buffer.firstRange(of: end) == nil {
            let count = recv(client, &chunk, chunk.count, 0)
            guard count > 0 else { break }
            buffer += chunk[0..<count]
        }
        guard let headEnd = buffer.firstRange(of: end) else { return nil }
        let lines = String(decoding: buffer[..<headEnd.lowerBound], as: UTF8.self).split(separator: "\r\n")
        let parts = lines.first?.split(separator: " ") ?? []
        guard parts.count == 3 else { return nil }
        var length = 0
        for line in lines.dropFirst() {
            let field = line.split(separator: ":", maxSplits: 1)
            if field.count == 2, field[0].lowercased() == "content-length" {
                guard let value = Int(field[1].trimmingPrefix(" ")), value >= 0 else { return nil }
                length = value
            }
        }
        return RequestHead(method: String(parts[0]), target: String(parts[1]), contentLength: length, rest: Array(buffer[headEnd.upperBound...]))
    }

    private static func readBody(_ client: Int32, after rest: [UInt8], length: Int) -> [UInt8]? {
        var body = Array(rest.prefix(length))
        var chunk = [UInt8](repeating: 0, count: 16_384)
        while body.count < length {
            let count = recv(client, &chunk, min(chunk.count, length - body.count), 0)
            guard count > 0 else { return nil }
            body += chunk[0..<count]
        }
        return body
    }

    private static func respond(_ client: Int32, status: String, text: String) {
        let body = "<!doctype html><title>multiauth</title><p>\(text)</p>"
        let response = "HTTP/1.1 \(status)\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)"
        _ = Array(response.utf8).withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }
}
