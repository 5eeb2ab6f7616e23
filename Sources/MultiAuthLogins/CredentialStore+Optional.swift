import MultiAuthCore
import MultiAuthStore
import MultiAuthTokens

extension CredentialStore {
    /// The item, or nil when there is no store, no such item, or only one made for another
    /// environment: for what a sign-in may use when it is there (a device, a TOTP secret).
    func itemIfPresent(service: String, account: String, environment: StoreEnvironment) async throws(TokenError) -> [UInt8]? {
        do { return try await get(service: service, account: account, environment: environment) } catch {
            switch error.kind {
            case .itemNotFound, .storeMissing, .environmentMismatch: return nil
            default: throw .storage(UnderlyingError(error))
            }
        }
    }
}
