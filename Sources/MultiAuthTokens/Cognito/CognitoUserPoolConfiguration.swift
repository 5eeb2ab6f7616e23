import MultiAuthCore
import MultiAuthCrypto

/// Which user pool and app client to sign in to.
public struct CognitoUserPoolConfiguration: Sendable, Codable, Equatable {
    /// The pool id, `REGION_NAME` (e.g. `us-east-1_AbCdEf123`).
    public var userPoolId: String
    /// The app client id.
    public var clientId: String
    /// The app client secret, when the client has one (then every call carries SECRET_HASH).
    public var clientSecret: String?
    /// The pool's region.
    public var region: String
    /// The Cognito Identity Provider endpoint (default: `AWS_ENDPOINT_URL_COGNITO_IDENTITY_PROVIDER`,
    /// `AWS_ENDPOINT_URL`, then `https://cognito-idp.REGION.amazonaws.com/`).
    public var endpoint: String

    /// - Parameters:
    ///   - userPoolId: `REGION_ID`, as the pool's console shows it.
    ///   - clientId: the app client.
    ///   - clientSecret: the app client's secret, when it has one (sent as a SECRET_HASH).
    ///   - region: default: the part of `userPoolId` before `_`.
    ///   - endpoint: default: `AWS_ENDPOINT_URL_COGNITO_IDENTITY_PROVIDER`, `AWS_ENDPOINT_URL`,
    ///     then `https://cognito-idp.REGION.amazonaws.com/`.
    /// - Throws: ``TokenError/invalidParameter(provider:message:)`` when the region (given, or
    ///   the pool id's prefix) is not a region name (`RegionName`).
    public init(
        userPoolId: String, clientId: String, clientSecret: String? = nil, region: String? = nil, endpoint: String? = nil
    ) throws(TokenError) {
        self.userPoolId = userPoolId
        self.clientId = clientId
        self.clientSecret = clientSecret
        let source = region == nil ? "the user pool id's region prefix" : "the user pool's region"
        let resolvedRegion = region ?? userPoolId.split(separator: "_").first.map(String.init) ?? "us-east-1"
        do {
            self.region = try RegionName.validated(resolvedRegion, source: source)
            if let endpoint { self.endpoint = endpoint } else { self.endpoint = try ServiceEndpoint.resolve(service: "cognito-idp", region: resolvedRegion).url }
        } catch {
            throw .invalidParameter(provider: "Cognito user pool configuration", message: String(describing: error))
        }
    }

    /// The pool name used by SRP: the part of the pool id after `_`.
    public var poolName: String { userPoolId.split(separator: "_", maxSplits: 1).last.map(String.init) ?? userPoolId }
}

/// SECRET_HASH = base64(HMAC-SHA256(client secret, username ‖ client id)), which Cognito
/// requires on every call when the app client has a secret.
public enum CognitoSecretHash {
    /// The SECRET_HASH for `username` (the USERNAME sent in that call).
    public static func compute(username: String, clientId: String, clientSecret: String) -> String {
        Base64.encode(HMACSHA256Key(key: Array(clientSecret.utf8)).authenticationCode(for: Array((username + clientId).utf8)).bytes)
    }
}

extension CognitoUserPoolConfiguration {
    /// The `Logins` key Cognito Identity expects for this pool's ID tokens.
    public var identityLoginsKey: String { "cognito-idp.\(region).amazonaws.com/\(userPoolId)" }

    /// The `Logins` map for `CredentialProviders`' Cognito Identity provider, from a login's tokens.
    public func identityLogins(_ tokens: AuthTokens) throws(TokenError) -> [String: String] {
        [identityLoginsKey: try tokens.token(.id)]
    }
}
