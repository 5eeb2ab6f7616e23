import Authorization
import HTTPTypes
import Hummingbird
import HTTPTransport
import Logging
import SigV4

/// The signing proxy: every request received goes to the upstream authorized in the chosen
/// mode (SigV4 through the credential chain, an API key, a token), so a client that cannot
/// sign (curl, a browser, a GraphQL IDE) can reach a protected API through it.
public struct SigningProxyResponder: HTTPResponder {
    let forwarder: UpstreamForwarder
    let authorizer: any RequestAuthorizer

    /// A proxy to `upstream` whose requests `client` authorizes and sends (once: a client's
    /// request is not retried behind its back). Bodies over `spoolThreshold` bytes, or without
    /// a `Content-Length`, are spooled to a file (pass 0 for an authorizer that streams files
    /// as `aws-chunked`).
    public init(upstream: String, client: AuthorizedHTTPClient, maxBodySize: Int = 10 << 20, spoolThreshold: Int = 1 << 20)
        throws(ReverseProxyError)
    {
        authorizer = client.authorizer
        forwarder = try UpstreamForwarder(upstream: upstream, maxBodySize: maxBodySize, spoolThreshold: spoolThreshold) { request, body, destination in
            try await client.send(request, body: body, responseBody: destination).response
        }
    }

    /// Authorizes and forwards.
    public func respond(to request: Request, context: BasicRequestContext) async throws -> Response {
        await forwarder.forward(request, principal: nil, logger: context.logger)
    }
}

extension SigningProxyResponder {
    /// Inline forwarding of body-less requests (``InlineForwarding``), authorized by the same
    /// authorizer; nil for IAM, whose requests keep the full path (a signing time the server
    /// rejects is corrected there, which needs the error response read whole), and for an
    /// https upstream. An authorization that fails is answered 502, as on the full path.
    public func inlineForwarding(timeout: Double, logger: Logger) -> InlineForwarding? {
        guard !(authorizer is IAMAuthorizer) else { return nil }
        return InlineForwarding(forwarder: forwarder, timeout: timeout, logger: logger) { [authorizer, forwarder] head in
            let request = forwarder.upstreamRequest(for: head, principal: nil)
            if let outcome = authorizer.authorizeWithoutSuspending(request) {
                return Self.decision(outcome, logger: logger)
            }
            return .later {
                do throws(AuthorizationError) {
                    return .forward(try await authorizer.authorize(request, body: .empty, at: .now()).request)
                } catch {
                    return Self.decision(.failure(error), logger: logger)
                }
            }
        }
    }

    private static func decision(_ outcome: Result<HTTPRequest, AuthorizationError>, logger: Logger) -> InlineForwarding.Decision {
        switch outcome {
        case .success(let request): return .forward(request)
        case .failure(let error):
            logger.warning("upstream failed", metadata: ["error": "\(error)"])
            return InlineForwarding.answer(.badGateway, "BadGatewayException", "Bad Gateway")
        }
    }
}
