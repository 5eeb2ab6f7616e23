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
/// given) for the browser's one request to `/callback`, answers it with a short page, and
/// hands back its query parameters. Waiting happens on a dispatch thread, never on a
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
        let seconds = Int(max(0, timeout.components.seconds))
        return try await runBlocking { self.acceptRedirect(timeout: seconds) }
    }

    private func acceptRedirect(timeout: Int) -> Result<[String: String], TokenError> {
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(timeout) * 1_000_000_000
        while true {
            let now = DispatchTime.now().uptimeNanoseconds
            guard now < deadline else { return .failure(.timedOut(what: "the browser's redirect", seconds: timeout)) }
            var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, Int32((deadline - now) / 1_000_000)) > 0 else { continue }
            let client = accept(socket, nil, nil)
            guard client >= 0 else { continue }
            defer { close(client) }
            guard let target = Self.readRequestTarget(client) else { continue }
            guard target == path || target.hasPrefix(path + "?") else {
                Self.respond(client, status: "404 Not Found", text: "Not found.")
                continue
            }
            Self.respond(client, status: "200 OK", text: "Sign-in finished. You can close this window and return to the terminal.")
            let query = target.split(separator: "?", maxSplits: 1).dropFirst().first ?? ""
            var parameters: [String: String] = [:]
            for (name, value) in FormURLEncoding.decode(query) where parameters[name] == nil { parameters[name] = value }
            return .success(parameters)
        }
    }

    /// The request target of `GET TARGET HTTP/1.1`, read with a 5-second limit and 8 KiB cap.
    private static func readRequestTarget(_ client: Int32) -> String? {
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 2048)
        while buffer.count < 8192, !buffer.contains(UInt8(ascii: "\n")) {
            let count = recv(client, &chunk, chunk.count, 0)
            guard count > 0 else { break }
            buffer += chunk[0..<count]
        }
        let line = buffer.prefix { $0 != UInt8(ascii: "\r") && $0 != UInt8(ascii: "\n") }
        let parts = line.split(separator: UInt8(ascii: " "))
        guard parts.count == 3, parts[0].elementsEqual("GET".utf8) else { return nil }
        return String(decoding: parts[1], as: UTF8.self)
    }

    private static func respond(_ client: Int32, status: String, text: String) {
        let body = "<!doctype html><title>multiauth</title><p>\(text)</p>"
        let response = "HTTP/1.1 \(status)\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)"
        _ = Array(response.utf8).withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }
}
