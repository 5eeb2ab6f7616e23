public import Hummingbird
public import MultiAuthInboundAuthorization

/// A Hummingbird request context that carries the principal ``InboundAuthorizationMiddleware``
/// verified, for the handlers behind it.
public protocol MultiAuthRequestContext: RequestContext {
    /// Who sent the request, once verified; `nil` before the middleware ran.
    var principal: Principal? { get set }
}

/// A ready-made ``MultiAuthRequestContext``.
public struct MultiAuthContext: MultiAuthRequestContext {
    /// Hummingbird's own per-request storage.
    public var coreContext: CoreRequestContextStorage
    /// Who sent the request, once verified.
    public var principal: Principal?

    /// Creates the context of one request.
    public init(source: Source) {
        coreContext = .init(source: source)
    }
}
