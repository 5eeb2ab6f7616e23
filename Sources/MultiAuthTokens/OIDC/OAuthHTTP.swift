import HTTPTypes
import MultiAuthCore
import MultiAuthCrypto
import MultiAuthHTTP

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// GETs JSON documents and POSTs OAuth forms, mapping RFC 6749 §5.2 error bodies to
/// ``TokenError`` values that never carry what was sent.
struct OAuthHTTP: Sendable {
    let http: any HTTPSender
    let provider: String

    struct ErrorBody: Decodable {
        let error: String
        let error_description: String?
    }

    /// An OAuth error response, before it is mapped.
    struct OAuthFailure: Error {
        let code: String
        let message: String
    }

    func getJSON<T: Decodable>(_ type: T.Type, from url: String, what: String) async throws(TokenError) -> T {
        let response = try await send(url, headers: [("Accept", "application/json")], body: nil)
        guard response.status == 200 else { throw .malformedResponse(provider: provider, problem: "\(what) at \(url) answered HTTP \(response.status)") }
        do { return try JSONDecoding.decode(T.self, from: response.body, what: "\(what) at \(url)") } catch {
            throw .malformedResponse(provider: provider, problem: error.description)
        }
    }

    /// POSTs `form` with the client's authentication; a 4xx OAuth error comes back as `.failure`.
    func postForm<T: Decodable>(
        _ type: T.Type, to url: String, form: [(String, String)], client: ClientAuthentication, secrets: [String]
    ) async throws(TokenError) -> Result<T, OAuthFailure> {
        var pairs = form
        var headers = [("Content-Type", "application/x-www-form-urlencoded"), ("Accept", "application/json")]
        client.apply(to: &pairs, headers: &headers)
        let response = try await send(url, headers: headers, body: FormURLEncoding.encode(pairs))
        if (200..<300).contains(response.status) {
            if T.self == EmptyResponse.self, let empty = EmptyResponse() as? T { return .success(empty) }
            do { return .success(try JSONDecoding.decode(T.self, from: response.body, what: "the answer of \(url) (HTTP \(response.status))")) } catch {
                throw .malformedResponse(provider: provider, problem: error.description)
            }
        }
        guard let body = try? JSONDecoding.decode(ErrorBody.self, from: response.body, what: "an OAuth error body") else {
            throw .service(provider: provider, code: "HTTP \(response.status)", message: "\(url) answered without an OAuth error body")
        }
        let message = String((body.error_description ?? "no description").prefix(300)).redacting(secrets + [client.secret ?? ""])
        return .failure(OAuthFailure(code: body.error, message: message))
    }

    /// GET (no body) or POST `body` to `url`.
    private func send(_ url: String, headers: [(String, String)], body: [UInt8]?) async throws(TokenError) -> ReceivedResponse {
        let request: HTTPRequest
        do { request = try HTTPRequest(method: body == nil ? .get : .post, wireURL: url, headerFields: HTTPFields(checking: headers)) } catch {
            throw .local("\(provider): \(error)")
        }
        do { return try await http.send(request, body: body.map { .bytes($0) } ?? .empty) } catch {
            throw .unreachable(provider: "\(provider) (\(url))", problem: error.description)
        }
    }
}

/// A body that is not read (revocation answers 200 with anything).
struct EmptyResponse: Decodable {}

/// How the client proves itself at the token endpoint: `client_secret_basic` when it has a
/// secret and the provider allows it (the default per RFC 6749), `client_secret_post` when
/// only that is allowed, and just `client_id` for public clients.
struct ClientAuthentication: Sendable {
    let clientId: String
    let secret: String?
    let usePost: Bool

    init(configuration: OIDCConfiguration, metadata: ProviderMetadata) {
        clientId = configuration.clientId
        secret = configuration.clientSecret
        let methods = metadata.tokenEndpointAuthMethodsSupported ?? ["client_secret_basic"]
        usePost = !methods.contains("client_secret_basic") && methods.contains("client_secret_post")
    }

    func apply(to form: inout [(String, String)], headers: inout [(String, String)]) {
        guard let secret else {
            form.append(("client_id", clientId))
            return
        }
        if usePost {
            form += [("client_id", clientId), ("client_secret", secret)]
        } else {
            let credentials = FormURLEncoding.escape(clientId) + ":" + FormURLEncoding.escape(secret)
            headers.append(("Authorization", "Basic " + Base64.encode(Array(credentials.utf8))))
        }
    }
}
