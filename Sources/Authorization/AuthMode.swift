import CredentialProviders
import SigV4
import TokenProviders
import Subprocess

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The authorization modes AppSync and API Gateway accept, with AppSync's names.
public enum AuthMode: String, Sendable, CaseIterable, Codable {
    case apiKey = "API_KEY"
    case awsIAM = "AWS_IAM"
    case amazonCognitoUserPools = "AMAZON_COGNITO_USER_POOLS"
    case openIDConnect = "OPENID_CONNECT"
    case awsLambda = "AWS_LAMBDA"
}

/// Turns a request into an authorized one. Authorizers run last, after every other header
/// is in place, so a signature covers the final request.
public protocol RequestAuthorizer: Sendable {
    /// Adds the authorization to `request` for the time `date`.
    func authorize(_ request: SignableRequest, at date: SigningDate) async throws(AuthorizationError) -> SignableRequest
}

/// Why a request could not be authorized. Never carries a key, token or secret.
public enum AuthorizationError: Error, Sendable, Equatable, CustomStringConvertible {
    case credentials(CredentialsError)
    case signing(SigningError)
    case tokenUnavailable(String)

    public var description: String {
        switch self {
        case .credentials(let error): error.description
        case .signing(let error): error.description
        case .tokenUnavailable(let reason): "no token: \(reason)"
        }
    }
}

/// A value read on every request, so rotation takes effect at once (API keys, tokens).
public struct SecretSource: Sendable {
    let read: @Sendable () async throws(AuthorizationError) -> String

    /// A source that calls `read` each time.
    public init(_ read: @escaping @Sendable () async throws(AuthorizationError) -> String) {
        self.read = read
    }

    /// A fixed value.
    public static func fixed(_ value: String) -> SecretSource { SecretSource { value } }

    /// The current token of `kind` from a token provider (refreshed ahead of expiry by a
    /// ``RefreshingTokenProvider``), for the user-pool, OIDC and Lambda modes.
    public static func token(from provider: any TokenProvider, kind: AuthTokens.Kind = .id) -> SecretSource {
        SecretSource { () async throws(AuthorizationError) -> String in
            do throws(TokenError) {
                let token = try await provider.token(kind)
                return token.value
            } catch { throw .tokenUnavailable(error.description) }
        }
    }

    /// The trimmed standard output of `/bin/sh -c command`, run for every request.
    public static func command(_ command: String) -> SecretSource {
        SecretSource { () async throws(AuthorizationError) -> String in
            do {
                let result = try await Subprocess.run(
                    .path("/bin/sh"), arguments: ["-c", command], output: .string(limit: 1 << 20), error: .discarded)
                let text = result.standardOutput
                guard case .exited(0) = result.terminationStatus else {
                    throw AuthorizationError.tokenUnavailable("token command exited with \(result.terminationStatus)")
                }
                let token = text.trimmedWhitespace
                guard !token.isEmpty else { throw AuthorizationError.tokenUnavailable("token command printed nothing") }
                return token
            } catch let error as AuthorizationError {
                throw error
            } catch {
                throw .tokenUnavailable("token command could not be started")
            }
        }
    }
}

/// API_KEY: `x-api-key`, read from its source for every request.
public struct APIKeyAuthorizer: RequestAuthorizer {
    let key: SecretSource

    /// Creates an authorizer.
    public init(key: SecretSource) { self.key = key }

    public func authorize(_ request: SignableRequest, at date: SigningDate) async throws(AuthorizationError) -> SignableRequest {
        var request = request
        request.headers.removeAll(named: "x-api-key")
        request.headers.append(name: "x-api-key", value: try await key.read())
        return request
    }
}

/// AMAZON_COGNITO_USER_POOLS, OPENID_CONNECT and AWS_LAMBDA: `Authorization: <token>`
/// (the raw token, AppSync's convention), or `Bearer <token>` when asked.
public struct TokenAuthorizer: RequestAuthorizer {
    let token: SecretSource
    let bearer: Bool

    /// Creates an authorizer.
    public init(token: SecretSource, bearer: Bool = false) {
        self.token = token
        self.bearer = bearer
    }

    public func authorize(_ request: SignableRequest, at date: SigningDate) async throws(AuthorizationError) -> SignableRequest {
        var request = request
        let value = try await token.read()
        request.headers.removeAll(named: "authorization")
        request.headers.append(name: "Authorization", value: bearer ? "Bearer \(value)" : value)
        return request
    }
}

/// AWS_IAM: SigV4 with credentials from a provider, resolved per request (they rotate).
public struct IAMAuthorizer: RequestAuthorizer {
    let credentials: any CredentialsProvider
    let region: String
    let service: String
    let options: SigningOptions?
    let onSigned: (@Sendable (SigningResult) -> Void)?

    /// Creates an authorizer for `service` (`execute-api`, `appsync`, ...) in `region`.
    /// `onSigned` sees each signing's stages (for `-v`).
    public init(
        credentials: any CredentialsProvider, region: String, service: String, options: SigningOptions? = nil,
        onSigned: (@Sendable (SigningResult) -> Void)? = nil
    ) {
        self.credentials = credentials
        self.region = region
        self.service = service
        self.options = options
        self.onSigned = onSigned
    }

    public func authorize(_ request: SignableRequest, at date: SigningDate) async throws(AuthorizationError) -> SignableRequest {
        let resolved: ExpiringCredentials
        do { resolved = try await credentials.credentials() } catch { throw .credentials(error) }
        let signer = SigV4Signer(credentials: resolved.credentials, region: region, service: service, options: options)
        do {
            let result = try signer.signHeaders(request, date: date)
            onSigned?(result)
            return result.signedRequest
        } catch {
            throw .signing(error)
        }
    }
}

/// No authorization.
public struct NoAuthorizer: RequestAuthorizer {
    /// Creates it.
    public init() {}

    public func authorize(_ request: SignableRequest, at date: SigningDate) async throws(AuthorizationError) -> SignableRequest {
        request
    }
}

/// The signing region and service for API Gateway and AppSync hosts:
/// `*.execute-api.REGION.amazonaws.com` and `*.appsync-api.REGION.amazonaws.com`.
public enum EndpointInference {
    /// (region, service) when `host` is a known AWS API endpoint.
    public static func regionAndService(host: String) -> (region: String, service: String)? {
        let labels = host.lowercased().split(separator: ".")
        guard labels.count >= 5, labels[labels.count - 2] == "amazonaws" else { return nil }
        for (marker, service) in [("execute-api", "execute-api"), ("appsync-api", "appsync")] {
            if let index = labels.firstIndex(where: { $0 == marker }), index + 1 < labels.count {
                return (String(labels[index + 1]), service)
            }
        }
        return nil
    }
}
