public import Logging
public import MultiAuthCore
public import MultiAuthHTTP
public import MultiAuthSigV4
import Synchronization

/// The time requests are signed for: the local clock plus an offset learned from a server
/// that rejected a signing time (RequestTimeTooSkewed, RequestExpired, RequestInTheFuture,
/// InvalidSignatureException "Signature expired"/"not yet current"), read from its `Date`.
/// Shared by every request of one client, so a correction made once holds for the rest.
public final class SigningClock: Sendable {
    private let clock: TimeSource
    private let logger: Logger
    private let skew = Mutex<Double>(0)

    /// A clock starting from `clock`; `logger` gets a debug line for each correction.
    public init(clock: TimeSource = .system, logger: Logger = .disabled) {
        self.clock = clock
        self.logger = logger
    }

    /// The offset learned from the server (server minus local).
    public var offset: Duration { .milliseconds(Int64((skewSeconds * 1000).rounded())) }

    private var skewSeconds: Double { skew.withLock { $0 } }

    /// The time source it corrects, whose sleep retries wait with.
    package var source: TimeSource { clock }

    /// The time a request authorized now is signed for.
    public func signingDate() -> SigningDate {
        SigningDate(secondsSince1970: Int64((clock.now() + skewSeconds).rounded(.down)))
    }

    /// Learns the offset from `response` when it rejects the signing time; true when it did,
    /// so that a request authorized again carries the corrected time.
    public func learn(from response: ReceivedResponse) -> Bool {
        guard let offset = ServerErrors.skewOffset(response, now: clock.now()) else { return false }
        logger.debug("signing time rejected; signing again", metadata: ["clock-offset-seconds": "\(offset)", "status": "\(response.status)"])
        skew.withLock { $0 = offset }
        return true
    }
}
