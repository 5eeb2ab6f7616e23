package import ArgumentParser
import HTTPTypes
import Hummingbird
import Logging
import MultiAuthCLI
import MultiAuthCore
import MultiAuthInboundAuthorization
import MultiAuthReverseProxy
import MultiAuthSigV4
import MultiAuthStore
import MultiAuthTokens

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `multiauth gateway`: a verifying gateway in front of one upstream, as API Gateway would stand.
typealias GatewayCommand = VerifyingCommand<GatewayRole>

/// The command that verifies requests as `Role` has it, with the gateway's options
/// (`multiauth-server`'s `authz`).
package func verifyingCommand<Role: VerifyingRole>(_ role: Role.Type) -> any AsyncParsableCommand.Type {
    VerifyingCommand<Role>.self
}

/// The commands that verify requests as API Gateway does, with the same options: the gateway
/// forwards what passes, the auth service answers its proxy.
struct VerifyingCommand<Role: VerifyingRole>: AsyncParsableCommand {
    static var configuration: CommandConfiguration { Role.configuration }

    @OptionGroup var role: Role.Options
    @OptionGroup var server: ServerOptions
    @Option(help: ArgumentHelp("A JSON file {\"ACCESS_KEY_ID\": \"secret\", …} of the key pairs whose signatures pass (mode 0600)." + SystemdCredential.helpSuffix), transform: SystemdCredential.path)
    var iamCredentials: String?
    @Option(help: "Read the key pairs whose signatures pass from the credential store: every item of this service name, its account being the access key id ('multiauth store set SERVICE AKID' stores one). Read at start, again whenever the store changes (see --refresh-interval), and on SIGHUP.")
    var iamStore: String?
    @Option(help: "With --iam-store or --api-key-store: how often, in seconds, to look whether the store changed (a file's stat, a version lookup on AWS; it is read only when it changed), so a key added or removed with 'multiauth store' passes or is refused within this time; 0: only on SIGHUP. Default: 1 for a store file, 30 for Secrets Manager and SSM; a PostgreSQL store is followed through LISTEN/NOTIFY at once, and looked at this often besides. A store that cannot be read keeps the last good table.")
    var refreshInterval: Double?
    @Option(help: "Read accepted API keys from the credential store: every item of this service name, its account being the key's name and its secret the key. Followed as --iam-store is.")
    var apiKeyStore: String?
    @OptionGroup var store: StoreOptions
    @OptionGroup var storeEnvironment: EnvironmentOptions
    @Option(name: .customLong("api-key"), help: "An accepted API key, as NAME=KEY or NAME=@FILE (repeatable); the name is forwarded, never the key.")
    var apiKeys: [String] = []
    @Option(help: ArgumentHelp("A JSON file {\"NAME\": \"KEY\", …} of accepted API keys (mode 0600), re-read on SIGHUP with --iam-credentials." + SystemdCredential.helpSuffix), transform: SystemdCredential.path)
    var apiKeyFile: String?
    @Option(help: "JWKS URL of the user pool or OIDC provider whose tokens pass (with --issuer and --audience).") var jwksUrl: String?
    @Option(help: "The accepted JWT issuer.") var issuer: String?
    @Option(help: "The accepted JWT audience (the app client id).") var audience: String?
    @Option(help: """
        An API Gateway definition to serve (OpenAPI 3.0, JSON or YAML, with x-amazon-apigateway-* extensions): routes, \
        per-operation security, http_proxy integrations (each route's upstream), requestParameters and CORS; unknown \
        routes get 403 Missing Authentication Token. The keys above are what its schemes check. Re-read on SIGHUP.
        """)
    var api: String?
    @Option(help: """
        With --api: usage plans (JSON or YAML, {"usagePlans": [{"name", "throttle": {"rateLimit", "burstLimit"}, "methodThrottles": \
        {"GET /pets": …}, "quota": {"limit", "period": DAY|WEEK|MONTH, "offset"}, "apiKeys": [NAME, …]}]}): a token bucket per key \
        and route (429 Too Many Requests), a quota per key (429 Limit Exceeded); a key in no plan is refused. Re-read on SIGHUP.
        """)
    var usagePlans: String?
    @Option(help: """
        With --usage-plans: where quota counts are kept (0600), so they survive a restart; without it they start again at each \
        start. With a PostgreSQL --store, quotas are counted there instead, shared exactly by every gateway of the fleet.
        """)
    var usageState: String?
    @Flag(help: """
        With --usage-state: when its file cannot be read as usage counts, keep it beside as FILE.unreadable-SECONDS and count \
        from zero (without this flag such a file stops the start).
        """)
    var usageStateReset = false
    @Option(help: "With --api: the account in method ARNs that request authorizers' policies are checked against.") var accountId = "123456789012"
    @Option(help: "With --api: the API id in method ARNs.") var apiId = "multiauth"
    @Option(help: "With --api: the stage in method ARNs.") var stage = "local"
    @Option(help: "Region signatures must be scoped to.", transform: regionArgument) var region = "us-east-1"
    @Option(help: "Service signatures must be scoped to.") var service = "execute-api"
    @Option(help: "The largest request body accepted, in bytes (API Gateway's 10 MiB by default; bodies over 1 MiB are hashed into a 0600 temporary file as they arrive, never held in memory).")
    var maxBody = 10 << 20
    @Flag(name: .shortAndLong, help: "Log each request's outcome on standard error.") var verbose = false

    func validate() throws {
        try ArgumentChecks.count(maxBody, "--max-body", in: 0...(5 << 30))
        if let refreshInterval { try ArgumentChecks.seconds(refreshInterval, "--refresh-interval", in: 0...86_400) }
        if Role.forwards, server.upstream == nil, api == nil { throw ValidationError("--upstream is required (or --api, whose routes name theirs)") }
        if usagePlans != nil, api == nil { throw ValidationError("--usage-plans needs --api") }
    }

    func run() async throws {
        server.sizeEventLoops()
        let logger = TraceLog.logger(verbose: verbose)
        let keyStore = iamStore == nil && apiKeyStore == nil ? nil : try await StoreOptions.reportingErrors { try await store.open() }
        let tls = try server.upstreamTLS()
        let (authorizer, parts) = try await makeAuthorizer(keyStore, starting: true)
        let observability = try Observability(server.observe, decision: .verification)
        let metrics = observability.metrics
        let shared = try sharedUsageCount()
        let limits = try usagePlans.map { path in
            let plans = try GatewayAPIDefinition.usagePlans(path, apiKeys: parts.apiKeys)
            do throws(ReverseProxyError) {
                return try UsageLimits(plans, stateFile: usageState, resetState: usageStateReset, shared: shared, logger: logger)
            } catch { throw CLIError("--usage-state", "\(error); --usage-state-reset keeps it aside and counts from zero") }
        }
        if limits != nil, usageState == nil, shared == nil {
            StandardError.emit("multiauth \(Role.name): warning: quota counts start again at each start (no --usage-state, no PostgreSQL --store)")
        }
        var policy: APIGatewayPolicy?
        if let api { policy = try await GatewayAPIDefinition.policy(api, authorizer: parts, tls: tls, deployment: deployment, usage: limits, metrics: metrics) }
        guard !authorizer.modes.isEmpty || policy != nil else {
            throw CLIError(message: "give at least one of --iam-credentials, --iam-store, --api-key, --api-key-file, --api-key-store, or --jwks-url with --issuer and --audience")
        }
        let authorizers = CurrentAuthorizer(authorizer)
        let apiPolicy = policy.map { CurrentAPIPolicy($0) }
        let address = try ListenAddress(server.listen)
        let modes = policy.map { "API \($0.routeCount) routes" } ?? authorizer.modes.map(\.rawValue).joined(separator: ", ")
        let forwarder: UpstreamForwarder
        do throws(ReverseProxyError) {
            forwarder = try UpstreamForwarder(
                upstream: server.upstream ?? policy?.firstUpstream ?? Role.placeholderUpstream, maxBodySize: maxBody, spoolBudget: server.spoolBudget(maxBody: maxBody))
        } catch {
            throw CLIError("--upstream", error)
        }
        let gateway = VerifyingGateway(
            authorizers: authorizers, forwarder: forwarder, metrics: observability.metrics, api: apiPolicy, authz: Role.contract(role))
        let companions = try Role.companions(role, server: server, logger: logger) { contract in
            VerifyingGateway(authorizers: authorizers, forwarder: forwarder, metrics: observability.metrics, api: apiPolicy, authz: contract)
        }
        let forwarding = Forwarding(route: gateway.route(tls: tls, logger: logger), timeout: server.upstreamTimeout, logger: logger)
        let interval = refreshInterval ?? store.defaultRefreshInterval
        let changes = keyStore.flatMap { opened in interval > 0 ? opened.backend.changes(pollingEvery: .clamped(seconds: interval)) : nil }
        let reloading = { @Sendable in try await reload(keyStore, into: authorizers, api: apiPolicy, limits: limits, tls: tls, metrics: metrics) }
        let counting = Task { await limits?.keepWritten() }
        defer {
            counting.cancel()
            limits?.flush()
        }
        try await HangUpReload.whileServing(name: "multiauth \(Role.name)", watching: changes, reload: reloading) {
            try await LocalServer.run(
                forwarding, listen: address, options: server, name: "multiauth-\(Role.name)", detail: "modes \(modes)", observability: observability,
                companions: companions,
                identify: { head in
                    let presented = authorizers.current.presented(head)
                    return (presented.mode?.rawValue ?? "NONE", presented.principal ?? "-")
                },
                logger: logger)
        }
    }

    /// With usage plans and a PostgreSQL `--store`: quotas counted in its database.
    private func sharedUsageCount() throws -> UsageLimits.SharedCount? {
        guard usagePlans != nil, StoreOptions.isPostgres(store.storePath) else { return nil }
        let additions = try GatewayAdditions.required(by: "--usage-plans")
        let opened: any StoreBackend
        do { opened = try store.backend() } catch let error as StoreError { throw CLIError("--store", error) }
        return additions.sharedUsageCount(opened)
    }

    /// Where `--api`'s definition is deployed, for method ARNs.
    private var deployment: APIDeployment { APIDeployment(region: region, account: accountId, apiId: apiId, stage: stage) }

    /// Builds the authorizer (and the API definition's policy) again from the files and swaps
    /// them in together; what they hold, for the log. A definition that cannot be read keeps
    /// both as they were.
    private func reload(
        _ keyStore: CredentialStore?, into authorizers: CurrentAuthorizer, api current: CurrentAPIPolicy?, limits: UsageLimits?, tls: UpstreamTLS,
        metrics: ServerMetrics?
    ) async throws -> String {
        let (fresh, parts) = try await makeAuthorizer(keyStore, starting: false)
        let plans = try usagePlans.map { try GatewayAPIDefinition.usagePlans($0, apiKeys: parts.apiKeys) }
        var policy: APIGatewayPolicy?
        if let api { policy = try await GatewayAPIDefinition.policy(api, authorizer: parts, tls: tls, deployment: deployment, usage: limits, metrics: metrics) }
        if let plans { limits?.update(plans) }
        authorizers.replace(with: fresh)
        if let policy { current?.replace(with: policy) }
        return policy.map { "API \($0.routeCount) routes" } ?? "modes \(fresh.modes.map(\.rawValue).joined(separator: ", "))"
    }

    /// The authorizer from the options' files and store, and its key pairs and API keys for an
    /// API definition. At start, a store service with no item is an error (a mistyped name);
    /// later, it is a table with every key revoked.
    private func makeAuthorizer(_ keyStore: CredentialStore?, starting: Bool) async throws -> (InboundAuthorizer, InboundAuthorizerParts) {
        var secrets = try iamCredentials.map(Self.readCredentials) ?? [:]
        if let iamStore, let keyStore {
            try await secrets.merge(storedItems(service: iamStore, in: keyStore, flag: "--iam-store", required: starting)) { file, _ in file }
        }
        let verifier = secrets.isEmpty ? nil : SigV4Verifier(
            region: region, service: service, allowedSkew: Self.allowedSkew, credentials: secrets.mapValues { VerifierCredential(secretAccessKey: $0) })
        let tokens = try await tokenCheck()
        var keys = try Self.apiKeyTable(apiKeys)
        if let apiKeyFile { try keys.merge(Self.readAPIKeys(apiKeyFile)) { argument, _ in argument } }
        if let apiKeyStore, let keyStore {
            let named = try await storedItems(service: apiKeyStore, in: keyStore, flag: "--api-key-store", required: starting)
                .filter { !$0.value.isEmpty }
            keys.merge(named.map { ($0.value, $0.key) }) { earlier, _ in earlier }
        }
        return (InboundAuthorizer(verifier: verifier, apiKeys: keys, tokenValidator: tokens?.0, keySet: tokens?.1), InboundAuthorizerParts(verifier: verifier, apiKeys: keys))
    }

    /// The JWT check: the provider's key set, fetched now and again as it rotates its keys.
    private func tokenCheck() async throws -> (IDTokenValidator, JSONWebKeySetCache)? {
        guard let jwksUrl else {
            if issuer != nil || audience != nil { throw CLIError("--jwks-url", "--issuer and --audience need --jwks-url") }
            return nil
        }
        guard let issuer, let audience else { throw CLIError("--jwks-url", "needs --issuer and --audience") }
        let keySet: JSONWebKeySetCache
        do { keySet = try await JSONWebKeySetCache(url: jwksUrl, sender: ServerSenders.keySets) } catch {
            throw CLIError("--jwks-url", error)
        }
        return (IDTokenValidator(issuer: issuer, clientId: audience, keys: await keySet.keys(for: nil)), keySet)
    }

    /// The store's items of `service`, account → secret. An item made for another environment
    /// than `--environment` is left out with a warning naming it, so that a reload still
    /// applies every other change (a revocation among them). None is an error when `required`.
    private func storedItems(service: String, in store: CredentialStore, flag: String, required: Bool) async throws -> [String: String] {
        let environment = try storeEnvironment.parsed()
        let table = try await StoreOptions.reportingErrors {
            var table: [String: String] = [:]
            for item in try await store.list() where item.service == service {
                do {
                    let secret = try await store.get(service: service, account: item.account, environment: environment)
                    table[item.account] = String(decoding: secret, as: UTF8.self)
                } catch let error as StoreError where error.code == "Store.environmentMismatch" {
                    StandardError.emit("multiauth: warning: \(flag): item '\(service)'/'\(item.account)' was stored for another environment; left out")
                }
            }
            return table
        }
        guard !table.isEmpty || !required else { throw CLIError(flag, "the store holds no item of service '\(service)'") }
        return table
    }

    /// API Gateway's window for a signing time: 5 minutes either way.
    static var allowedSkew: Duration { .seconds(5 * 60) }

    /// `{"AKID": "secret"}` from a file only its owner can read.
    static func readCredentials(_ path: String) throws -> [String: String] {
        try readTable(path, flag: "--iam-credentials", what: "an object of access key ids and secrets")
    }

    /// `{"NAME": "KEY"}` from a file only its owner can read, as key → name.
    static func readAPIKeys(_ path: String) throws -> [String: String] {
        let named = try readTable(path, flag: "--api-key-file", what: "an object of API key names and keys")
        if let empty = named.first(where: { $0.value.isEmpty || $0.key.isEmpty }) {
            throw CLIError("--api-key-file", "'\(path)': the API key named '\(Redaction.quoted(empty.key, limit: 60))' is empty, or has no name")
        }
        return Dictionary(named.map { ($0.value, $0.key) }) { first, _ in first }
    }

    /// A non-empty JSON object of strings from a file only its owner can read.
    private static func readTable(_ path: String, flag: String, what: String) throws -> [String: String] {
        do { _ = try PathSafety.checkFile(path, forbiddenMode: 0o077) } catch { throw CLIError(flag, error) }
        let data: [UInt8]
        switch BoundedFileRead.contents(atPath: path, limit: BoundedFileRead.configLimit) {
        case .success(let bytes): data = bytes
        case .failure(let failure): throw CLIError(flag, "'\(path)' \(failure)")
        }
        let table: [String: String]
        do { table = try JSONDecoding.decode([String: String].self, from: data, what: "'\(path)'") } catch {
            throw CLIError(flag, "\(error.description) (\(what))")
        }
        guard !table.isEmpty else { throw CLIError(flag, "'\(path)' is empty (\(what))") }
        return table
    }

    /// `NAME=KEY` arguments as key → name.
    static func apiKeyTable(_ arguments: [String]) throws -> [String: String] {
        var table: [String: String] = [:]
        for argument in arguments {
            guard let equals = argument.firstIndex(of: "="), equals != argument.startIndex, argument.index(after: equals) != argument.endIndex else {
                throw CLIError("--api-key", "expected NAME=KEY")
            }
            let key = try CommandLineSecret.value(String(argument[argument.index(after: equals)...]), flag: "--api-key", alternative: nil)
            table[key] = String(argument[..<equals])
        }
        return table
    }
}
