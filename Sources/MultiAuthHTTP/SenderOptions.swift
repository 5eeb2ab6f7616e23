/// Transport settings every ``HTTPSender`` of this package honours.
public struct SenderOptions: Sendable {
    /// Connection timeout in seconds.
    public var connectTimeout: Double = 10
    /// Whole-transfer timeout in seconds (0: none).
    public var totalTimeout: Double = 0
    /// A transfer during which no byte moves for this many seconds fails as timed out
    /// (curl's `--speed-time`; 0: never), so a server that accepts and never answers
    /// cannot hold a caller forever.
    public var stallTimeout: Double = 60
    /// A CA bundle file instead of the system's.
    public var caBundle: String?
    /// Verify the server's certificate and host name (leave on outside tests).
    public var verifiesTLS = true

    /// Default options.
    public init() {}

    /// Options with a whole-transfer bound, for calls that fetch a small answer (tokens,
    /// credentials, GraphQL).
    public static func bounded(total seconds: Double) -> SenderOptions {
        var options = SenderOptions()
        options.totalTimeout = seconds
        return options
    }
}
