import Synchronization

/// The retry quota one client's calls share (botocore's `RetryQuota`: 500 to start).
package final class RetryQuota: Sendable {
    private let available = Mutex(500)
    static let capacity = 500
    /// What a retry takes.
    package static let retryCost = 5
    /// What a retry after a timeout takes.
    package static let timeoutRetryCost = 10

    /// A full quota.
    package init() {}

    /// Takes `amount` for a retry; false when the quota is spent.
    package func acquire(_ amount: Int) -> Bool {
        available.withLock { left in
            guard amount <= left else { return false }
            left -= amount
            return true
        }
    }

    /// Gives `amount` back, up to the capacity.
    package func release(_ amount: Int) { available.withLock { $0 = min(Self.capacity, $0 + amount) } }

    /// What is left.
    package var remaining: Int { available.withLock { $0 } }
}
