import Foundation
import HTTPTypes
import IntegrationSupport
import MultiAuthCore
import MultiAuthCurl
import MultiAuthHTTP
import Testing

/// `Type=notify` readiness: the gateway sends `READY=1` to `$NOTIFY_SOCKET` once its port is
/// open, as sd_notify(3) specifies (one datagram of newline-separated `KEY=VALUE` lines, to a
/// path or, with a leading `@`, an abstract socket). The test's socket stands in for systemd.
@Suite(.timeLimit(.minutes(1))) struct SystemdTests {
    /// A datagram socket bound to `name` (a path, or `@NAME`), read with a timeout.
    final class NotifySocket {
        let fd: Int32

        init(_ name: String) throws {
            fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            var path = Array(name.utf8)
            if path.first == UInt8(ascii: "@") { path[0] = 0 }
            withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: path) }
            let length = socklen_t(MemoryLayout<sa_family_t>.size + path.count)
            let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
            guard fd >= 0, bound == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EINVAL) }
            var timeout = timeval(tv_sec: 20, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        }

        /// The next datagram, or nil when none came within 20 s.
        func receive() -> String? {
            var buffer = [UInt8](repeating: 0, count: 4096)
            let count = recv(fd, &buffer, buffer.count, 0)
            return count < 0 ? nil : String(decoding: buffer[..<count], as: UTF8.self)
        }

        deinit { close(fd) }
    }

    @Test(arguments: ["path", "abstract"]) func theGatewaySaysItIsReadyOnceListening(kind: String) async throws {
        let folder = try ScratchFolder("multiauth-notify")
        defer { folder.remove() }
        let name = kind == "path" ? folder.path + "/notify" : "@multiauth-notify-\(UUID().uuidString)"
        let systemd = try NotifySocket(name)
        let keys = folder.path + "/keys.json"
        #expect(FileManager.default.createFile(atPath: keys, contents: Data(#"{"ci": "real-key-123"}"#.utf8), attributes: [.posixPermissions: 0o600]))
        let gateway = try GatewayProcess(
            ["gateway", "--listen", "127.0.0.1:0", "--upstream", "http://127.0.0.1:9", "--api-key-file", keys], environment: ["NOTIFY_SOCKET": name])
        defer { _ = gateway.stop() }
        let notice = try #require(systemd.receive())
        #expect(notice == "READY=1\nSTATUS=listening on \(gateway.url)")
    }

    /// `LoadCredential=keys:/etc/…` gives the service `$CREDENTIALS_DIRECTORY/keys`; a file
    /// option `credential:keys` reads it, and without the variable the start fails saying so.
    @Test func aFileOptionReadsASystemdCredential() async throws {
        let folder = try ScratchFolder("multiauth-credential")
        defer { folder.remove() }
        #expect(FileManager.default.createFile(
            atPath: folder.path + "/keys", contents: Data(#"{"ci": "real-key-123"}"#.utf8), attributes: [.posixPermissions: 0o400]))
        let arguments = ["gateway", "--listen", "127.0.0.1:0", "--upstream", "http://127.0.0.1:9", "--api-key-file", "credential:keys"]
        let gateway = try GatewayProcess(arguments, environment: ["CREDENTIALS_DIRECTORY": folder.path])
        func status(key: String) async throws -> Int {
            try await CurlHTTPClient().send(try HTTPRequest(method: .get, wireURL: gateway.url + "/x", headerFields: [HTTPField.Name("x-api-key")!: key])).status
        }
        // The key passes to the (closed) upstream, so 502; another key stops at the gateway.
        #expect(try await status(key: "real-key-123") == 502)
        #expect(try await status(key: "wrong-key") == 403)
        #expect(gateway.stop() == 0)

        let run = try await CLI.run(arguments, limit: 30)
        #expect(run.status != 0 && run.stderr.contains("$CREDENTIALS_DIRECTORY is not set"), "\(run.stderr)")
    }
}
