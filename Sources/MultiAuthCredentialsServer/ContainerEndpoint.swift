import HTTPTypes
import MultiAuthCrypto

/// The container credentials endpoint as the SDKs call it: `GET` with the authorization
/// token in `Authorization`, compared in constant time. Any path answers, as the URL the
/// client got is whatever it was told.
struct ContainerEndpoint: CredentialsEndpoint {
    let token: String

    func answer(_ request: HTTPRequest) -> EndpointAnswer {
        guard request.method == .get else { return .text(.methodNotAllowed, "method not allowed\n", headers: [.allow: "GET"]) }
        guard let given = request.headerFields[.authorization] else { return .text(.unauthorized, "authorization token required\n") }
        guard ConstantTime.equals(given.utf8, token.utf8) else { return .text(.forbidden, "wrong authorization token\n") }
        return .credentials(format: .container)
    }
}
