package import MultiAuthInboundAuthorization
import Synchronization

/// The gateway's authorizer, replaceable while it serves: a reload (SIGHUP) swaps in one
/// built from the re-read keys, and each request uses the one current when it arrived, from
/// its first decision to its last.
package final class CurrentAuthorizer: Sendable {
    private let value: Mutex<InboundAuthorizer>

    /// Starts with `authorizer`.
    package init(_ authorizer: InboundAuthorizer) { value = Mutex(authorizer) }

    /// The authorizer now.
    package var current: InboundAuthorizer { value.withLock { $0 } }

    /// Replaces it; requests already under way keep the one they took.
    package func replace(with authorizer: InboundAuthorizer) { value.withLock { $0 = authorizer } }
}
