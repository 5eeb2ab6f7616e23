import ArgumentParser
import HTTPTypes
import Hummingbird
import MultiAuthAuthorization
import MultiAuthAWSClient
import MultiAuthCLI
import MultiAuthCore
import MultiAuthCredentials
import MultiAuthReverseProxy

/// `multiauth proxy`: a local proxy that authorizes every request it forwards.
struct ProxyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "proxy",
        abstract: ServerCommand.proxy.abstract,
        discussion: """
            The upstream gets its base path plus the received path and query, byte for byte, with \
            Host rewritten and hop-by-hop headers dropped; then the request is authorized as \
            'multiauth request' would (credential chain and refresh, saved logins, clock-skew \
            correction). Listens on 127.0.0.1 unless told otherwise: anyone who reaches the proxy \
            calls the API with your credentials. SIGINT or SIGTERM lets requests in flight finish.
            """)

    @OptionGroup var server: ServerOptions
    @OptionGroup var access: AuthorizationOptions
    @Option(help: "The largest request body accepted, in bytes (bodies over 1 MiB are spooled to a 0600 temporary file, never held in memory).")
    var maxBody = 5 << 30
    @Flag(help: "With --auth iam: sign UNSIGNED-PAYLOAD instead of each body's SHA-256, where the service allows it (S3 over HTTPS).")
    var unsignedPayload = false
    @OptionGroup var upload: ChunkedUploadOptions
    @Flag(name: .shortAndLong, help: "Log each request's signing stages (redacted) on standard error.") var verbose = false

    @Option(
        name: .customLong("route"),
        help: "HOST=UPSTREAM[,region=R][,service=S][,role-arn=A] (repeatable, instead of --upstream): requests whose Host is HOST go to UPSTREAM, signed for that region, service and role; any other Host is answered 421.")
    var routes: [String] = []

    @Option(help: "A host name clients may reach the proxy under, beside its address and localhost (repeatable): any other Host is refused, so a web page cannot reach it by DNS rebinding.")
    var allowHost: [String] = []
    @Option(help: "An origin (scheme://host[:port]) whose web pages may call through the proxy (repeatable): a request a browser sent from any other page is refused, since the proxy adds your credentials.")
    var allowOrigin: [String] = []

    func validate() throws {
        try ArgumentChecks.count(maxBody, "--max-body", in: 0...(5 << 30))
        if unsignedPayload, access.auth != .iam { throw ValidationError("--unsigned-payload needs --auth iam") }
        if unsignedPayload, upload.chunked { throw ValidationError("--unsigned-payload and --chunked are exclusive") }
        if routes.isEmpty == (server.upstream == nil) { throw ValidationError("give --upstream, or one --route or more") }
        for route in routes where try ProxyRoute(route).roleArn != nil && access.auth != .iam {
            throw ValidationError("--route: role-arn needs --auth iam")
        }
    }

    func run() async throws {
        server.sizeEventLoops()
        let logger = TraceLog.logger(verbose: verbose)
        let address = try ListenAddress(server.listen)
        let payloadSigning = unsignedPayload ? .unsigned : try upload.payloadSigning(auth: access.auth)
        let observability = try Observability(server.observe, decision: .signature)
        let mode = access.auth.modeName
        let table = try routes.isEmpty ? [ProxyRoute(host: "", upstream: server.upstream ?? "")] : routes.map(ProxyRoute.init)
        let tls = try server.upstreamTLS()
        let spoolBudget = server.spoolBudget(maxBody: maxBody)  // one for all routes
        var routed: [String: Forwarding.Route] = [:]
        var authorizers: [any RequestAuthorizer] = []
        for route in table {
            let authorizer = try await route.options(from: access).authorizer(
                forHost: try route.upstreamHost(), logger: logger, payloadSigning: payloadSigning)
            do throws(ReverseProxyError) {
                let proxy = try SigningProxy(
                    upstream: route.upstream, authorizer: authorizer, clock: SigningClock(logger: logger), maxBodySize: maxBody,
                    spoolThreshold: upload.chunked ? 0 : 1 << 20, metrics: observability.metrics, mode: mode,
                    replacingClientSignature: access.auth == .iam,
                    sites: CrossSitePolicy(hosts: allowHost + table.map(\.host).filter { !$0.isEmpty }, origins: allowOrigin),
                    spoolBudget: spoolBudget)
                routed[route.host] = proxy.route(tls: tls, logger: logger)
            } catch { throw CLIError(routes.isEmpty ? "--upstream" : "--route", error) }
            authorizers.append(authorizer)
        }
        let detail = "auth \(access.auth.rawValue)" + (routes.isEmpty ? "" : ", routes \(table.map(\.host).sorted().joined(separator: ", "))")
        let problem: @Sendable () async -> String? = { [authorizers] in
            for authorizer in authorizers { if let problem = await Self.credentialProblem(authorizer) { return problem } }
            return nil
        }
        try await LocalServer.run(
            Forwarding(routes: routed, timeout: server.upstreamTimeout, logger: logger), listen: address, options: server,
            name: "multiauth-proxy", detail: detail, observability: observability, identify: { _ in (mode, "-") }, problem: problem,
            logger: logger)
    }

    /// Why the proxy cannot sign now (its credentials cannot be had within 5 s), or nil.
    static func credentialProblem(_ authorizer: any RequestAuthorizer) async -> String? {
        guard let iam = authorizer as? IAMAuthorizer else { return nil }
        let outcome = await Deadline.run(for: .seconds(5)) { () async -> String? in
            do throws(CredentialsError) {
                _ = try await iam.credentialSource.credentials()
                return nil
            } catch {
                return "no usable credentials: \(error)"
            }
        }
        return outcome ?? "no usable credentials: none within 5 s"
    }
}

extension AuthorizationOptions.Auth {
    /// The mode's name as AppSync and API Gateway name it, for metrics labels.
    var modeName: String {
        switch self {
        case .iam: "AWS_IAM"
        case .apiKey: "API_KEY"
        case .userPools: "AMAZON_COGNITO_USER_POOLS"
        case .oidc: "OPENID_CONNECT"
        case .lambda: "AWS_LAMBDA"
        case .none: "NONE"
        }
    }
}

/// One `--route HOST=UPSTREAM[,region=R][,service=S][,role-arn=A]` (or `--upstream` alone:
/// host empty).
struct ProxyRoute {
    let host: String
    let upstream: String
    var region: String?
    var service: String?
    var roleArn: String?

    init(host: String, upstream: String) {
        self.host = host
        self.upstream = upstream
    }

    init(_ text: String) throws {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        guard let first = parts.first, let equals = first.firstIndex(of: "="), equals != first.startIndex else {
            throw CLIError("--route", "expected HOST=UPSTREAM[,region=R][,service=S][,role-arn=A]")
        }
        self.init(host: first[..<equals].lowercased(), upstream: String(first[first.index(after: equals)...]))
        for part in parts.dropFirst() {
            guard let sign = part.firstIndex(of: "=") else { throw CLIError("--route", "'\(part)' is not NAME=VALUE") }
            let value = String(part[part.index(after: sign)...])
            switch part[..<sign] {
            case "region": region = try regionArgument(value)
            case "service": service = value
            case "role-arn": roleArn = value
            default: throw CLIError("--route", "'\(part[..<sign])' is not region, service or role-arn")
            }
        }
    }

    /// The shared authorization options with this route's region, service and role.
    func options(from shared: AuthorizationOptions) -> AuthorizationOptions {
        var options = shared
        options.region = region ?? shared.region
        options.service = service ?? shared.service
        options.roleArn = roleArn ?? shared.roleArn
        return options
    }

    func upstreamHost() throws -> String {
        do { return try HTTPRequest(method: .get, wireURL: upstream).wireHost } catch { throw CLIError(host.isEmpty ? "--upstream" : "--route", error) }
    }
}
