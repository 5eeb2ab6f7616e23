import MultiAuthCLI
import ArgumentParser
import Authorization
import HTTPTransport
import HTTPTypes
import Hummingbird
import ReverseProxy
import CredentialProviders
import MultiAuthCore

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

    func validate() throws {
        try ArgumentChecks.count(maxBody, "--max-body", in: 0...(5 << 30))
        if unsignedPayload, access.auth != .iam { throw ValidationError("--unsigned-payload needs --auth iam") }
        if unsignedPayload, upload.chunked { throw ValidationError("--unsigned-payload and --chunked are exclusive") }
    }

    func run() async throws {
        let logger = TraceLog.logger(verbose: verbose)
        let address = try ListenAddress(server.listen)
        let host: String
        do { host = try HTTPRequest(method: .get, wireURL: server.upstream).wireHost } catch { throw CLIError("--upstream", error) }
        let payloadSigning = unsignedPayload ? .unsigned : try upload.payloadSigning(auth: access.auth)
        let authorizer = try await access.authorizer(forHost: host, logger: logger, payloadSigning: payloadSigning)
        let observability = try Observability(server.observe, decision: .signature)
        let mode = access.auth.modeName
        try await LocalServer.withUpstreamSender(server) { transport in
            let client = AuthorizedHTTPClient(transport: transport, authorizer: authorizer, retry: .once, logger: logger)
            let responder: SigningProxyResponder
            do throws(ReverseProxyError) {
                responder = try SigningProxyResponder(
                    upstream: server.upstream, client: client, maxBodySize: maxBody, spoolThreshold: upload.chunked ? 0 : 1 << 20,
                    metrics: observability.metrics, mode: mode)
            } catch { throw CLIError("--upstream", error) }
            let inline = responder.inlineForwarding(timeout: server.upstreamTimeout, logger: logger)
            try await LocalServer.run(
                responder, inline: inline, listen: address, options: server, name: "multiauth-proxy", detail: "auth \(access.auth.rawValue)",
                observability: observability, identify: { _ in (mode, "-") }, problem: { await Self.credentialProblem(authorizer) },
                logger: logger)
        }
    }

    /// Why the proxy cannot sign now (its credentials cannot be had within 5 s), or nil.
    static func credentialProblem(_ authorizer: any RequestAuthorizer) async -> String? {
        guard let iam = authorizer as? IAMAuthorizer else { return nil }
        let outcome = await Deadline.run(seconds: 5) { () async -> String? in
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
