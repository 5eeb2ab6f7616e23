package import MultiAuthAsyncHTTPClient
import MultiAuthCLI
import MultiAuthCore
import MultiAuthHTTP

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The senders of `multiauth-server`'s outbound calls: the gateway's own (request
/// authorizers, OpenID discovery, JWKS) and the commands' (AppSync, Events, the credentials
/// chain). AsyncHTTPClient on the server's event loops, so a slow authorizer holds a
/// connection, not a thread. Each call is bounded by its sender's total timeout. They live as
/// long as the process (its event loops do too), so they are never shut down.
package enum ServerSenders {
    /// Request authorizers: 10 s a call, as API Gateway waits for a Lambda authorizer.
    package static let authorizers = AsyncHTTPClientSender(options: .bounded(total: .seconds(10)), connectionsPerHost: 32)
    /// OpenID discovery and key sets: 30 s a call.
    package static let keySets = AsyncHTTPClientSender(options: .bounded(total: .seconds(30)))
    /// The commands' calls: `multiauth`'s default time limit a call, and the CA bundle
    /// `AWS_CA_BUNDLE` names, as `multiauth`'s own sender reads it.
    package static let commands: AsyncHTTPClientSender = {
        var options = SenderOptions.bounded(total: .clamped(seconds: CommandTimeout.defaultSeconds))
        if let bundle = ProcessInfo.processInfo.environment["AWS_CA_BUNDLE"], !bundle.isEmpty { options.caBundle = bundle }
        return AsyncHTTPClientSender(options: options)
    }()
}
