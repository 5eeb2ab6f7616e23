public import MultiAuthTokens

extension AWSConfiguration {
    /// The `CognitoUserPool` section as a sign-in configuration (what `multiauth login
    /// cognito --config` uses), or nil when the file has none.
    /// - Throws: `TokenError.invalidParameter(provider:message:)` when the pool's region is
    ///   not a region name.
    public var cognitoSignIn: CognitoUserPoolConfiguration? {
        get throws(TokenError) {
            guard let section = userPool else { return nil }
            return try CognitoUserPoolConfiguration(
                userPoolId: section.poolId, clientId: section.appClientId, clientSecret: section.appClientSecret,
                region: section.region.isEmpty ? nil : section.region, endpoint: section.endpoint)
        }
    }

    /// The `OIDC` section as a sign-in configuration (what `multiauth login oidc --config`
    /// uses), or nil when the file has none.
    public var openIDConnectSignIn: OIDCConfiguration? {
        oidc.map { OIDCConfiguration(issuer: $0.issuer, clientId: $0.clientId, clientSecret: $0.clientSecret) }
    }
}
