import HTTPTypes
import MultiAuthCurl
import Testing

/// `CurlHTTPClient` against servers in the test's own process: each way a server can fail
/// maps to its transport-neutral class, and a request goes out as given.
struct CurlFailureTests {
    static func request(port: Int, path: String = "/x") -> HTTPRequest {
        HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1:\(port)", path: path, headerFields: [.accept: "text/plain"])
    }

    static func failure(_ request: HTTPRequest) async -> HTTPTransportError? {
        do {
            _ = try await CurlHTTPClient().send(request)
            return nil
        } catch {
            return error
        }
    }

    @Test func aRequestGoesOutAsGivenAndItsAnswerComesBack() async throws {
        let server = try OneShotServer(answer: "HTTP/1.1 201 Created\r\nContent-Length: 2\r\nX-Served: yes\r\n\r\nhi")
        let response = try await CurlHTTPClient().send(Self.request(port: server.port, path: "/a?b=c"))
        #expect(response.head.status == .created && response.body == Array("hi".utf8))
        #expect(response.head.headerFields[HTTPField.Name("X-Served")!] == "yes")
        let lines = server.requestHead().split(separator: "\r\n").map(String.init)
        #expect(lines.first == "GET /a?b=c HTTP/1.1")
        // The sender adds no header of its own: only Host (which HTTP/1.1 requires) and ours.
        #expect(Set(lines.dropFirst().map { $0.split(separator: ":")[0].lowercased() }) == ["host", "accept"], "\(lines)")
    }

    @Test func aRefusedConnectionIsConnectionFailed() async throws {
        let error = await Self.failure(Self.request(port: try OneShotServer.closedPort()))
        guard case .connectionFailed(let host, _)? = error?.kind else { Issue.record("got \(String(describing: error))"); return }
        #expect(host.contains("127.0.0.1") && error?.isTransient == true)
    }

    @Test func aServerThatClosesWithoutAWordIsConnectionReset() async throws {
        let server = try OneShotServer(answer: nil)
        let error = await Self.failure(Self.request(port: server.port))
        guard case .connectionReset? = error?.kind else { Issue.record("got \(String(describing: error))"); return }
        #expect(error?.isTransient == true)
    }

    @Test func anAnswerThatIsNotHTTPIsAProtocolFailure() async throws {
        let server = try OneShotServer(answer: "SSH-2.0-OpenSSH_9.2\r\n\r\n")
        let error = await Self.failure(Self.request(port: server.port))
        guard case .protocolFailure? = error?.kind else { Issue.record("got \(String(describing: error))"); return }
    }
}
