import Synchronization

/// The spool space a server shares among the bodies it spools at once: a body that would
/// take more than is left is refused (``BodyError/spoolFull(body:limit:)``, answered 503),
/// so clients together cannot fill the disk, whatever each body's own limit.
public final class SpoolBudget: Sendable {
    /// The most bytes spooled at once.
    public let capacity: Int
    private let used = Atomic<Int>(0)

    /// A budget of `capacity` bytes.
    public init(capacity: Int) { self.capacity = max(0, capacity) }

    /// The bytes spooled now.
    public var inUse: Int { used.load(ordering: .relaxed) }

    /// Takes `count` bytes; false, taking nothing, when fewer are left.
    public func take(_ count: Int) -> Bool {
        var current = used.load(ordering: .relaxed)
        while true {
            guard current + count <= capacity else { return false }
            let (exchanged, original) = used.compareExchange(expected: current, desired: current + count, ordering: .relaxed)
            if exchanged { return true }
            current = original
        }
    }

    /// Gives back `count` bytes taken before.
    public func giveBack(_ count: Int) {
        guard count > 0 else { return }
        used.subtract(count, ordering: .relaxed)
    }
}
