import Foundation
import Synchronization
import HTTPTypes
import MultiAuthCore
import MultiAuthCurl
import Testing

/// The local peers `scripts/test` starts (moto and the verifying API servers). Tests that
/// need them are disabled, saying so, when they are not running.
enum Peers {
    static let environment = ProcessInfo.processInfo.environment
    static var available: Bool { environment["MULTIAUTH_TEST_API_URL"] != nil && environment["MULTIAUTH_TEST_MOTO_URL"] != nil }
    static let reason: Comment = "the local peers are not running: use scripts/test"

    static var api: String { environment["MULTIAUTH_TEST_API_URL"] ?? "" }
    static var skewedAPI: String { environment["MULTIAUTH_TEST_SKEWED_API_URL"] ?? "" }
    static var moto: String { environment["MULTIAUTH_TEST_MOTO_URL"] ?? "" }
    static var keyId: String { environment["MULTIAUTH_TEST_KEY_ID"] ?? "" }
    static var secret: String { environment["MULTIAUTH_TEST_SECRET"] ?? "" }
    static var apiKey: String { environment["MULTIAUTH_TEST_API_KEY"] ?? "" }

    struct MotoSetup: Decodable {
        let userPoolId: String
        let clientId: String
        /// Alice's ID token, minted for this test process (``freshIDToken``): the one
        /// `moto_setup.py` minted when the peers started expires an hour later.
        var idToken: String
        let identityPoolId: String
        let secretClientId: String
        let clientSecret: String
        let mfaUserPoolId: String
        let mfaClientId: String
        let jwksUrl: String
    }

    /// The private PostgreSQL cluster (`postgres://multiauth@127.0.0.1:PORT/postgres`, no
    /// password in it) and its password, which the tests hand over as `PGPASSWORD`.
    static var postgres: String { environment["MULTIAUTH_TEST_POSTGRES_URL"] ?? "" }
    static var postgresPassword: String { environment["MULTIAUTH_TEST_POSTGRES_PASSWORD"] ?? "" }
    static var postgresAvailable: Bool { !postgres.isEmpty && available }

    /// The trivial upstream behind the gateway tests (scripts/peers/upstream_server.py).
    static var upstream: String { environment["MULTIAUTH_TEST_UPSTREAM_URL"] ?? "" }
    /// The Lambda-style request authorizer over HTTP (scripts/peers/authorizer_server.py).
    static var authorizer: String { environment["MULTIAUTH_TEST_AUTHORIZER_URL"] ?? "" }
    /// The upstream stand-in over HTTPS, its self-signed certificate for 127.0.0.1 in ``tlsCA``.
    static var tlsUpstream: String { environment["MULTIAUTH_TEST_TLS_UPSTREAM_URL"] ?? "" }
    static var tlsCA: String { environment["MULTIAUTH_TEST_TLS_CA"] ?? "" }
    /// The private key of that certificate (for 127.0.0.1), for servers of ours that serve TLS.
    static var tlsKey: String { environment["MULTIAUTH_TEST_TLS_KEY"] ?? "" }

    /// The misbehaving raw-TCP server (scripts/peers/fault_server.py).
    static var fault: String { environment["MULTIAUTH_TEST_FAULT_URL"] ?? "" }
    static var faultAvailable: Bool { !fault.isEmpty }

    static var appSync: String { environment["MULTIAUTH_TEST_APPSYNC_URL"] ?? "" }
    static var appSyncAvailable: Bool { !appSync.isEmpty }
    static var oidcIssuer: String { environment["MULTIAUTH_TEST_OIDC_ISSUER"] ?? "" }
    static var oidcAvailable: Bool { !oidcIssuer.isEmpty }
    static let oidcReason: Comment = "the OIDC peer (nanoidp) is not running: use scripts/test"
    /// nanoidp's test clients and user (scripts/peers/nanoidp).
    static let oidcConfidentialClient = "multiauth-confidential"
    static let oidcClientSecret = "confidential-secret-not-real"
    static let oidcPublicClient = "multiauth-public"
    static let oidcUser = ("alice", "alice-Passw0rd")

    /// Runs a Python script of the repository with the project's .venv and returns its
    /// standard output; fails on a non-zero exit.
    static func python(_ script: String, _ arguments: [String], input: String = "") async throws -> String {
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

    enum PeerError: Error { case scriptFailed(String, Int32, String) }

    static var setup: MotoSetup? {
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
    struct Echo: Decodable {
        let method: String
        let target: String
        let headers: [[String]]
        let bodyLength: Int
        let bodySha256: String
    }

    static func echo(_ run: CLITests.Run) throws -> Echo {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return try decoder.decode(Echo.self, from: Data(run.stdout.utf8))
    }
}

extension Peers {
    /// The container credentials endpoint stand-in (scripts/peers/container_server.py) and the
    /// token file it checks.
    static var container: String { environment["MULTIAUTH_TEST_CONTAINER_URL"] ?? "" }
    static var containerTokenFile: String { environment["MULTIAUTH_TEST_CONTAINER_TOKEN_FILE"] ?? "" }
    static var containerAvailable: Bool { !container.isEmpty && !containerTokenFile.isEmpty }
    /// The strict instance metadata stand-in (scripts/peers/imds_server.py).
    static var imds: String { environment["MULTIAUTH_TEST_IMDS_URL"] ?? "" }
    /// The IAM Identity Center stand-in (scripts/peers/sso_server.py): SSO OIDC and the portal.
    static var sso: String { environment["MULTIAUTH_TEST_SSO_URL"] ?? "" }
    /// The Cognito stand-in with remembered devices (scripts/peers/cognito_server.py): its
    /// pool and client.
    static var cognito: String { environment["MULTIAUTH_TEST_COGNITO_URL"] ?? "" }
    static let cognitoPool = "us-east-1_MultiAuthPeer"
    static let cognitoClient = "peerclient"
}

extension Peers {
    /// Runs a Python oracle of the repository with the project's .venv, with the process
    /// environment less every AWS_ variable plus `environment`, and decodes the JSON object it
    /// prints.
    static func oracle(_ script: String, arguments: [String] = [], environment: [String: String]) async throws -> [String: String] {
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
}

extension Peers {
    /// The STS stand-in that checks signatures with botocore and records calls
    /// (scripts/peers/sts_server.py), and the one MFA device it knows with its code.
    static var sts: String { environment["MULTIAUTH_TEST_STS_URL"] ?? "" }
    static var stsAvailable: Bool { !sts.isEmpty && available }
    /// The Kubernetes API stand-in that checks EKS tokens with botocore (HTTPS, the TLS CA).
    static var eksAPI: String { environment["MULTIAUTH_TEST_EKS_API_URL"] ?? "" }
    static let mfaSerial = "arn:aws:iam::123456789012:mfa/tester"
    static let mfaCode = "123456"

    /// The calls the STS stand-in recorded whose `field` is `value`.
    static func stsCalls(_ field: String, _ value: String) async throws -> [[String: String]] {
        let query = value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? value
        let response = try await CurlHTTPClient().send(try HTTPRequest(method: .get, wireURL: sts + "/_peer/calls?\(field)=\(query)"))
        let calls = try #require(JSONSerialization.jsonObject(with: Data(response.body)) as? [[String: Any]])
        return calls.map { $0.compactMapValues { $0 as? String } }
    }
}
