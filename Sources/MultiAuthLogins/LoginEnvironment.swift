public import MultiAuthStore
public import MultiAuthTokens

// The store environment of each provider: tokens made for one backend (pool, client,
// region, endpoint; or issuer and client) are never used against another.

extension CognitoUserPoolConfiguration {
    /// The environment the login's tokens belong to in the credential store.
    public var environment: StoreEnvironment {
        StoreEnvironment([
            StoreEnvironment.Field.region: region, StoreEnvironment.Field.userPoolId: userPoolId,
            StoreEnvironment.Field.appClientId: clientId, "endpoint": endpoint,
        ])
    }
}

extension OIDCConfiguration {
    /// The environment the login's tokens belong to in the credential store.
    public var environment: StoreEnvironment {
        StoreEnvironment([StoreEnvironment.Field.oidcIssuer: issuer, StoreEnvironment.Field.oidcClientId: clientId])
    }
}
