import HTTPTypes
import MultiAuthCredentials
@testable import MultiAuthCredentialsServer
import Testing

/// The container endpoint's web identity route, in process: what a request asks for, by the
/// rules its help gives (audience repeatable, RS256 and 300 s unless said, form-encoded).
struct ContainerEndpointRouteTests {
    static let endpoint = ContainerEndpoint(token: "child-token")

    static func answer(_ path: String, token: String? = "child-token") -> EndpointAnswer {
        var request = HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1:1", path: path)
        if let token { request.headerFields[.authorization] = token }
        return endpoint.answer(request)
    }

    @Test func theRouteReadsItsQuery() {
        guard case .webIdentityToken(let audiences, let algorithm, let duration) = Self.answer("/web-identity-token?audience=a&audience=https%3A%2F%2Fb.example")
        else { Issue.record("not a web identity answer"); return }
        #expect(audiences == ["a", "https://b.example"] && algorithm == .rs256 && duration == 300)
        guard case .webIdentityToken(_, let chosen, let seconds) = Self.answer("/web-identity-token?audience=a&signing_algorithm=ES384&duration=3600")
        else { Issue.record("not a web identity answer"); return }
        #expect(chosen == .es384 && seconds == 3600)
    }

    @Test(arguments: [
        "/web-identity-token", "/web-identity-token?audience=", "/web-identity-token?audience=a&duration=59",
        "/web-identity-token?audience=a&duration=ten", "/web-identity-token?audience=a&signing_algorithm=HS256",
        "/web-identity-token?" + (1...11).map { "audience=a\($0)" }.joined(separator: "&"),
    ])
    func aRequestOutOfBoundsIs400(path: String) {
        guard case .text(let status, _, _) = Self.answer(path) else { Issue.record("answered \(path)"); return }
        #expect(status == .badRequest)
    }

    @Test func theTokenIsCheckedFirstAndOtherPathsStillGiveCredentials() {
        guard case .text(let status, _, _) = Self.answer("/web-identity-token?audience=a", token: "other") else { Issue.record("answered"); return }
        #expect(status == .forbidden)
        guard case .credentials = Self.answer("/credentials") else { Issue.record("no credentials"); return }
    }
}
