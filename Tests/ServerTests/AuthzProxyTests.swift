import Foundation
import IntegrationSupport
import MultiAuthCrypto
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `multiauth authz` as the auth service of the proxies people run: Debian's nginx
/// (`auth_request`) and Caddy (`forward_auth`), started here with the configs docs/authz.md
/// shows, in front of the echoing upstream. Requests are signed by botocore; what reaches the
/// upstream is read from its echo, and a refused request never reaches it.
@Suite(.timeLimit(.minutes(5)), .enabled(if: Peers.available && !Peers.upstream.isEmpty && !Peers.authorizer.isEmpty && EngineProcess.installed, Peers.reason))
struct AuthzProxyTests {
    static let keyId = "AKIDAUTHZTEST"
    static let secret = "authz-test-secret-not-real-0000000"

    /// The auth service, one proxy in front of the upstream, and this test's path prefix there.
    struct Fixture {
        let authz: GatewayProcess
        let engine: EngineProcess
        let prefix = "/t/\(UUID().uuidString.lowercased())"
        var base: String { engine.url + prefix }

        init(_ engine: Engine, authzArguments: [String] = []) throws {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("authz-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let credentials = folder.appendingPathComponent("keys.json")
            try Data(#"{"\#(AuthzProxyTests.keyId)": "\#(AuthzProxyTests.secret)"}"#.utf8).write(to: credentials)
            chmod(credentials.path, 0o600)
            authz = try GatewayProcess(
                ["authz", "--proxy", engine.rawValue, "--listen", "127.0.0.1:0", "--iam-credentials", credentials.path, "--api-key", "ci=authz-key-123", "-v"]
                    + authzArguments)
            self.engine = try EngineProcess(engine, folder: folder.path, authz: authz.url, upstream: Peers.upstream)
        }

        func stop() {
            engine.stop()
            #expect(authz.stop() == 0)
        }

        /// How many requests under this test's prefix reached the upstream.
        func arrivals() async throws -> Int {
            let answer = try await AuthzProxyTests.plain(Peers.upstream + "/_peer/count?prefix=" + prefix)
            return try #require(answer.echo?["count"] as? Int)
        }
    }

    enum Engine: String, CaseIterable, Sendable { case nginx, caddy }

    /// A botocore-signed call (or a plain one, with `signer` nil) through the proxy.
    static func call(_ url: String, _ extra: [String] = [], secret: String = secret, keyId: String = keyId) async throws -> GatewayTests.Outcome {
        try await GatewayTests.signedCall(["--signer", "botocore", "--url", url] + extra, secret: secret, keyId: keyId)
    }

    @Test(arguments: Engine.allCases)
    func signedCallsPassWithTheirPrincipalAndForgedOnesAreRefused(engine: Engine) async throws {
        let fixture = try Fixture(engine)
        defer { fixture.stop() }
        let get = try await Self.call(fixture.base + "/items?page=2")
        #expect(get.status == 200 && Self.echoed(get, "X-MultiAuth-Principal") == Self.keyId, "\(engine): \(get.echo ?? [:]) \(fixture.authz.log)")
        #expect(Self.echoed(get, "X-MultiAuth-Mode") == "AWS_IAM" && get.echo?["target"] as? String == fixture.prefix + "/items?page=2")
        // A POST whose signature says UNSIGNED-PAYLOAD: the body is the upstream's to judge.
        let post = try await Self.call(fixture.base + "/items", ["--method", "POST", "--body", #"{"n":1}"#, "--header", "X-Amz-Content-SHA256: UNSIGNED-PAYLOAD"])
        #expect(post.status == 200 && post.echo?["body_length"] as? Int == 7, "\(engine): \(post.echo ?? [:])")
        let before = try await fixture.arrivals()
        for (extra, secret, expected) in [
            (["--tamper", "path"], Self.secret, "InvalidSignatureException"), (["--tamper", "query"], Self.secret, "InvalidSignatureException"),
            ([], "a-wrong-secret", "InvalidSignatureException"),
        ] {
            let refused = try await Self.call(fixture.base + "/items", extra, secret: secret)
            #expect(refused.status == 403 && refused.errorType == expected, "\(engine) \(extra): \(refused.status) \(refused.errorType ?? "-")")
        }
        let unsigned = try await Self.plain(fixture.base + "/items")
        #expect(unsigned.status == 403 && unsigned.body == #"{"message":"Missing Authentication Token"}"#, "\(engine): \(unsigned.body)")
        #expect(unsigned.errorType == "MissingAuthenticationTokenException")
        #expect(try await fixture.arrivals() == before, "no refused request reached the upstream")
        let keyed = try await Self.plain(fixture.base + "/keyed", header: "x-api-key: authz-key-123")
        #expect(keyed.status == 200 && Self.echoed(keyed.outcome, "X-MultiAuth-Principal") == "ci", "\(engine): \(keyed.body)")
        let wrongKey = try await Self.plain(fixture.base + "/keyed", header: "x-api-key: not-a-key")
        #expect(wrongKey.status == 403 && wrongKey.body == #"{"message":"Forbidden"}"#, "\(engine): \(wrongKey.body)")
    }

    /// A user-pool ID token (moto's, as Cognito issues it) passes as its subject; a forged one
    /// gets API Gateway's 401, its body too through nginx (the docs' `error_page 401`).
    @Test(arguments: Engine.allCases)
    func aUserPoolTokenPassesAndAForgedOneGets401(engine: Engine) async throws {
        let setup = try #require(Peers.setup)
        let claims = try Base64.decode(try #require(setup.idToken.split(separator: ".").dropFirst().first))
        let payload = try #require(JSONSerialization.jsonObject(with: Data(claims)) as? [String: Any])
        let issuer = try #require(payload["iss"] as? String)
        let fixture = try Fixture(engine, authzArguments: ["--jwks-url", setup.jwksUrl, "--issuer", issuer, "--audience", setup.clientId])
        defer { fixture.stop() }
        let good = try await Self.plain(fixture.base + "/me", header: "Authorization: " + setup.idToken)
        #expect(good.status == 200 && Self.echoed(good.outcome, "X-MultiAuth-Mode") == "AMAZON_COGNITO_USER_POOLS", "\(engine): \(good.body)")
        #expect(Self.echoed(good.outcome, "X-MultiAuth-Principal") == payload["sub"] as? String)
        // The claims, as the auth service answers them for auth_request_set.
        let asked = try await Self.plain(fixture.authz.url + "/auth", headers: ["X-Original-URI: /me", "X-Forwarded-Method: GET", "X-Forwarded-Uri: /me", "Authorization: " + setup.idToken])
        #expect(asked.status == 200 && asked.headers["x-multiauth-claim-sub"] == payload["sub"] as? String, "\(asked.headers)")
        #expect(asked.headers["x-multiauth-claim-cognito-username"] == payload["cognito:username"] as? String)
        var parts = setup.idToken.split(separator: ".").map(String.init)
        parts[1] = Base64.encodeURL(Array(#"{"sub":"mallory","iss":"\#(issuer)","aud":"\#(setup.clientId)","exp":9999999999}"#.utf8))
        let forged = try await Self.plain(fixture.base + "/me", header: "Authorization: Bearer " + parts.joined(separator: "."))
        #expect(forged.status == 401 && forged.errorType == "UnauthorizedException" && forged.body == #"{"message":"Unauthorized"}"#, "\(engine): \(forged.body)")
    }

    /// An API definition's route and a usage plan's quota of one call a day: the second call
    /// gets API Gateway's 429 `Limit Exceeded`, through nginx too (which would make it a 500
    /// without the docs' `error_page 500`).
    @Test(arguments: Engine.allCases)
    func aUsagePlansQuotaIsPassedOnAs429(engine: Engine) async throws {
        let (folder, api) = try Self.scratch("authz-api")
        try Data("""
            openapi: 3.0.1
            info: {title: authz, version: "1"}
            paths:
              /t/{proxy+}:
                x-amazon-apigateway-any-method:
                  security: [{api_key: []}]
                  responses: {"200": {description: ok}}
                  x-amazon-apigateway-integration: {type: http_proxy, httpMethod: ANY, uri: "\(Peers.upstream)/t/{proxy}"}
            components:
              securitySchemes:
                api_key: {type: apiKey, name: x-api-key, in: header}
            """.utf8).write(to: api)
        let plans = folder.appendingPathComponent("plans.json")
        try Data(#"{"usagePlans": [{"name": "tiny", "quota": {"limit": 1, "period": "DAY"}, "apiKeys": ["ci"]}]}"#.utf8).write(to: plans)
        let fixture = try Fixture(engine, authzArguments: ["--api", api.path, "--usage-plans", plans.path])
        defer { fixture.stop() }
        let first = try await Self.plain(fixture.base + "/one", header: "x-api-key: authz-key-123")
        #expect(first.status == 200 && Self.echoed(first.outcome, "X-MultiAuth-Principal") == "ci", "\(engine): \(first.body) \(fixture.authz.log)")
        let second = try await Self.plain(fixture.base + "/two", header: "x-api-key: authz-key-123")
        #expect(second.status == 429 && second.body == #"{"message":"Limit Exceeded"}"#, "\(engine): \(second.status) \(second.body)")
        let unknown = try await Self.plain(fixture.engine.url + "/elsewhere", header: "x-api-key: authz-key-123")
        #expect(unknown.status == 403 && unknown.body == #"{"message":"Missing Authentication Token"}"#, "\(engine): \(unknown.body)")
    }

    /// An API definition's request authorizer (the Lambda-style peer) decides through the
    /// proxy: its policy's Allow reaches the upstream with its principal, its explicit Deny is
    /// API Gateway's 403, its 401 and a missing token are 401s, as API Gateway answers them.
    @Test(arguments: Engine.allCases)
    func aRequestAuthorizerDecidesThroughTheProxy(engine: Engine) async throws {
        let (_, api) = try Self.scratch("authz-lambda")
        try Data("""
            openapi: 3.0.1
            info: {title: authz-lambda, version: "1"}
            paths:
              /t/{proxy+}:
                x-amazon-apigateway-any-method:
                  security: [{lambda: []}]
                  responses: {"200": {description: ok}}
                  x-amazon-apigateway-integration: {type: http_proxy, httpMethod: ANY, uri: "\(Peers.upstream)/t/{proxy}"}
            components:
              securitySchemes:
                lambda:
                  type: apiKey
                  name: x-token
                  in: header
                  x-amazon-apigateway-authorizer: {type: request, identitySource: method.request.header.x-token, authorizerUri: "\(Peers.authorizer)", authorizerResultTtlInSeconds: 0}
            """.utf8).write(to: api)
        let fixture = try Fixture(engine, authzArguments: ["--api", api.path])
        defer { fixture.stop() }
        let token = UUID().uuidString.prefix(8)
        let allowed = try await Self.plain(fixture.base + "/pets", header: "x-token: open-\(token)")
        #expect(allowed.status == 200 && Self.echoed(allowed.outcome, "X-MultiAuth-Principal") == "bench", "\(engine): \(allowed.body) \(fixture.authz.log)")
        let denied = try await Self.plain(fixture.base + "/pets", header: "x-token: deny-\(token)")
        #expect(denied.status == 403 && denied.body == #"{"message":"User is not authorized to access this resource with an explicit deny"}"#, "\(engine): \(denied.body)")
        let unauthorized = try await Self.plain(fixture.base + "/pets", header: "x-token: unauthorized-\(token)")
        #expect(unauthorized.status == 401 && unauthorized.body == #"{"message":"Unauthorized"}"#, "\(engine): \(unauthorized.body)")
        let missing = try await Self.plain(fixture.base + "/pets")
        #expect(missing.status == 401 && missing.body == #"{"message":"Unauthorized"}"#, "\(engine): \(missing.body)")
        #expect(try await fixture.arrivals() == 1)
    }

    /// nginx and Caddy never send the body: a signature over the body's hash is refused, with a
    /// reason, unless `--trust-signed-payload-hash`; then the signed hash is what is verified.
    @Test(arguments: Engine.allCases)
    func aSignedPayloadHashPassesOnlyWhenTrusted(engine: Engine) async throws {
        let body = #"{"order":42}"#
        let hash = Self.sha256(body)
        let signed = ["--method", "POST", "--body", body, "--header", "X-Amz-Content-SHA256: \(hash)"]
        let strict = try Fixture(engine)
        let refused = try await Self.call(strict.base + "/orders", signed)
        strict.stop()
        #expect(refused.status == 403 && refused.errorType == "InvalidSignatureException", "\(engine): \(refused.status)")
        #expect(strict.authz.log.contains("the proxy did not send the body"), "\(strict.authz.log)")
        let trusting = try Fixture(engine, authzArguments: ["--trust-signed-payload-hash"])
        defer { trusting.stop() }
        let passed = try await Self.call(trusting.base + "/orders", signed)
        #expect(passed.status == 200 && passed.echo?["body_sha256"] as? String == hash, "\(engine): \(passed.status) \(trusting.authz.log)")
        // A hash that is not the body's still passes the auth service (it trusted the hash):
        // that is what the flag's help says it trusts.
        let forged = try await Self.call(trusting.base + "/orders", signed + ["--tamper", "body"])
        #expect(forged.status == 200, "\(engine): \(forged.status)")
    }

    /// A new folder for one test, and the path of the API definition it will hold.
    static func scratch(_ name: String) throws -> (URL, URL) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return (folder, folder.appendingPathComponent("api.yaml"))
    }

    /// An unsigned call through `url` (with one `header`), sent by Python's http.client.
    static func plain(_ url: String, header: String? = nil, headers: [String] = []) async throws -> (
        status: Int, errorType: String?, body: String, echo: [String: Any]?, outcome: GatewayTests.Outcome, headers: [String: String]
    ) {
        let fields = (header.map { [$0] } ?? []) + headers
        let output = try await Peers.python("scripts/oracles/plain_call.py", ["--url", url] + fields.flatMap { ["--header", $0] })
        let object = try #require(JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any])
        let headers = object["headers"] as? [String: String] ?? [:]
        let body = object["body"] as? String ?? ""
        let echo = try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any]
        let status = try #require(object["status"] as? Int)
        return (status, headers["x-amzn-errortype"], body, echo, GatewayTests.Outcome(status: status, errorType: headers["x-amzn-errortype"], echo: echo), headers)
    }

    /// A header as the upstream received it, whatever the case the proxy gave its name (Caddy
    /// writes Go's canonical `X-Multiauth-Principal`).
    static func echoed(_ outcome: GatewayTests.Outcome, _ name: String) -> String? {
        outcome.echoedHeaders.first { $0.key.lowercased() == name.lowercased() }?.value
    }

    static func sha256(_ text: String) -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try? process.run()
        input.fileHandleForWriting.write(Data(text.utf8))
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
        return String(decoding: output.fileHandleForReading.readDataToEndOfFile().prefix(64), as: UTF8.self)
    }
}

/// nginx or Caddy, started for one test with the config docs/authz.md shows, on a free port.
final class EngineProcess: @unchecked Sendable {
    /// Both proxies are installed (scripts/test installs them).
    static let installed = FileManager.default.isExecutableFile(atPath: "/usr/sbin/nginx") && FileManager.default.isExecutableFile(atPath: "/usr/bin/caddy")
    private let process = Process()
    let url: String

    init(_ engine: AuthzProxyTests.Engine, folder: String, authz: String, upstream: String) throws {
        let port = try Self.freePort()
        url = "http://127.0.0.1:\(port)"
        let authzHost = authz.replacingOccurrences(of: "http://", with: "")
        switch engine {
        case .nginx:
            let config = """
                worker_processes 1;
                error_log \(folder)/nginx-error.log warn;
                pid \(folder)/nginx.pid;
                events { worker_connections 64; }
                http {
                    access_log off;
                    client_body_temp_path \(folder)/body; proxy_temp_path \(folder)/proxy;
                    fastcgi_temp_path \(folder)/fastcgi; uwsgi_temp_path \(folder)/uwsgi; scgi_temp_path \(folder)/scgi;
                    server {
                        listen 127.0.0.1:\(port);
                        location / {
                            auth_request /_multiauth;
                            auth_request_set $multiauth_principal $upstream_http_x_multiauth_principal;
                            auth_request_set $multiauth_mode $upstream_http_x_multiauth_mode;
                            auth_request_set $multiauth_error $upstream_http_x_multiauth_error_body;
                            auth_request_set $multiauth_type $upstream_http_x_amzn_errortype;
                            auth_request_set $multiauth_status $upstream_http_x_multiauth_status;
                            proxy_set_header X-MultiAuth-Principal $multiauth_principal;
                            proxy_set_header X-MultiAuth-Mode $multiauth_mode;
                            proxy_pass \(upstream);
                            error_page 401 = @multiauth_401;
                            error_page 403 = @multiauth_403;
                            error_page 500 = @multiauth_500;
                        }
                        location = /_multiauth {
                            internal;
                            proxy_pass \(authz)/auth;
                            proxy_pass_request_body off;
                            proxy_set_header Content-Length "";
                            proxy_set_header X-Original-Method $request_method;
                            proxy_set_header X-Original-URI $request_uri;
                            proxy_set_header X-Original-Host $http_host;
                        }
                        location @multiauth_401 {
                            default_type application/json;
                            add_header x-amzn-ErrorType $multiauth_type always;
                            return 401 $multiauth_error;
                        }
                        location @multiauth_403 {
                            default_type application/json;
                            add_header x-amzn-ErrorType $multiauth_type always;
                            return 403 $multiauth_error;
                        }
                        location @multiauth_500 {
                            default_type application/json;
                            add_header x-amzn-ErrorType $multiauth_type always;
                            if ($multiauth_status = 429) { return 429 $multiauth_error; }
                            return 500;
                        }
                    }
                }
                """
            try config.write(toFile: folder + "/nginx.conf", atomically: true, encoding: .utf8)
            process.executableURL = URL(fileURLWithPath: "/usr/sbin/nginx")
            process.arguments = ["-c", folder + "/nginx.conf", "-p", folder, "-g", "daemon off;"]
        case .caddy:
            let config = """
                {
                    admin off
                    auto_https off
                }
                http://127.0.0.1:\(port) {
                    forward_auth \(authzHost) {
                        uri /auth
                        copy_headers X-MultiAuth-Principal X-MultiAuth-Mode
                    }
                    reverse_proxy \(upstream)
                }
                """
            try config.write(toFile: folder + "/Caddyfile", atomically: true, encoding: .utf8)
            process.executableURL = URL(fileURLWithPath: "/usr/bin/caddy")
            process.arguments = ["run", "--config", folder + "/Caddyfile", "--adapter", "caddyfile"]
            process.environment = ["HOME": folder, "XDG_DATA_HOME": folder + "/data", "XDG_CONFIG_HOME": folder + "/config"]
        }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try process.run()
        try Self.waitForPort(port, while: process)
    }

    func stop() {
        process.terminate()
        process.waitUntilExit()
    }

    /// A port nothing listens on now (the kernel's choice for a socket bound to port 0).
    static func freePort() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0 }
        }
        guard bound else { throw POSIXError(.EADDRINUSE) }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Returns once `port` accepts a connection; throws when `process` ends first or 30 s pass.
    static func waitForPort(_ port: Int, while process: Process) throws {
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
            }
            close(descriptor)
            if connected { return }
            guard process.isRunning else { throw POSIXError(.ECHILD) }
            Thread.sleep(forTimeInterval: 0.05)
        }
        throw POSIXError(.ETIMEDOUT)
    }
}

/// The contracts of the proxies not packaged here, Envoy's `ext_authz` over HTTP and Traefik's
/// ForwardAuth, played by Python's http.client as their documentation describes them: Envoy
/// sends the client's method and headers to `path_prefix` + the path, the body too with
/// `with_request_body`; Traefik sends `X-Forwarded-*`, the body too with `forwardBody`.
@Suite(.timeLimit(.minutes(5)), .enabled(if: Peers.available, Peers.reason))
struct AuthzContractPeerTests {
    static func authz(_ proxy: String, _ extra: [String] = []) throws -> GatewayProcess {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("authz-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let credentials = folder.appendingPathComponent("keys.json")
        try Data(#"{"\#(AuthzProxyTests.keyId)": "\#(AuthzProxyTests.secret)"}"#.utf8).write(to: credentials)
        chmod(credentials.path, 0o600)
        return try GatewayProcess(["authz", "--proxy", proxy, "--listen", "127.0.0.1:0", "--iam-credentials", credentials.path] + extra)
    }

    /// A botocore-signed call to `url` (the address the client believes it calls), sent as the
    /// proxy would send it to the auth service at `via`.
    static func asked(_ url: String, via: String, _ extra: [String] = []) async throws -> GatewayTests.Outcome {
        try await GatewayTests.signedCall(["--signer", "botocore", "--url", url, "--via", via] + extra, secret: AuthzProxyTests.secret, keyId: AuthzProxyTests.keyId)
    }

    @Test func envoyWithTheBodyVerifiesTheSignatureInFull() async throws {
        let authz = try Self.authz("envoy", ["--path-prefix", "/check"])
        defer { #expect(authz.stop() == 0) }
        let get = try await Self.asked("http://api.example.com/pets?x=1", via: authz.url + "/check")
        #expect(get.status == 200, "\(authz.log)")
        // botocore's default for execute-api: the body's hash in the signature, no header.
        let post = ["--method", "POST", "--body", #"{"pet":"cat"}"#]
        #expect(try await Self.asked("http://api.example.com/pets", via: authz.url + "/check", post).status == 200, "\(authz.log)")
        let changed = try await Self.asked("http://api.example.com/pets", via: authz.url + "/check", post + ["--tamper", "body"])
        #expect(changed.status == 403 && changed.errorType == "InvalidSignatureException")
        let partial = try await Self.asked("http://api.example.com/pets", via: authz.url + "/check", post + ["--via-header", "x-envoy-auth-partial-body: true"])
        #expect(partial.status == 403 && partial.errorType == "InvalidSignatureException")
        let outside = try await Self.asked("http://api.example.com/pets", via: authz.url + "/elsewhere")
        #expect(outside.status == 400)
    }

    @Test func traefikNamesTheRequestInXForwardedFields() async throws {
        let authz = try Self.authz("traefik")
        defer { #expect(authz.stop() == 0) }
        let forwarded = ["--via-header", "X-Forwarded-Method: GET", "--via-header", "X-Forwarded-Uri: /pets?x=1",
                         "--via-header", "X-Forwarded-Host: api.example.com", "--via-header", "X-Forwarded-Proto: https"]
        let allowed = try await Self.asked("http://api.example.com/pets?x=1", via: authz.url + "/auth", forwarded)
        #expect(allowed.status == 200, "\(authz.log)")
        let moved = forwarded.map { $0 == "X-Forwarded-Uri: /pets?x=1" ? "X-Forwarded-Uri: /admin" : $0 }
        let refused = try await Self.asked("http://api.example.com/pets?x=1", via: authz.url + "/auth", moved)
        #expect(refused.status == 403 && refused.errorType == "InvalidSignatureException")
    }
}

/// `multiauth authz --grpc-listen`: Envoy's gRPC `ext_authz` contract, asked by a client built
/// on the classes xds-protos generates from Envoy's own protos, with grpcio, as Envoy's
/// filter asks (Envoy is not packaged here). Requests are signed by botocore.
@Suite(.timeLimit(.minutes(5)), .enabled(if: Peers.available, Peers.reason))
struct EnvoyGRPCAuthzPeerTests {
    /// The auth service with its gRPC listener, and the listener's `HOST:PORT`.
    static func authz(_ extra: [String] = []) async throws -> (GatewayProcess, String) {
        let authz = try AuthzContractPeerTests.authz("nginx", ["--grpc-listen", "127.0.0.1:0"] + extra)
        let marker = "gRPC ext_authz listening on h2c://"
        #expect(try await authz.logShows(marker), "\(authz.log)")
        let rest = try #require(authz.log.range(of: marker)).upperBound
        return (authz, String(authz.log[rest...].prefix { $0 != "\n" }))
    }

    struct Answer {
        let status: Int
        let rpcCode: Int
        let headers: [String: String]
        let body: String
    }

    /// A botocore-signed call to `url`, asked about over gRPC at `address`.
    static func asked(_ url: String, at address: String, _ extra: [String] = []) async throws -> Answer {
        let output = try await Peers.python(
            "scripts/oracles/signed_call.py",
            ["--signer", "botocore", "--key", AuthzProxyTests.keyId, "--secret", AuthzProxyTests.secret, "--url", url, "--grpc-check", address] + extra)
        let object = try #require(JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any])
        return Answer(
            status: try #require(object["status"] as? Int), rpcCode: try #require(object["rpc_code"] as? Int),
            headers: object["headers"] as? [String: String] ?? [:], body: object["body"] as? String ?? "")
    }

    @Test func signedRequestsAreAllowedWithTheirPrincipalAndForgedOnesDenied() async throws {
        let (authz, address) = try await Self.authz()
        defer { #expect(authz.stop() == 0) }
        let get = try await Self.asked("https://api.example.com/pets?x=1", at: address)
        #expect(get.status == 200 && get.rpcCode == 0, "\(authz.log)")
        #expect(get.headers == ["x-multiauth-principal": AuthzProxyTests.keyId, "x-multiauth-mode": "AWS_IAM"])
        let raw = try await Self.asked("https://api.example.com/pets?x=1", at: address, ["--grpc-raw-headers"])
        #expect(raw.status == 200)
        let forged = try await Self.asked("https://api.example.com/pets?x=1", at: address, ["--tamper", "query"])
        #expect(forged.status == 403 && forged.rpcCode == 7 && forged.headers["x-amzn-errortype"] == "InvalidSignatureException")
        #expect(forged.body.contains("does not match"))
    }

    @Test func aSignedBodyIsVerifiedWhenTheFilterSendsItAndRefusedWhenItDoesNot() async throws {
        let (authz, address) = try await Self.authz()
        defer { #expect(authz.stop() == 0) }
        let post = ["--method", "POST", "--body", #"{"pet":"cat"}"#]
        let whole = try await Self.asked("https://api.example.com/pets", at: address, post + ["--grpc-body", "whole"])
        #expect(whole.status == 200, "\(authz.log)")
        let changed = try await Self.asked("https://api.example.com/pets", at: address, post + ["--grpc-body", "whole", "--tamper", "last-byte"])
        #expect(changed.status == 403 && changed.headers["x-amzn-errortype"] == "InvalidSignatureException")
        let partial = try await Self.asked("https://api.example.com/pets", at: address, post + ["--grpc-body", "partial"])
        #expect(partial.status == 403 && partial.body.contains("could not be checked"))
        let unseen = try await Self.asked("https://api.example.com/pets", at: address, post)
        #expect(unseen.status == 403 && unseen.body.contains("cannot check"))
        let unsigned = try await Self.asked("https://api.example.com/pets", at: address, post + ["--header", "X-Amz-Content-SHA256: UNSIGNED-PAYLOAD"])
        #expect(unsigned.status == 200)
    }

    @Test func aSignedPayloadHashIsTrustedOnlyWhenAskedTo() async throws {
        let hashed = ["--method", "PUT", "--body", "report", "--header", "X-Amz-Content-SHA256: " + SHA256Hasher.hash(Array("report".utf8)).hex]
        let (strict, strictAddress) = try await Self.authz()
        defer { #expect(strict.stop() == 0) }
        let refused = try await Self.asked("https://api.example.com/reports/1", at: strictAddress, hashed)
        #expect(refused.status == 403 && refused.body.contains("cannot check"))
        let (trusting, trustingAddress) = try await Self.authz(["--trust-signed-payload-hash"])
        defer { #expect(trusting.stop() == 0) }
        #expect(try await Self.asked("https://api.example.com/reports/1", at: trustingAddress, hashed).status == 200, "\(trusting.log)")
    }
}
