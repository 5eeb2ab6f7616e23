import CredentialStore
import Testing
import TokenProviders

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

    @Test func theCLIAddsItsHint() async throws {
        let run = try await CLITests.run(["token", "--store", "/nonexistent/store", "--key-file", "/nonexistent/key"])
        #expect(run.status == 1)
        #expect(run.stderr == "multiauth: error: no store at /nonexistent/store: create one with 'multiauth store init'\n", "\(run.stderr)")
    }
}
