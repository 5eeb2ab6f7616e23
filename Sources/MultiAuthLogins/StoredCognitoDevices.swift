import MultiAuthCore
import MultiAuthCrypto
public import MultiAuthStore
public import MultiAuthTokens

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Remembered Cognito devices in the credential store: one item per pool user id, under the
/// pool's environment, so a device made for one pool is never offered to another.
public struct StoredCognitoDevices: CognitoDeviceStore {
    /// The store service name; the account is the pool's user id.
    public static let service = "multiauth.cognito-device"
    let store: CredentialStore
    let configuration: CognitoUserPoolConfiguration

    /// Devices of `configuration`'s pool in `store`.
    public init(store: CredentialStore, configuration: CognitoUserPoolConfiguration) {
        self.store = store
        self.configuration = configuration
    }

    public func device(for userId: String) async throws(TokenError) -> CognitoRememberedDevice? {
        guard var bytes = try await store.itemIfPresent(service: Self.service, account: userId, environment: configuration.environment) else {
            return nil
        }
        defer { SecureMemory.zero(&bytes) }
        do {
            return try JSONDecoding.decode(CognitoRememberedDevice.self, from: bytes, what: "the device kept for '\(userId)' in \(store.path)")
        } catch {
            throw .storage(UnderlyingError(error))
        }
    }

    public func save(_ device: CognitoRememberedDevice, for userId: String) async throws(TokenError) {
        guard var bytes = try? Array(JSONEncoder().encode(device)) else { throw .local("cannot encode the device") }
        defer { SecureMemory.zero(&bytes) }
        do {
            try await store.set(bytes, service: Self.service, account: userId, label: "Cognito device", environment: configuration.environment)
        } catch { throw .storage(UnderlyingError(error)) }
    }

    public func remove(for userId: String) async throws(TokenError) {
        do { try await store.delete(service: Self.service, account: userId) } catch {
            if case .itemNotFound = error.kind { return }
            throw .storage(UnderlyingError(error))
        }
    }
}
