public import HTTPTypes
public import MultiAuthAuthorization
public import MultiAuthCore
import MultiAuthSigV4
public import OpenAPIRuntime

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// A swift-openapi-runtime `ClientMiddleware` that authorizes every operation of a generated
/// client in any mode a `RequestAuthorizer` offers: SigV4 (`IAMAuthorizer`), API keys,
/// user-pool, OIDC or Lambda tokens.
///
/// The request is signed as it will go on the wire: the canonical URI is the transport's base
/// URL path followed by the operation's path, and the host is the base URL's. The body is
/// read once, into memory (at most `maxBodySize` bytes), and handed on as bytes, so a body
/// that can be iterated only once is never iterated twice.
///
/// ```swift
/// let client = Client(
///     serverURL: URL(string: "https://abc.execute-api.us-east-1.amazonaws.com/prod")!,
///     transport: URLSessionTransport(),
///     middlewares: [AuthorizationMiddleware(IAMAuthorizer(credentials: chain, region: "us-east-1", service: "execute-api"))])
/// ```
public struct AuthorizationMiddleware: ClientMiddleware {
    let authorizer: any RequestAuthorizer
    let maxBodySize: Int
    let clock: TimeSource

    /// Creates the middleware. `clock` is the wall clock requests are signed at.
    public init(_ authorizer: any RequestAuthorizer, maxBodySize: Int = 10 << 20, clock: TimeSource = .system) {
        self.authorizer = authorizer
        self.maxBodySize = maxBodySize
        self.clock = clock
    }

    /// Authorizes `request` and passes it on with its authorization fields.
    public func intercept(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        let bytes: [UInt8]? = if let body { try await [UInt8](collecting: body, upTo: maxBodySize) } else { nil }
        let authorized = try await authorizer.authorize(
            Self.wireRequest(request, baseURL: baseURL), body: bytes.map { .bytes($0) } ?? .empty, at: SigningDate(secondsSince1970: Int64(clock.now().rounded(.down))))
        var outgoing = request
        outgoing.headerFields = authorized.request.headerFields
        return try await next(outgoing, bytes.map { HTTPBody($0) }, baseURL)
    }

    /// The request as the server receives it: the base URL's scheme and host, and its path
    /// before the operation's path (percent-escapes kept as written).
    static func wireRequest(_ request: HTTPRequest, baseURL: URL) -> HTTPRequest {
        var wire = request
        let components = URLComponents(url: baseURL, resolvingAgainstBaseURL: false)
        wire.scheme = components?.scheme ?? "https"
        let host = components?.percentEncodedHost ?? ""
        wire.authority = components?.port.map { "\(host):\($0)" } ?? host
        var basePath = components?.percentEncodedPath ?? ""
        if basePath.hasSuffix("/") { basePath.removeLast() }
        wire.path = basePath + (request.path ?? "/")
        return wire
    }
}
