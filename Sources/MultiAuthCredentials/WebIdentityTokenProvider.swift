public import MultiAuthCore
public import MultiAuthHTTP
import MultiAuthAWSClient
import Synchronization

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// Outbound identity federation: STS `GetWebIdentityToken` gives the caller's AWS identity as a
/// JWT that an external service verifies with the account's issuer and JWKS. Tokens are
/// cached, and fetched again once within a fifth of their life (at least 10 s) of expiry, on
/// the shared `ExpiringValueCache`: however many callers, one call to STS at a
/// time.
public final class WebIdentityTokenProvider: Sendable {
    /// A token and when it expires; its description never shows the token.
    public struct Token: Sendable, CustomStringConvertible {
        /// The signed JWT.
        public let jwt: String
        /// When STS says it expires.
        public let expiration: Date

        public var description: String { "web identity token (\(Redaction.placeholder)), expires \(ISOTime.text(expiration.timeIntervalSince1970))" }
    }

    /// The signing algorithms STS offers.
    public enum SigningAlgorithm: String, Sendable, CaseIterable {
        case rs256 = "RS256", es384 = "ES384"
    }

    private let cache: ExpiringValueCache<Token, CredentialsError>

    /// A provider of tokens for `audiences` (1 to 10), signed with `algorithm`, lasting
    /// `durationSeconds` (60 to 3600), asked of STS in `region` with `credentials`' identity.
    /// - Throws: ``CredentialsError/invalidSetting(source:problem:)`` for audiences or a
    ///   duration STS would refuse, or a region that is not one.
    public init(
        credentials: any CredentialsProvider, region: String, audiences: [String], algorithm: SigningAlgorithm = .rs256, durationSeconds: Int = 300,
        environment: [String: String] = ProcessInfo.processInfo.environment, http: any HTTPSender, clock: TimeSource = .system
    ) throws(CredentialsError) {
        guard (1...10).contains(audiences.count), audiences.allSatisfy({ !$0.isEmpty }) else {
            throw .invalidSetting(source: "GetWebIdentityToken", problem: "give 1 to 10 audiences, none empty")
        }
        guard (60...3_600).contains(durationSeconds) else {
            throw .invalidSetting(source: "GetWebIdentityToken", problem: "the duration must be 60 to 3600 seconds")
        }
        let sts = try AWSClient.forChain(service: "sts", region: region, environment: environment, http: http)
        let window = Duration.seconds(max(10, durationSeconds / 5))
        var parameters = audiences.enumerated().map { ("Audience.member.\($0.offset + 1)", $0.element) }
        parameters += [("SigningAlgorithm", algorithm.rawValue), ("DurationSeconds", String(durationSeconds))]
        let operation = AWSOperation.query("GetWebIdentityToken", version: "2011-06-15", parameters)
        cache = ExpiringValueCache(advisoryWindow: window, mandatoryWindow: window / 2, clock: clock) {
            (_: Expiring<Token>?) async throws(CredentialsError) -> Expiring<Token> in
            let response: ReceivedResponse
            do throws(AWSCallError) { response = try await sts.send(operation, signedWith: { try await credentials.credentials().credentials }) } catch {
                throw CredentialsError(error)
            }
            let xml = String(decoding: response.body, as: UTF8.self)
            guard let jwt = XMLText.value(of: "WebIdentityToken", in: xml), let expiration = XMLText.value(of: "Expiration", in: xml).flatMap(ISO8601.parse)
            else { throw .serviceError(service: "sts", code: "MalformedResponse", message: "no token or expiration in the GetWebIdentityToken response") }
            return Expiring(Token(jwt: jwt, expiration: expiration), expiresAt: expiration.timeIntervalSince1970)
        }
    }

    /// A token valid for a while yet: the cached one, or a new one from STS.
    /// - Throws: ``CredentialsError``: STS's refusal (`OutboundWebIdentityFederationDisabledException`
    ///   when the account has not turned the feature on), a transport failure, or the caller's
    ///   credentials' own error.
    public func token() async throws(CredentialsError) -> Token { try await cache.value() }
}

/// The web identity tokens one identity hands out to several askers (a credentials endpoint's
/// clients): one cached ``WebIdentityTokenProvider`` per audience set, algorithm and duration.
public final class WebIdentityTokens: Sendable {
    struct Key: Hashable {
        let audiences: [String]
        let algorithm: WebIdentityTokenProvider.SigningAlgorithm
        let durationSeconds: Int
    }

    let credentials: any CredentialsProvider
    let region: String
    let environment: [String: String]
    let http: any HTTPSender
    private let providers = Mutex<[Key: WebIdentityTokenProvider]>([:])

    /// Tokens of `credentials`' identity, from STS in `region`.
    public init(
        credentials: any CredentialsProvider, region: String, environment: [String: String] = ProcessInfo.processInfo.environment,
        http: any HTTPSender
    ) {
        self.credentials = credentials
        self.region = region
        self.environment = environment
        self.http = http
    }

    /// A token for these audiences, cached as ``WebIdentityTokenProvider`` caches it.
    /// - Throws: ``CredentialsError``, as ``WebIdentityTokenProvider``'s initializer and
    ///   ``WebIdentityTokenProvider/token()`` throw.
    public func token(
        audiences: [String], algorithm: WebIdentityTokenProvider.SigningAlgorithm, durationSeconds: Int
    ) async throws(CredentialsError) -> WebIdentityTokenProvider.Token {
        let key = Key(audiences: audiences, algorithm: algorithm, durationSeconds: durationSeconds)
        let provider: WebIdentityTokenProvider
        if let cached = providers.withLock({ $0[key] }) {
            provider = cached
        } else {
            let made = try WebIdentityTokenProvider(
                credentials: credentials, region: region, audiences: audiences, algorithm: algorithm, durationSeconds: durationSeconds,
                environment: environment, http: http)
            provider = providers.withLock { providers in
                if let first = providers[key] { return first }
                providers[key] = made
                return made
            }
        }
        return try await provider.token()
    }
}
