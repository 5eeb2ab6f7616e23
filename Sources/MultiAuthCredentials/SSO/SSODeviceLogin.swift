public import MultiAuthCore
public import MultiAuthHTTP

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A whole IAM Identity Center login by device authorization, as `aws sso login` makes it:
/// RegisterClient, StartDeviceAuthorization, show the code and URL, poll CreateToken until the
/// user approves, then write the login to the AWS CLI's token cache, where the AWS CLI,
/// botocore and ``SSOTokenProvider`` all find it.
public struct SSODeviceLogin: Sendable {
    /// What the user must open and type.
    public struct Prompt: Sendable {
        /// The code to enter.
        public let userCode: String
        /// The page to enter it on.
        public let verificationURI: String
        /// The page with the code filled in, if the service gave one.
        public let verificationURIComplete: String?
    }

    let configuration: SSOSessionConfiguration
    let cache: SSOTokenCache
    let oidc: SSOOIDCClient
    let clock: TimeSource

    /// A login for `configuration`, with endpoints and the cache folder from `environment`
    /// (and `profile`'s endpoint settings, if one is named).
    public init(
        configuration: SSOSessionConfiguration, environment: [String: String], profile: String? = nil, http: any HTTPSender,
        clock: TimeSource = .system
    ) throws(CredentialsError) {
        self.configuration = configuration
        cache = SSOTokenCache(environment: environment)
        oidc = SSOOIDCClient(client: try SSOEndpoints(region: configuration.region, environment: environment, profile: profile, http: http).oidc)
        self.clock = clock
    }

    /// Runs the login; `show` is called once with the code to enter. Returns the cache file's
    /// path. Nothing is written unless the user approved and a token was issued.
    /// - Throws: ``CredentialsError/serviceError(service:code:message:)`` when the service
    ///   refuses (`AccessDeniedException`, `ExpiredTokenException`), or
    ///   ``CredentialsError/timedOut(source:seconds:)`` when the code expires unapproved.
    public func run(clientName: String = "multiauth", show: @Sendable (Prompt) async -> Void) async throws(CredentialsError) -> String {
        let registration = try await oidc.registerClient(name: clientName, scopes: configuration.registrationScopes)
        let device = try await oidc.startDeviceAuthorization(registration, startURL: configuration.startURL)
        await show(Prompt(userCode: device.userCode, verificationURI: device.verificationUri, verificationURIComplete: device.verificationUriComplete))
        let token = try await poll(device, registration: registration)
        guard token.expiresIn > 0 else {
            throw .serviceError(
                service: SSOOIDCClient.service, code: "UnusableAnswer",
                message: "CreateToken issued an access token that has already expired (expiresIn \(token.expiresIn))")
        }
        var fields: [String: JSONValue] = [
            "startUrl": .string(configuration.startURL), "region": .string(configuration.region),
            "accessToken": .string(token.accessToken), "expiresAt": .string(stamp(clock.now() + Double(token.expiresIn))),
            "clientId": .string(registration.clientId), "clientSecret": .string(registration.clientSecret),
            "registrationExpiresAt": .string(stamp(Double(registration.clientSecretExpiresAt))),
        ]
        if let refresh = token.refreshToken { fields["refreshToken"] = .string(refresh) }
        try checkWireSafe([("accessToken", token.accessToken)], source: SSOOIDCClient.service)
        try cache.write(SSOToken(fields: fields), for: configuration)
        return cache.path(for: configuration)
    }

    /// CreateToken every `interval` seconds (5 if unsaid; 5 more after SlowDownException)
    /// until approved, refused, or the device code's lifetime is over.
    private func poll(_ device: SSOOIDCClient.DeviceAuthorization, registration: SSOOIDCClient.Registration) async throws(CredentialsError) -> SSOOIDCClient.Token {
        var interval = max(1, device.interval ?? 5)
        guard interval < device.expiresIn else {
            throw .serviceError(
                service: SSOOIDCClient.service, code: "UnusableAnswer",
                message: "StartDeviceAuthorization asks for \(interval) s between polls, past the code's lifetime of \(device.expiresIn) s")
        }
        let deadline = clock.now() + Double(device.expiresIn)
        while true {
            do throws(CredentialsError) {
                return try await oidc.createToken(
                    clientId: registration.clientId, clientSecret: registration.clientSecret, grant: .deviceCode(device.deviceCode))
            } catch {
                guard case .serviceError(_, let code, _) = error.kind else { throw error }
                switch code {
                case "AuthorizationPendingException", "authorization_pending": break
                case "SlowDownException", "slow_down": interval += 5
                default: throw error
                }
            }
            guard clock.now() + Double(interval) < deadline else {
                throw .timedOut(source: "the SSO device approval for \(configuration.startURL)", seconds: Double(device.expiresIn))
            }
            do { try await Task.sleep(for: .seconds(interval)) } catch {
                throw .timedOut(source: "the SSO device approval for \(configuration.startURL) (cancelled)", seconds: 0)
            }
        }
    }

    private func stamp(_ seconds: Double) -> String { SSOToken.timestamp(Date(timeIntervalSince1970: seconds)) }
}
