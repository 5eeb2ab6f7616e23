import HTTPTypes
import MultiAuthCore
import MultiAuthCredentials
import MultiAuthCrypto
import MultiAuthHTTP

/// The container credentials endpoint as the SDKs call it: `GET` with the authorization
/// token in `Authorization`, compared in constant time. Any path answers, as the URL the
/// client got is whatever it was told, but ``webIdentityPath``, which answers a web identity
/// token.
struct ContainerEndpoint: CredentialsEndpoint {
    let token: String

    func answer(_ request: HTTPRequest) -> EndpointAnswer {
        guard request.method == .get else { return .text(.methodNotAllowed, "method not allowed\n", headers: [.allow: "GET"]) }
        guard let given = request.headerFields[.authorization] else { return .text(.unauthorized, "authorization token required\n") }
        guard ConstantTime.equals(given.utf8, token.utf8) else { return .text(.forbidden, "wrong authorization token\n") }
        if let path = request.path, path.hasPrefix(Self.webIdentityPath) { return Self.webIdentityToken(path) }
        return .credentials(format: .container)
    }

    /// `/web-identity-token?audience=A[&audience=B][&signing_algorithm=RS256|ES384][&duration=S]`:
    /// a JWT of the credentials' identity, for the child's calls to a service that trusts it.
    static let webIdentityPath = "/web-identity-token"

    static func webIdentityToken(_ path: String) -> EndpointAnswer {
        let query = path.split(separator: "?", maxSplits: 1).dropFirst().first.map { FormURLEncoding.decode($0) } ?? []
        let audiences = query.filter { $0.0 == "audience" }.map(\.1)
        let algorithmName = query.last { $0.0 == "signing_algorithm" }?.1 ?? "RS256"
        guard let algorithm = WebIdentityTokenProvider.SigningAlgorithm(rawValue: algorithmName) else {
            return .text(.badRequest, "signing_algorithm must be RS256 or ES384\n")
        }
        let duration = query.last { $0.0 == "duration" }.map { Int($0.1) } ?? 300
        guard let duration, (60...3_600).contains(duration), (1...10).contains(audiences.count), audiences.allSatisfy({ !$0.isEmpty }) else {
            return .text(.badRequest, "give 1 to 10 audience parameters, and a duration of 60 to 3600 seconds\n")
        }
        return .webIdentityToken(audiences: audiences, algorithm: algorithm, durationSeconds: duration)
    }
}
