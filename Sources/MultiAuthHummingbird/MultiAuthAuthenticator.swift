public import Hummingbird
public import HummingbirdAuth
public import MultiAuthInboundAuthorization
import NIOCore

/// hummingbird-auth's `AuthenticatorMiddleware` over an `InboundAuthorizer`, so MultiAuth's
/// SigV4/SigV4a, API-key and JWT checks compose with `IsAuthenticatedMiddleware` and with
/// other hummingbird-auth authenticators in one router.
///
/// A request carrying no credential of a mode the authorizer accepts passes on untouched (the
/// next authenticator may know it). One that carries such a credential is decided here: the
/// verified principal, mapped by `identify`, becomes the context's `identity`; a credential
/// that fails is answered as API Gateway answers it (403, or 401 for a bad token), and the
/// request goes no further.
///
/// ```swift
/// let router = Router(context: BasicAuthRequestContext<Principal>.self)
/// router.addMiddleware {
///     MultiAuthAuthenticator(InboundAuthorizer(verifier: verifier, apiKeys: ["k-123": "ci"]))
///     IsAuthenticatedMiddleware()
/// }
/// ```
public struct MultiAuthAuthenticator<Context: AuthRequestContext>: AuthenticatorMiddleware {
    /// What the context holds for a verified caller.
    public typealias Identity = Context.Identity

    /// The largest body read to check a signature's payload hash; a longer one is answered 413.
    public let maxBodySize: Int
    let authorizer: InboundAuthorizer
    let identify: @Sendable (Principal) async throws -> Identity?

    /// An authenticator whose identity is `identify(principal)` (nil: not authenticated).
    public init(
        _ authorizer: InboundAuthorizer, maxBodySize: Int = 10 << 20, identify: @escaping @Sendable (Principal) async throws -> Identity?
    ) {
        self.authorizer = authorizer
        self.maxBodySize = maxBodySize
        self.identify = identify
    }

    /// Decides `request` without reading its body: for a caller that collected it already.
    /// A request whose signature covers its body needs ``handle(_:context:next:)``.
    public func authenticate(request: Request, context: Context) async throws -> Identity? {
        guard authorizer.presented(request.head).mode != nil else { return nil }
        return try await decide(request, body: nil)
    }

    /// Reads the body when the signature covers it (the handlers then read the collected
    /// copy), decides, and calls `next` with the identity set when there is one.
    public func handle(_ input: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard authorizer.presented(input.head).mode != nil else { return try await next(input, context) }
        var request = input
        var body: [UInt8]?
        if authorizer.needsBody(request.head) {
            guard let buffer = try? await request.collectBody(upTo: maxBodySize) else { throw RejectedRequest(.bodyTooLarge(limit: maxBodySize)) }
            body = Array(buffer.readableBytesView)
        }
        var context = context
        context.identity = try await decide(request, body: body)
        return try await next(request, context)
    }

    private func decide(_ request: Request, body: [UInt8]?) async throws -> Identity? {
        switch await authorizer.authorize(request.head, body: body) {
        case .failure(let rejection): throw RejectedRequest(rejection)
        case .success(let principal): return try await identify(principal)
        }
    }
}

extension MultiAuthAuthenticator where Context.Identity == Principal {
    /// An authenticator whose identity is the verified `Principal`.
    public init(_ authorizer: InboundAuthorizer, maxBodySize: Int = 10 << 20) {
        self.init(authorizer, maxBodySize: maxBodySize) { $0 }
    }
}

/// A request an `InboundAuthorizer` turned away, as an error Hummingbird answers with API
/// Gateway's status, `x-amzn-ErrorType` and JSON message.
public struct RejectedRequest: HTTPResponseError {
    /// Why it was turned away (never a secret).
    public let rejection: InboundRejection

    /// The error for `rejection`.
    public init(_ rejection: InboundRejection) { self.rejection = rejection }

    /// The rejection's status.
    public var status: HTTPResponse.Status { rejection.status }

    /// API Gateway's answer; the reason is logged at info level.
    public func response(from request: Request, context: some RequestContext) throws -> Response {
        Response(rejection, logger: context.logger)
    }
}
