import ArgumentParser
import Logging
import MultiAuthCLI
import MultiAuthCore
import MultiAuthCredentials
import MultiAuthCredentialsServer
import MultiAuthCrypto
import MultiAuthForwardingCLI
import ServiceLifecycle

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// `multiauth exec`: runs a program with credentials from the default chain, in its
/// environment or through a local credentials endpoint.
struct ExecCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "exec", abstract: ServerCommand.exec.abstract,
        discussion: """
            Without --server, the child gets AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN and \
            AWS_CREDENTIAL_EXPIRATION. With --server ecs it gets AWS_CONTAINER_CREDENTIALS_FULL_URI and a random \
            AWS_CONTAINER_AUTHORIZATION_TOKEN, with --server imds AWS_EC2_METADATA_SERVICE_ENDPOINT, and no keys: each \
            request gets current credentials, refreshed as needed. AWS_REGION and AWS_DEFAULT_REGION are set when a \
            region is known; with --server ecs and a region, the child can also GET the endpoint's \
            /web-identity-token?audience=A (with the same token; signing_algorithm, duration) for a JWT of its AWS identity \
            (STS GetWebIdentityToken). The exit status is the child's (128 + N when signal N ended it); SIGTERM, SIGHUP, SIGUSR1 \
            and SIGUSR2 are passed on to it, and SIGINT and SIGQUIT too when standard input is not a terminal (a \
            terminal sends those to the child itself).
            """)

    enum Server: String, ExpressibleByArgument, CaseIterable { case ecs, imds }

    @Option(help: "The shared-file profile (default: AWS_PROFILE, else the chain from the environment on).") var profile: String?
    @Option(help: "The region for the child (default: AWS_REGION, AWS_DEFAULT_REGION, the profile's, then the instance's).", transform: regionArgument)
    var region: String?
    @Option(help: "ecs: a container-credentials endpoint; imds: an IMDSv2 emulator; both on 127.0.0.1 and a free port. Default: keys in the environment.")
    var server: Server?
    @Option(help: "With --server ecs: listen on HOST:PORT instead (for containers); the token is still required.") var serverListen: String?
    @Option(help: "Time limit in seconds for resolving credentials before the child starts; exit 28 when it passes.")
    var maxTime: Double = CommandTimeout.defaultSeconds
    @OptionGroup var sessions: ProfileSessionOptions
    @OptionGroup var store: StoreOptions
    @Argument(parsing: .postTerminator, help: "The program and its arguments, after --.") var command: [String] = []

    func validate() throws {
        guard !command.isEmpty else { throw CLIError("--", "give the program to run after --, such as: multiauth exec --profile dev -- aws s3 ls") }
        if serverListen != nil, server != .ecs { throw CLIError("--server-listen", "only with --server ecs") }
        if let serverListen { _ = try ListenAddress(serverListen, flag: "--server-listen") }
        try ArgumentChecks.seconds(maxTime, "--max-time", in: 0.001...3_600)
    }

    func run() async throws {
        let chain = sessions.chain(profile: profile, store: store)
        let first = try await ChainCredentials.resolve(chain, maxTime: maxTime)
        var environment = ChildEnvironment(region: try await ChainCredentials.region(region, profile: profile))
        let status: Int32
        switch server {
        case nil:
            environment.setKeys(first)
            status = try await ChildProgram.run(command, environment: environment.values)
        case .ecs:
            let token = Base64.encodeURL(try SecureRandom.bytes(count: 32))
            let listen = try serverListen.map { try ListenAddress($0, flag: "--server-listen") } ?? ListenAddress(host: "127.0.0.1", port: 0)
            status = try await withServer(.container(authorizationToken: token), chain: chain, listen: listen, region: environment.region) { port in
                environment.setContainerEndpoint(url: "http://\(listen.clientHost):\(port)/credentials", token: token)
                return try await ChildProgram.run(command, environment: environment.values)
            }
        case .imds:
            let role = profile ?? "multiauth"
            status = try await withServer(
                .instanceMetadata(roleName: role, region: environment.region), chain: chain, listen: ListenAddress(host: "127.0.0.1", port: 0),
                region: nil
            ) { port in
                environment.setInstanceMetadataEndpoint(url: "http://127.0.0.1:\(port)")
                return try await ChildProgram.run(command, environment: environment.values)
            }
        }
        if status != 0 { throw ExitCode(status) }
    }

    /// Runs `body` with the port of a credentials server, which stops when `body` returns.
    private func withServer(
        _ kind: CredentialsServer.Kind, chain: any CredentialsProvider, listen: ListenAddress, region: String?, _ body: (Int) async throws -> Int32
    ) async throws -> Int32 {
        let (ports, portReady) = AsyncStream<Int>.makeStream()
        // On this machine's loopback, only this user's programs are served. A container
        // (--server-listen) connects from a network of its own, whose sockets this host's
        // tables do not list: there the authorization token is the check.
        let user = serverListen == nil ? UInt32(getuid()) : nil
        // With a region, the child can also ask for web identity tokens (outbound identity federation).
        let tokens = region.map { WebIdentityTokens(credentials: chain, region: $0, http: CommandTimeout.transport()) }
        let server = CredentialsServer(
            kind, credentials: chain, host: listen.host, port: listen.port, logger: TraceLog.logger(verbose: false), user: user,
            webIdentityTokens: tokens,
            onListening: { port in
                portReady.yield(port)
                portReady.finish()
            })
        let services = ServiceGroup(configuration: .init(services: [server], logger: TraceLog.logger(verbose: false)))
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                defer { portReady.finish() }
                try await services.run()
            }
            var iterator = ports.makeAsyncIterator()
            guard let port = await iterator.next() else {
                try await group.next()
                throw CLIError(message: "the credentials endpoint could not be started on \(listen.host):\(listen.port)")
            }
            let status = try await body(port)
            await services.triggerGracefulShutdown()
            try await group.waitForAll()
            return status
        }
    }
}

extension ListenAddress {
    /// The host a client on this machine connects to: loopback for a wildcard address.
    var clientHost: String { ["0.0.0.0", "::", "[::]", ""].contains(host) ? "127.0.0.1" : host }
}
