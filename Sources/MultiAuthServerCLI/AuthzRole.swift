import ArgumentParser
import Logging
import MultiAuthCLI
import MultiAuthExtAuthzGRPC
import MultiAuthForwardingCLI
import MultiAuthReverseProxy
import ServiceLifecycle

extension AuthzContract.Proxy: ExpressibleByArgument {}

/// `multiauth authz`'s own options.
struct AuthzOptions: ParsableArguments {
    @Option(help: """
        The proxy that asks: nginx (X-Original-Method, X-Original-URI, X-Original-Host), caddy or traefik \
        (X-Forwarded-Method, -Uri, -Host, -Proto), envoy (the request itself, after --path-prefix). Only its fields are \
        read: another proxy's would be the client's own.
        """)
    var proxy: AuthzContract.Proxy
    @Flag(help: """
        When the proxy does not send the body (nginx auth_request, Caddy forward_auth): take a signed x-amz-content-sha256 \
        as the body's hash. The signature then proves the client sent that hash, not that the body the upstream gets has it; \
        without this flag such a request is refused. UNSIGNED-PAYLOAD and body-less requests verify either way.
        """)
    var trustSignedPayloadHash = false
    @Option(help: "With --proxy envoy: the prefix ext_authz's path_prefix puts before the client's path; it is taken off before verifying.")
    var pathPrefix = ""
    @Option(help: """
        Also answer Envoy's ext_authz over gRPC (envoy.service.auth.v3.Authorization/Check; Istio's CUSTOM provider) on this \
        IP:PORT, whatever --proxy is; with the same TLS as --listen. Set the filter's with_request_body with pack_as_bytes: \
        true for signed bodies.
        """)
    var grpcListen: String?

    func validate() throws {
        if !pathPrefix.isEmpty, proxy != .envoy { throw ValidationError("--path-prefix is for --proxy envoy") }
        if let grpcListen { _ = try ListenAddress(grpcListen, flag: "--grpc-listen") }
    }
}

/// `multiauth authz`: the gateway's verification as the auth service of a proxy that forwards
/// itself (`verifyingCommand(AuthzRole.self)`).
enum AuthzRole: VerifyingRole {
    static let configuration = CommandConfiguration(
        commandName: "authz",
        abstract: ServerCommand.authz.abstract,
        discussion: """
            Answers the auth requests of the --proxy named: nginx auth_request, Caddy forward_auth, Traefik ForwardAuth or \
            Envoy ext_authz over HTTP (and over gRPC with --grpc-listen): 200 with X-MultiAuth-Principal and X-MultiAuth-Mode for a request that passes, API Gateway's \
            status, x-amzn-ErrorType and JSON message for one that does not. nginx turns any answer but 2xx, 401 and 403 into \
            500: a usage plan's 429 needs the error_page in docs/authz.md. Nothing is forwarded. Let only the proxy reach \
            this service: whoever calls it names the request it decides on.
            """)
    static let name = "authz"
    static let forwards = false
    static func contract(_ options: AuthzOptions) -> AuthzContract? {
        AuthzContract(proxy: options.proxy, pathPrefix: options.pathPrefix, trustsSignedPayloadHash: options.trustSignedPayloadHash)
    }

    /// With `--grpc-listen`: the gRPC ext_authz listener, reading Envoy's contract.
    static func companions(
        _ options: AuthzOptions, server: ServerOptions, logger: Logger, gateway: (AuthzContract) -> VerifyingGateway
    ) throws -> [any Service] {
        guard let grpcListen = options.grpcListen else { return [] }
        let address = try ListenAddress(grpcListen, flag: "--grpc-listen")
        let contract = AuthzContract(proxy: .envoy, trustsSignedPayloadHash: options.trustSignedPayloadHash)
        let service = AuthorizationService(gateway: gateway(contract), logger: logger)
        let security: ExtAuthzServer.Security =
            if let cert = server.tlsCert, let key = server.tlsKey { .tls(certificateChain: cert, privateKey: key, clientCA: server.tlsClientCa) } else { .plaintext }
        let scheme = server.tlsCert == nil ? "h2c" : "h2"
        return [
            ExtAuthzServer(service, host: address.host, port: address.port, security: security) { host, port in
                StandardError.emit("multiauth authz: gRPC ext_authz listening on \(scheme)://\(host):\(port)")
            }
        ]
    }
}
