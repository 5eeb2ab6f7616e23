import Foundation
import Synchronization
import HTTPTypes
import MultiAuthCore
import MultiAuthCurl
package import Testing

/// The local peers `scripts/test` starts (moto and the verifying API servers). Tests that
/// need them are disabled, saying so, when they are not running.
package enum Peers {
    package static let environment = ProcessInfo.processInfo.environment
    package static var available: Bool { environment["MULTIAUTH_TEST_API_URL"] != nil && environment["MULTIAUTH_TEST_MOTO_URL"] != nil }
    package static let reason: Comment = "the local peers are not running: use scripts/test"

    package static var api: String { environment["MULTIAUTH_TEST_API_URL"] ?? "" }
    package static var skewedAPI: String { environment["MULTIAUTH_TEST_SKEWED_API_URL"] ?? "" }
    package static var moto: String { environment["MULTIAUTH_TEST_MOTO_URL"] ?? "" }
    package static var keyId: String { environment["MULTIAUTH_TEST_KEY_ID"] ?? "" }
    package static var secret: String { environment["MULTIAUTH_TEST_SECRET"] ?? "" }
    package static var apiKey: String { environment["MULTIAUTH_TEST_API_KEY"] ?? "" }

    package struct MotoSetup: Decodable {
        package let userPoolId: String
        package let clientId: String
        /// Alice's ID token, minted for this test process (``freshIDToken``): the one
        /// `moto_setup.py` minted when the peers started expires an hour later.
        package var idToken: String
        package let identityPoolId: String
        package let secretClientId: String
        package let clientSecret: String
        package let mfaUserPoolId: String
        package let mfaClientId: String
        package let jwksUrl: String
    }

    /// The private PostgreSQL cluster (`postgres://multiauth@127.0.0.1:PORT/postgres`, no
    /// password in it) and its password, which the tests hand over as `PGPASSWORD`.
    package static var postgres: String { environment["MULTIAUTH_TEST_POSTGRES_URL"] ?? "" }
    package static var postgresPassword: String { environment["MULTIAUTH_TEST_POSTGRES_PASSWORD"] ?? "" }
    package static var postgresAvailable: Bool { !postgres.isEmpty && available }

    /// The trivial upstream behind the gateway tests (scripts/peers/upstream_server.py).
    package static var upstream: String { environment["MULTIAUTH_TEST_UPSTREAM_URL"] ?? "" }
    /// The MCP server on the `mcp` SDK's streamable HTTP transport, its root (scripts/peers/mcp_server.py; the endpoint is `/mcp`).
    package static var mcp: String { environment["MULTIAUTH_TEST_MCP_URL"] ?? "" }
    /// The Lambda-style request authorizer over HTTP (scripts/peers/authorizer_server.py).
    package static var authorizer: String { environment["MULTIAUTH_TEST_AUTHORIZER_URL"] ?? "" }
    /// The upstream stand-in over HTTPS, its self-signed certificate for 127.0.0.1 in ``tlsCA``.
    package static var tlsUpstream: String { environment["MULTIAUTH_TEST_TLS_UPSTREAM_URL"] ?? "" }
    package static var tlsCA: String { environment["MULTIAUTH_TEST_TLS_CA"] ?? "" }
    /// The private key of that certificate (for 127.0.0.1), for servers of ours that serve TLS.
    package static var tlsKey: String { environment["MULTIAUTH_TEST_TLS_KEY"] ?? "" }

    /// The misbehaving raw-TCP server (scripts/peers/fault_server.py).
    package static var fault: String { environment["MULTIAUTH_TEST_FAULT_URL"] ?? "" }
    package static var faultAvailable: Bool { !fault.isEmpty }

    package static var appSync: String { environment["MULTIAUTH_TEST_APPSYNC_URL"] ?? "" }
    package static var appSyncAvailable: Bool { !appSync.isEmpty }
    package static var oidcIssuer: String { environment["MULTIAUTH_TEST_OIDC_ISSUER"] ?? "" }
    package static var oidcAvailable: Bool { !oidcIssuer.isEmpty }
    package static let oidcReason: Comment = "the OIDC peer (nanoidp) is not running: use scripts/test"
    /// nanoidp's test clients and user (scripts/peers/nanoidp).
    package static let oidcConfidentialClient = "multiauth-confidential"
    package static let oidcClientSecret = "confidential-secret-not-real"
    package static let oidcPublicClient = "multiauth-public"
    package static let oidcUser = ("alice", "alice-Passw0rd")

    /// Runs a Python script of the repository with the project's .venv and returns its
    /// standard output; fails on a non-zero exit.
    package static func python(_ script: String, _ arguments: [String], input: String = "") async throws -> String {
        try await offPool { try pythonWaiting(script, arguments, input: input) }
    }

    private static func pythonWaiting(_ script: String, _ arguments: [String], input: String) throws -> String {
        let finished = try ChildProcess.run(
            URL(fileURLWithPath: Paths.python), Paths.pythonArguments + [Paths.repository.appendingPathComponent(script).path] + arguments,
            input: Data(input.utf8))
        guard finished.status == 0 else {
            throw PeerError.scriptFailed(script, finished.status, String(decoding: finished.stderr.suffix(2_000), as: UTF8.self))
        }
        return String(decoding: finished.stdout, as: UTF8.self)
    }

    package enum PeerError: Error { case scriptFailed(String, Int32, String) }

    package static var setup: MotoSetup? {
        guard let path = environment["MULTIAUTH_TEST_MOTO_SETUP"], let data = FileManager.default.contents(atPath: path) else { return nil }
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        guard var setup = try? decoder.decode(MotoSetup.self, from: data) else { return nil }
        setup.idToken = freshIDToken(setup) ?? setup.idToken
        return setup
    }

    /// Alice's ID token from moto (USER_PASSWORD_AUTH), signed in once per test process.
    private static let minted = Mutex<String?>(nil)

    private static func freshIDToken(_ setup: MotoSetup) -> String? {
        minted.withLock { token in
            if let token { return token }
            let body = #"{"AuthFlow": "USER_PASSWORD_AUTH", "ClientId": "\#(setup.clientId)", "AuthParameters": {"USERNAME": "alice", "PASSWORD": "Str0ng-Passw0rd!"}}"#
            let run = try? ChildProcess.run(URL(fileURLWithPath: "/usr/bin/curl"), [
                "-sf", "-X", "POST", moto + "/", "-H", "Content-Type: application/x-amz-json-1.1",
                "-H", "X-Amz-Target: AWSCognitoIdentityProviderService.InitiateAuth", "--data-binary", body,
            ], limit: 30)
            guard let run, run.status == 0, let answer = try? JSONSerialization.jsonObject(with: run.stdout) as? [String: Any],
                let result = answer["AuthenticationResult"] as? [String: Any], let fresh = result["IdToken"] as? String
            else { return nil }
            token = fresh
            return fresh
        }
    }

    /// The JSON echo of the API server.
    package struct Echo: Decodable {
        package let method: String
        package let target: String
        package let headers: [[String]]
        package let bodyLength: Int
        package let bodySha256: String
    }

    package static func echo(_ run: CLI.Run) throws -> Echo {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return try decoder.decode(Echo.self, from: Data(run.stdout.utf8))
    }
}

extension Peers {
    /// The container credentials endpoint stand-in (scripts/peers/container_server.py) and the
    /// token file it checks.
    package static var container: String { environment["MULTIAUTH_TEST_CONTAINER_URL"] ?? "" }
    package static var containerTokenFile: String { environment["MULTIAUTH_TEST_CONTAINER_TOKEN_FILE"] ?? "" }
    package static var containerAvailable: Bool { !container.isEmpty && !containerTokenFile.isEmpty }
    /// The strict instance metadata stand-in (scripts/peers/imds_server.py).
    package static var imds: String { environment["MULTIAUTH_TEST_IMDS_URL"] ?? "" }
    /// The IAM Identity Center stand-in (scripts/peers/sso_server.py): SSO OIDC and the portal.
    package static var sso: String { environment["MULTIAUTH_TEST_SSO_URL"] ?? "" }
    /// The Cognito stand-in with remembered devices (scripts/peers/cognito_server.py): its
    /// pool and client.
    package static var cognito: String { environment["MULTIAUTH_TEST_COGNITO_URL"] ?? "" }
    package static let cognitoPool = "us-east-1_MultiAuthPeer"
    package static let cognitoClient = "peerclient"
}

extension Peers {
    /// Runs a Python oracle of the repository with the project's .venv, with the process
    /// environment less every AWS_ variable plus `environment`, and decodes the JSON object it
    /// prints.
    package static func oracle(_ script: String, arguments: [String] = [], environment: [String: String]) async throws -> [String: String] {
        try await offPool { try oracleWaiting(script, arguments: arguments, environment: environment) }
    }

    private static func oracleWaiting(_ script: String, arguments: [String], environment: [String: String]) throws -> [String: String] {
        // botocore's chain ends at instance metadata: only a test that names the local IMDS peer may reach one.
        let base = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("AWS_") }.merging(["AWS_EC2_METADATA_DISABLED": "true"]) { $1 }
        let finished = try ChildProcess.run(
            URL(fileURLWithPath: Paths.python), Paths.pythonArguments + [Paths.repository.appendingPathComponent(script).path] + arguments,
            environment: base.merging(environment) { $1 })
        guard let object = try JSONSerialization.jsonObject(with: finished.stdout) as? [String: String] else {
            throw PeerError.scriptFailed(script, finished.status, String(decoding: finished.stderr.suffix(2_000), as: UTF8.self))
        }
        return object
    }

    /// A new user of moto's user pool `pool`, named `prefix` and a random suffix (so that a
    /// test run again against the same peers finds it new): confirmed with `password`, or,
    /// without one, left with the temporary password `Temp-Passw0rd!` to change at its first
    /// sign-in. Made with boto3 (scripts/oracles/cognito_user.py).
    package static func newCognitoUser(_ prefix: String, pool: String, password: String? = nil) async throws -> String {
        let name = "\(prefix)-\(UUID().uuidString.prefix(8).lowercased())"
        let created = try await oracle("scripts/oracles/cognito_user.py", arguments: [moto, pool, name] + (password.map { [$0] } ?? []), environment: [:])
        guard created["username"] == name else { throw PeerError.scriptFailed("scripts/oracles/cognito_user.py", 0, "it made no user \(name)") }
        return name
    }
}

extension Peers {
    /// The STS stand-in that checks signatures with botocore and records calls
    /// (scripts/peers/sts_server.py), and the one MFA device it knows with its code.
    package static var sts: String { environment["MULTIAUTH_TEST_STS_URL"] ?? "" }
    package static var stsAvailable: Bool { !sts.isEmpty && available }
    /// The Kubernetes API stand-in that checks EKS tokens with botocore (HTTPS, the TLS CA).
    package static var eksAPI: String { environment["MULTIAUTH_TEST_EKS_API_URL"] ?? "" }
    package static let mfaSerial = "arn:aws:iam::123456789012:mfa/tester"
    package static let mfaCode = "123456"

    /// The calls the STS stand-in recorded whose `field` is `value`.
    package static func stsCalls(_ field: String, _ value: String) async throws -> [[String: String]] {
        let query = value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? value
        let response = try await CurlHTTPClient().send(try HTTPRequest(method: .get, wireURL: sts + "/_peer/calls?\(field)=\(query)"))
        let calls = try #require(JSONSerialization.jsonObject(with: Data(response.body)) as? [[String: Any]])
        return calls.map { $0.compactMapValues { $0 as? String } }
    }
}
