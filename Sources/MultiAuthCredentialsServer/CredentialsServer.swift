import Hummingbird
public import Logging
public import MultiAuthCore
public import MultiAuthCredentials
import MultiAuthServerGuards
import NIOCore
public import ServiceLifecycle

/// A local endpoint that hands out the credentials of a `CredentialsProvider` to programs
/// that only know the AWS SDKs' own sources: the container credentials endpoint
/// (`AWS_CONTAINER_CREDENTIALS_FULL_URI` with `AWS_CONTAINER_AUTHORIZATION_TOKEN`) or an EC2
/// instance metadata service (IMDSv2, at `AWS_EC2_METADATA_SERVICE_ENDPOINT`). Each request
/// gets current credentials from the provider (refreshed as it refreshes them), so a
/// long-running client never holds expired keys.
///
/// Run it as a ServiceLifecycle `Service`, or call ``run()`` in a task and cancel the task
/// to stop it. It binds 127.0.0.1 by default, and needs no root.
public struct CredentialsServer: Service {
    /// Which endpoint it emulates.
    public enum Kind: Sendable {
        /// The container credentials endpoint: every request must carry `authorizationToken`
        /// in `Authorization` (401 without one, 403 with another).
        case container(authorizationToken: String)
        /// IMDSv2: a token from `PUT /latest/api/token` is required on every other request,
        /// `iam/security-credentials/` names `roleName`, and `placement/region` says `region`.
        case instanceMetadata(roleName: String, region: String?)
    }

    let kind: Kind
    let credentials: any CredentialsProvider
    let host: String
    let port: Int
    let clock: TimeSource
    let logger: Logger
    let user: UInt32?
    let webIdentityTokens: WebIdentityTokens?
    let onListening: @Sendable (Int) async -> Void

    /// A server for `kind` on `host`:`port` (0: a free port, told to `onListening` once the
    /// port is open) serving `credentials`. With `user`, only that local user's programs are
    /// served (the owner of the client's loopback socket, from the kernel's socket tables);
    /// every server answers only requests whose `Host` is an IP address or `localhost`. With
    /// `webIdentityTokens`, the container endpoint also answers `GET /web-identity-token?audience=A`
    /// (repeatable; `signing_algorithm`, `duration`) with `{"Token", "Expiration"}`.
    public init(
        _ kind: Kind, credentials: any CredentialsProvider, host: String = "127.0.0.1", port: Int = 0, clock: TimeSource = .system,
        logger: Logger = .disabled, user: UInt32? = nil, webIdentityTokens: WebIdentityTokens? = nil,
        onListening: @escaping @Sendable (_ port: Int) async -> Void = { _ in }
    ) {
        self.webIdentityTokens = webIdentityTokens
        self.kind = kind
        self.credentials = credentials
        self.host = host
        self.port = port
        self.clock = clock
        self.logger = logger
        self.user = user
        self.onListening = onListening
    }

    /// How long a connection may sit idle, and how long a request head may take to arrive
    /// whole (a client trickling it holds a connection no longer).
    static let idleTimeout = TimeAmount.seconds(10)

    /// Serves until the task is cancelled or a graceful shutdown is triggered.
    public func run() async throws {
        let responder = CredentialsResponder(
            endpoint: endpoint, credentials: credentials, clock: clock, logger: logger, user: user, webIdentityTokens: webIdentityTokens)
        let onListening = self.onListening
        let app = Application(
            responder: responder,
            server: .http1(configuration: .init(additionalChannelHandlers: [RequestHeadDeadline(limit: Self.idleTimeout)], idleTimeout: Self.idleTimeout)),
            configuration: .init(address: .hostname(host, port: port), serverName: "multiauth-credentials"),
            onServerRunning: { channel in await onListening(channel.localAddress?.port ?? 0) }, logger: logger)
        try await app.run()
    }

    private var endpoint: any CredentialsEndpoint {
        switch kind {
        case .container(let token): ContainerEndpoint(token: token)
        case .instanceMetadata(let role, let region): InstanceMetadataEndpoint(roleName: role, region: region, clock: clock)
        }
    }
}
