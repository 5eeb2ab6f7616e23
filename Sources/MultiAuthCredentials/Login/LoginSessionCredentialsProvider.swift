import HTTPTypes
import MultiAuthAWSClient
public import MultiAuthCore
import MultiAuthCrypto
public import MultiAuthHTTP
import MultiAuthSigV4

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A profile's `login_session`: the console-credentials session `aws login` writes, read from
/// its cache (``LoginSessionCache``) and refreshed as botocore's `LoginProvider` refreshes it.
///
/// The session's keys are used until 5 minutes before they expire. Then the sign-in service's
/// `CreateOAuth2Token` (`POST /v1/token`, at `AWS_ENDPOINT_URL_SIGNIN` or
/// `REGION.signin.aws.amazon.com`) trades the refresh token, with a DPoP proof made with the
/// session's key, for new keys and a new refresh token, and the file is written back in the
/// same format. Processes refresh one at a time under a lock file, reading again first, so a
/// refresh token is spent once.
public struct LoginSessionCredentialsProvider: CredentialsProvider {
    /// How long before expiry a session is refreshed (botocore's threshold).
    static let refreshWindow: Double = 5 * 60

    let name: String
    let cache: LoginSessionCache
    let client: AWSClient
    let clock: TimeSource
    let loginCommand: String

    /// Session `name` (the profile's `login_session`) in `cache`, refreshed through the
    /// sign-in service in `region`; a session that cannot be refreshed says to run
    /// `loginCommand`.
    /// - Throws: ``CredentialsError/invalidSetting(source:problem:)`` for a malformed region
    ///   or retry setting.
    public init(
        session name: String, region: String, cache: LoginSessionCache? = nil, environment: [String: String]? = nil, http: any HTTPSender,
        clock: TimeSource = .system, loginCommand: String = "aws login"
    ) throws(CredentialsError) {
        let environment = environment ?? ProcessInfo.processInfo.environment
        self.name = name
        self.cache = cache ?? LoginSessionCache(environment: environment)
        client = try .forChain(service: "signin", region: region, environment: environment, http: http)
        self.clock = clock
        self.loginCommand = loginCommand
    }

    public func credentials() async throws(CredentialsError) -> ExpiringCredentials {
        let session = try stored()
        if let fresh = usable(session) { return fresh }
        let refreshed = try await LockedRefresh.run { () async throws(CredentialsError) -> HeldFileLock in
            do throws(PathSafetyError) { try PathSafety.prepareFolder(cache.folder) } catch {
                throw .loginCache(path: cache.folder, problem: "cannot be prepared: \(error)")
            }
            do throws(FileLockError) { return try await FileLock.acquire(path: cache.lockPath(for: name), timeout: .seconds(30)) } catch {
                throw .loginCache(path: cache.lockPath(for: name), problem: "cannot be locked: \(error)")
            }
        } read: { _ throws(CredentialsError) in
            try stored()
        } refreshedMeanwhile: { session in
            usable(session) != nil
        } refresh: { session async throws(CredentialsError) in
            try await renewed(session)
        } write: { session, _ throws(CredentialsError) in
            try cache.write(session, as: name)
        }
        guard let credentials = refreshed.credentials else { throw .loginCache(path: cache.path(for: name), problem: "has no keys after a refresh") }
        return credentials
    }

    private func stored() throws(CredentialsError) -> LoginSession {
        guard let session = try cache.read(name) else {
            throw .loginNeeded(what: "no login session '\(name)' in \(cache.folder)", command: loginCommand)
        }
        return session
    }

    /// The session's keys while more than the refresh window is left.
    private func usable(_ session: LoginSession) -> ExpiringCredentials? {
        guard let expiry = session.expiresAt, expiry.timeIntervalSince1970 - clock.now() > Self.refreshWindow else { return nil }
        return session.credentials
    }

    /// `session` with new keys and a new refresh token from `CreateOAuth2Token`.
    private func renewed(_ session: LoginSession) async throws(CredentialsError) -> LoginSession {
        guard let clientId = session.clientId, let refreshToken = session.refreshToken, let pem = session.dpopKey else {
            throw .loginCache(path: cache.path(for: name), problem: "lacks clientId, refreshToken or dpopKey")
        }
        let key: PrivateKey
        do { key = try PrivateKey.pem(Array(pem.utf8), passphrase: nil) } catch {
            throw .loginCache(path: cache.path(for: name), problem: "has a dpopKey that is not an EC private key")
        }
        let body = JSONValue.object(["clientId": .string(clientId), "grantType": .string("refresh_token"), "refreshToken": .string(refreshToken)])
        let operation = AWSOperation.restJSON("CreateOAuth2Token", method: .post, path: "/v1/token", body: Array(body.description.utf8))
        let clock = clock
        let answer: TokenOutput
        do {
            // Unsigned: the refresh token and the DPoP proof (made anew for each attempt) are the proof.
            let response = try await client.send(operation) { request, _, _ throws(SigningError) in
                try DPoPProof.attach(to: request, key: key, now: clock.now())
            }
            answer = try JSONDecoding.decode(TokenOutput.self, from: response.body, what: "the CreateOAuth2Token answer")
        } catch let error as AWSCallError {
            if error.serviceCode == "AccessDeniedException", let reason = error.reason, ["TOKEN_EXPIRED", "USER_CREDENTIALS_CHANGED"].contains(reason) {
                throw .loginNeeded(what: "the login session '\(name)' can no longer be refreshed (\(reason))", command: loginCommand)
            }
            throw CredentialsError(error)
        } catch {
            throw .serviceError(service: "signin CreateOAuth2Token", code: "MalformedResponse", message: "\(error)")
        }
        try checkWireSafe([("accessKeyId", answer.accessToken.accessKeyId), ("sessionToken", answer.accessToken.sessionToken)], source: "signin CreateOAuth2Token")
        var fields = session.fields
        var access = session.accessToken
        access["accessKeyId"] = .string(answer.accessToken.accessKeyId)
        access["secretAccessKey"] = .string(answer.accessToken.secretAccessKey)
        access["sessionToken"] = .string(answer.accessToken.sessionToken)
        access["expiresAt"] = .string(ISOTime.text((clock.now() + Double(answer.expiresIn)).rounded(.down)))
        fields["accessToken"] = .object(access)
        fields["refreshToken"] = .string(answer.refreshToken)
        return LoginSession(fields: fields)
    }

    private struct TokenOutput: Decodable {
        struct Keys: Decodable { let accessKeyId: String, secretAccessKey: String, sessionToken: String }
        let accessToken: Keys
        let expiresIn: Int
        let refreshToken: String
    }
}
