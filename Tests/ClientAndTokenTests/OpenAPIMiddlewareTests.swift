import Foundation
import HTTPTypes
import IntegrationSupport
import MultiAuthAuthorization
import MultiAuthCore
import MultiAuthCredentials
import MultiAuthCurl
import MultiAuthOpenAPI
import MultiAuthSigV4
import OpenAPIRuntime
import Testing

/// ``AuthorizationMiddleware`` in front of a transport, as a generated client runs it: the
/// operation's request (its path relative to the server URL) goes through the middleware, then
/// a transport that joins it to the base URL and sends it to the API server stand-in, which
/// checks IAM signatures with botocore, and API keys.
@Suite(.timeLimit(.minutes(5)), .enabled(if: Peers.available, Peers.reason))
struct OpenAPIMiddlewareTests {
    /// A minimal `ClientTransport`: base URL + operation path, sent with libcurl.
    struct CurlTransport: ClientTransport {
        func send(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String) async throws -> (HTTPResponse, HTTPBody?) {
            var base = baseURL.absoluteString
            if base.hasSuffix("/") { base.removeLast() }
            let bytes: [UInt8] = if let body { try await [UInt8](collecting: body, upTo: 1 << 20) } else { [] }
            let wire = try HTTPRequest(method: request.method, wireURL: base + (request.path ?? "/"), headerFields: request.headerFields)
            let response = try await CurlHTTPClient().send(wire, body: bytes.isEmpty ? .empty : .bytes(bytes))
            return (response.head, HTTPBody(response.body))
        }
    }

    static func call(_ middleware: AuthorizationMiddleware, base: String, _ request: HTTPRequest, body: HTTPBody? = nil) async throws -> (HTTPResponse, String) {
        let baseURL = try #require(URL(string: base))
        let (response, responseBody) = try await middleware.intercept(request, body: body, baseURL: baseURL, operationID: "op") { request, body, url in
            try await CurlTransport().send(request, body: body, baseURL: url, operationID: "op")
        }
        let text: String = if let responseBody { try await String(collecting: responseBody, upTo: 1 << 20) } else { "" }
        return (response, text)
    }

    @Test func aSignedOperationUnderABasePathIsAcceptedByBotocore() async throws {
        let credentials = StaticCredentialsProvider(AWSCredentials(accessKeyId: Peers.keyId, secretAccessKey: Peers.secret))
        let middleware = AuthorizationMiddleware(IAMAuthorizer(credentials: credentials, region: "us-east-1", service: "execute-api"))
        let get = HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/items/with%20space?b=2&a=1")
        let (got, echo) = try await Self.call(middleware, base: Peers.api + "/iam/base", get)
        #expect(got.status == .ok, "\(echo)")
        #expect(echo.contains("\"target\": \"/iam/base/items/with%20space?b=2&a=1\""))
        // A body that can be read only once: the middleware reads it, the transport gets bytes.
        let stream = AsyncStream<ArraySlice<UInt8>> { continuation in
            continuation.yield(ArraySlice("a streamed ".utf8))
            continuation.yield(ArraySlice("body".utf8))
            continuation.finish()
        }
        let once = HTTPBody(stream, length: .unknown, iterationBehavior: .single)
        let post = HTTPRequest(method: .post, scheme: nil, authority: nil, path: "/upload")
        let (posted, postEcho) = try await Self.call(middleware, base: Peers.api + "/iam", post, body: once)
        #expect(posted.status == .ok, "\(postEcho)")
        #expect(postEcho.contains("\"body_length\": 15"))
    }

    @Test func aWrongSecretIsRefusedAndAnAPIKeyPasses() async throws {
        let wrong = StaticCredentialsProvider(AWSCredentials(accessKeyId: Peers.keyId, secretAccessKey: "not-the-secret"))
        let refused = try await Self.call(
            AuthorizationMiddleware(IAMAuthorizer(credentials: wrong, region: "us-east-1", service: "execute-api")),
            base: Peers.api + "/iam", HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/x"))
        #expect(refused.0.status == .forbidden)
        let keyed = try await Self.call(
            AuthorizationMiddleware(APIKeyAuthorizer(key: .fixed(Peers.apiKey))), base: Peers.api + "/apikey",
            HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/x"))
        #expect(keyed.0.status == .ok)
    }
}
