public import Hummingbird
public import Logging
public import MultiAuthInboundAuthorization
import NIOCore

/// Hummingbird middleware that lets through only requests an `InboundAuthorizer` accepts:
/// SigV4/SigV4a signatures, API keys, JWTs. The principal goes into the context; everything
/// else is answered as API Gateway answers it (403, or 401 for a missing token, with
/// `x-amzn-ErrorType` and a JSON message) and never reaches the next responder.
///
/// ```swift
/// let router = Router(context: MultiAuthContext.self)
/// router.add(middleware: InboundAuthorizationMiddleware(InboundAuthorizer(apiKeys: ["k-123": "ci"])))
/// router.get("/hello") { _, context in "hello \(context.principal?.name ?? "")" }
/// ```
public struct InboundAuthorizationMiddleware<Context: MultiAuthRequestContext>: RouterMiddleware {
    /// The largest body read to check a signature's payload hash (default 10 MiB); a longer
    /// one is answered 413.
    public let maxBodySize: Int
    let authorizer: InboundAuthorizer

    /// Creates the middleware.
    public init(_ authorizer: InboundAuthorizer, maxBodySize: Int = 10 << 20) {
        self.authorizer = authorizer
        self.maxBodySize = maxBodySize
    }

    /// Verifies `input` and calls `next` with the principal in the context, or answers the rejection.
    public func handle(_ input: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var request = input
        var body: [UInt8]?
        if authorizer.needsBody(request.head) {
            guard let buffer = try? await request.collectBody(upTo: maxBodySize) else {
                return Response(.bodyTooLarge(limit: maxBodySize), logger: context.logger)
            }
            body = Array(buffer.readableBytesView)
        }
        switch await authorizer.authorize(request.head, body: body) {
        case .failure(let rejection):
            return Response(rejection, logger: context.logger)
        case .success(let principal):
            var context = context
            context.principal = principal
            return try await next(request, context)
        }
    }
}

extension Response {
    /// The answer to a request `rejection` turned away, as API Gateway gives it; the
    /// rejection's status and reason (never a secret) are logged at info level.
    public init(_ rejection: InboundRejection, logger: Logger) {
        logger.info("request rejected", metadata: ["status": "\(rejection.status.code)", "reason": "\(rejection.reason)"])
        self.init(
            status: rejection.status, headers: rejection.responseHead.headerFields,
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: rejection.body)))
    }
}
