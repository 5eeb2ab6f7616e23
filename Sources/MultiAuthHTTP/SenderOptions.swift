/// Transport settings every ``HTTPSender`` of this package honours.
public struct SenderOptions: Sendable {
    /// How long connecting may take.
    public var connectTimeout: Duration = .seconds(10)
    /// How long the whole transfer may take (zero: no bound).
    public var totalTimeout: Duration = .zero
    /// A transfer during which no byte moves for this long fails as timed out (curl's
    /// `--speed-time`, whole seconds; zero: never), so a server that accepts and never
    /// answers cannot hold a caller forever.
    public var stallTimeout: Duration = .seconds(60)
    /// A CA bundle file instead of the system's.
    public var caBundle: String?
    /// Verify the server's certificate and host name (leave on outside tests).
    public var verifiesTLS = true

    /// Default options.
    public init() {}

    /// Options with a whole-transfer bound, for calls that fetch a small answer (tokens,
    /// credentials, GraphQL).
    public static func bounded(total limit: Duration) -> SenderOptions {
        var options = SenderOptions()
        options.totalTimeout = limit
        return options
    }
}
