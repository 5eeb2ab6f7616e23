import Authorization
import Hummingbird
import HTTPTransport

/// The signing proxy: every request received goes to the upstream authorized in the chosen
/// mode (SigV4 through the credential chain, an API key, a token), so a client that cannot
/// sign (curl, a browser, a GraphQL IDE) can reach a protected API through it.
public struct SigningProxyResponder: HTTPResponder {
    let forwarder: UpstreamForwarder

    /// A proxy to `upstream` whose requests `client` authorizes and sends (once: a client's
    /// request is not retried behind its back). Bodies over `spoolThreshold` bytes, or without
    /// a `Content-Length`, are spooled to a file (pass 0 for an authorizer that streams files
    /// as `aws-chunked`).
    public init(upstream: String, client: AuthorizedHTTPClient, maxBodySize: Int = 10 << 20, spoolThreshold: Int = 1 << 20)
        throws(ReverseProxyError)
    {
        forwarder = try UpstreamForwarder(upstream: upstream, maxBodySize: maxBodySize, spoolThreshold: spoolThreshold) { request, body, destination in
            try await client.send(request, body: body, responseBody: destination).response
        }
    }

    /// Authorizes and forwards.
    public func respond(to request: Request, context: BasicRequestContext) async throws -> Response {
        await forwarder.forward(request, principal: nil, logger: context.logger)
    }
}
