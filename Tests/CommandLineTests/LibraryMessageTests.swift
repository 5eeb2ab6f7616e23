import IntegrationSupport
import MultiAuthAuthorization
import MultiAuthCore
import MultiAuthHTTP
import MultiAuthStore
import MultiAuthTokens
import Testing

/// Library errors say what and where; the command to type next is the CLI's to add.
@Suite(.timeLimit(.minutes(5)))
struct LibraryMessageTests {
    @Test func libraryErrorsGiveNoCLIAdvice() {
        let errors: [any CustomStringConvertible] = [
            StoreError.storeMissing(path: "/x/store"), StoreError.keyUnavailable("no key file at /x/key"),
            StoreError.environmentMismatch(service: "s", account: "a", fields: ["region"]),
            TokenError.loginRequired(name: "default", reason: "refresh token revoked"),
        ]
        for error in errors { #expect(!error.description.contains("multiauth"), "\(error.description)") }
    }

    /// Callers switch on codes (`Domain.kind`, fixed once published), never on the enums'
    /// cases; an error that wraps another keeps it whole, code and all.
    @Test func errorsCarryStableCodesAndKeepTheirCause() async throws {
        let store = CredentialStore(path: "/nonexistent/store", keySource: .keyFile(path: "/nonexistent/key"))
        await #expect { _ = try await store.list() } throws: { error in
            switch (error as? any CodedError)?.code {
            case "Store.storeMissing": true
            default: false
            }
        }
        let wrapped = TokenError.storage(UnderlyingError(StoreError.storeMissing(path: "/x/store"), context: "saving"))
        guard case .storage(let underlying) = wrapped.kind else { Issue.record("not .storage"); return }
        #expect(underlying.error as? StoreError == .storeMissing(path: "/x/store"))
        #expect(underlying.code == "Store.storeMissing" && wrapped.code == "Token.storage")
        #expect(wrapped.description == "saving: no store at /x/store")
        #expect(RequestError.transport(.cancelled).code == "HTTPTransport.cancelled")
    }

    @Test func theCLIAddsItsHint() async throws {
        let run = try await CLI.run(["token", "--store", "/nonexistent/store", "--key-file", "/nonexistent/key"])
        #expect(run.status == 1)
        #expect(run.stderr == "multiauth: error: no store at /nonexistent/store: create one with 'multiauth store init'\n", "\(run.stderr)")
    }
}
