import MultiAuthAsyncHTTPClient
import MultiAuthHTTP

/// The senders of the gateway's own outbound calls (request authorizers, OpenID discovery,
/// JWKS): AsyncHTTPClient on the server's event loops, so a slow authorizer holds a
/// connection, not a thread of the blocking pool that spools bodies, writes the access log
/// and runs PKCS#11. Each call is bounded by its sender's total timeout. They live as long as
/// the process (its event loops do too), so they are never shut down.
enum ServerSenders {
    /// Request authorizers: 10 s a call, as API Gateway waits for a Lambda authorizer.
    static let authorizers = AsyncHTTPClientSender(options: .bounded(total: .seconds(10)), connectionsPerHost: 32)
    /// OpenID discovery and key sets: 30 s a call.
    static let keySets = AsyncHTTPClientSender(options: .bounded(total: .seconds(30)))
}
