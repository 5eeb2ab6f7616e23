import TokenProviders

extension AWSConfiguration {
    /// The `CognitoUserPool` section as a sign-in configuration (what `multiauth login
    /// cognito --config` uses), or nil when the file has none.
    public var cognitoSignIn: CognitoUserPoolConfiguration? {
        userPool.map {
            CognitoUserPoolConfiguration(
                userPoolId: $0.poolId, clientId: $0.appClientId, clientSecret: $0.appClientSecret,
                region: $0.region.isEmpty ? nil : $0.region, endpoint: $0.endpoint)
        }
    }

    /// The `OIDC` section as a sign-in configuration (what `multiauth login oidc --config`
    /// uses), or nil when the file has none.
    public var openIDConnectSignIn: OIDCConfiguration? {
        oidc.map { OIDCConfiguration(issuer: $0.issuer, clientId: $0.clientId, clientSecret: $0.clientSecret) }
    }
}
