import Foundation
import MultiAuthCore
import MultiAuthLogins
import MultiAuthStore
import MultiAuthTesting
import MultiAuthTokens
import Testing

/// Logins saved in a credential store: by name, under their provider's environment, and
/// never readable in the file.
struct LoginStoreTests {
    static let tokens = AuthTokens(idToken: "id-token-secret", accessToken: "access-token-secret", refreshToken: "refresh-token-secret", expiresAt: 1_800_000_000)

    static func record(pool: String = "eu-west-1_Example") throws -> LoginRecord {
        LoginRecord(
            provider: .cognito(try CognitoUserPoolConfiguration(userPoolId: pool, clientId: "client-1", endpoint: "https://cognito.example")),
            flow: "srp", tokens: tokens)
    }

    static func logins(_ folder: TemporaryFolder) async throws -> LoginStore {
        let store = CredentialStore(path: folder.file("logins.store"), keySource: .dataKey([UInt8](repeating: 4, count: 32)))
        try await store.initialize()
        return LoginStore(store: store)
    }

    @Test func aLoginComesBackAsSavedAndIsNotReadableInTheFile() async throws {
        let folder = TemporaryFolder()
        let logins = try await Self.logins(folder)
        try await logins.save(try Self.record(), name: "work")
        #expect(try await logins.load(name: "work") == (try Self.record()))
        #expect(try await logins.load(name: "work", expecting: try Self.record().environment) == (try Self.record()))
        let bytes = try Data(contentsOf: URL(fileURLWithPath: logins.store.path))
        for secret in ["id-token-secret", "access-token-secret", "refresh-token-secret"] {
            #expect(bytes.range(of: Data(secret.utf8)) == nil)
        }
    }

    @Test func anUnknownOrRemovedLoginNeedsALogin() async throws {
        let folder = TemporaryFolder()
        let logins = try await Self.logins(folder)
        await #expect { _ = try await logins.load(name: "nobody") } throws: { ($0 as? TokenError)?.code == "Token.loginRequired" }
        try await logins.save(try Self.record(), name: "work")
        try await logins.remove(name: "work")
        await #expect { _ = try await logins.load(name: "work") } throws: { ($0 as? TokenError)?.code == "Token.loginRequired" }
    }

    /// Tokens made for one user pool are never handed to another: the store's environment
    /// check refuses them, and the store's error is kept as the cause.
    @Test func aLoginForAnotherPoolIsRefused() async throws {
        let folder = TemporaryFolder()
        let logins = try await Self.logins(folder)
        try await logins.save(try Self.record(), name: "work")
        let other = try Self.record(pool: "eu-west-1_Other").environment
        await #expect {
            _ = try await logins.load(name: "work", expecting: other)
        } throws: { error in
            guard let error = error as? TokenError else { return false }
            return error.code == "Token.storage" && error.cause(as: StoreError.self)?.code == "Store.environmentMismatch"
                && !error.message.contains("token-secret")
        }
    }

    @Test func aRecordNeverPrintsItsTokens() throws {
        let text = "\(try Self.record())"
        #expect(text.contains("srp") && !text.contains("token-secret"))
    }
}
