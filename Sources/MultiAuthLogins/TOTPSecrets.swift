import MultiAuthCore
package import MultiAuthCrypto
package import MultiAuthStore
package import MultiAuthTokens

/// TOTP secrets kept in the credential store at the user's request (`--store-totp-secret`),
/// so codes can be made without an authenticator app for unattended sign-ins. Kept under the
/// pool's environment and the login's name; never printed.
package struct TOTPSecrets: Sendable {
    /// The store service name; the account is the login's name.
    package static let service = "multiauth.totp"
    /// The store.
    package let store: CredentialStore

    /// Secrets in `store`.
    package init(store: CredentialStore) { self.store = store }

    /// Keeps `secret` (base32) for the login `name` of `configuration`'s pool.
    package func save(_ secret: String, name: String, configuration: CognitoUserPoolConfiguration) async throws(TokenError) {
        var bytes = Array(secret.utf8)
        defer { SecureMemory.zero(&bytes) }
        do {
            try await store.set(bytes, service: Self.service, account: name, label: "TOTP secret", environment: configuration.environment)
        } catch { throw .storage(UnderlyingError(error)) }
    }

    /// A generator for the secret kept for `name`, or nil when none is kept.
    package func generator(name: String, configuration: CognitoUserPoolConfiguration) async throws(TokenError) -> TOTPGenerator? {
        guard var bytes = try await store.itemIfPresent(service: Self.service, account: name, environment: configuration.environment) else {
            return nil
        }
        defer { SecureMemory.zero(&bytes) }
        do { return try TOTPGenerator(base32Secret: String(decoding: bytes, as: UTF8.self)) } catch {
            throw .storage(UnderlyingError(error, context: "the TOTP secret kept for login '\(name)'"))
        }
    }
}
