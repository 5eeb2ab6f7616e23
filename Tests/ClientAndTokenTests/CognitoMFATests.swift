import Foundation
import IntegrationSupport
import Testing

/// `multiauth login cognito` against moto's TOTP MFA (codes checked against moto's fixed
/// secret with the `cryptography` package): set-up at the first sign-in, then TOTP
/// challenges answered from a command (codes made by `cryptography` too), from a wrong flag,
/// from the kept secret (codes made by our RFC 6238 generator, which moto must accept), and
/// not at all.
@Suite(.timeLimit(.minutes(5)), .enabled(if: Peers.available, Peers.reason), .serialized) struct CognitoMFATests {
    static let password = "Str0ng-Passw0rd!"
    static let motoSecret = "asdfasdfasdf"  // moto's COGNITO_TOTP_MFA_SECRET
    static var codeCommand: String { "\(Paths.python) \(Paths.repository.path)/scripts/oracles/totp_code.py \(motoSecret)" }

    /// A fresh user of the MFA pool (each first sign-in sets TOTP up).
    static func freshUser() async throws -> String {
        try await Peers.newCognitoUser("mfa", pool: try #require(Peers.setup).mfaUserPoolId, password: password)
    }

    static func login(
        _ user: String, _ store: TempStore, _ extra: [String] = [], environment: [String: String] = [:]
    ) async throws -> CLI.Run {
        let setup = try #require(Peers.setup)
        return try await CLI.run(
            ["login", "cognito", "--user-pool-id", setup.mfaUserPoolId, "--client-id", setup.mfaClientId, "--endpoint", Peers.moto,
             "--username", user, "--password-stdin", "--name", "mfa"] + extra + store.arguments, environment: environment,
            input: password + "\n")
    }

    /// The set-up URI holds the TOTP secret: `qrencode` gets it on its standard input, never
    /// on its command line, which any user of the host can read in `/proc`.
    @Test func theQRCodeIsDrawnFromStandardInput() async throws {
        let folder = try ScratchFolder("qrencode")
        defer { folder.remove() }
        _ = try folder.script("qrencode", "printf '%s\\n' \"$@\" > \(folder.path)/argv; cat > \(folder.path)/stdin; echo QR-DRAWN")
        let path = folder.path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        let user = try await Self.freshUser()
        let store = try await TempStore()
        let run = try await Self.login(user, store, ["--mfa-code-command", Self.codeCommand], environment: ["PATH": path])
        #expect(run.status == 0 && run.stderr.contains("QR-DRAWN"), "\(run.stderr)")
        let argv = try String(contentsOfFile: folder.path + "/argv", encoding: .utf8)
        let stdin = try String(contentsOfFile: folder.path + "/stdin", encoding: .utf8)
        #expect(argv == "-t\nANSIUTF8\n", "\(argv)")
        #expect(stdin.hasPrefix("otpauth://totp/") && stdin.contains(Self.motoSecret), "\(stdin)")
    }

    @Test func setUpThenCodesFromACommandAndAWrongCodeIsTyped() async throws {
        let user = try await Self.freshUser()
        let store = try await TempStore()
        let first = try await Self.login(user, store, ["--mfa-code-command", Self.codeCommand])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stderr.contains("secret: \(Self.motoSecret)") && first.stderr.contains("otpauth://totp/"))
        #expect(first.stderr.contains("Logged in as"))
        let second = try await Self.login(user, store, ["--mfa-code-command", Self.codeCommand])
        #expect(second.status == 0 && !second.stderr.contains("secret:"), "\(second.stderr)")
        let wrong = try await Self.login(user, store, ["--mfa-code", "12345"])
        #expect(wrong.status == 3 && wrong.stderr.contains("the code is wrong"), "\(wrong.stderr)")
        #expect(!wrong.stderr.contains("12345") && !wrong.stderr.contains(Self.password))
    }

    /// --store-totp-secret: our generator makes the set-up code and every later one, and moto
    /// (checking with `cryptography`) accepts them; nothing is asked.
    @Test func aKeptSecretMakesSignInsUnattended() async throws {
        let user = try await Self.freshUser()
        let store = try await TempStore()
        let first = try await Self.login(user, store, ["--store-totp-secret"])
        #expect(first.status == 0 && first.stderr.contains("kept in the store"), "\(first.stderr)")
        let second = try await Self.login(user, store)
        #expect(second.status == 0, "\(second.stderr)")
        let listed = try await CLI.run(["store", "list"] + store.arguments)
        #expect(listed.stdout.contains("multiauth.totp") && !listed.stdout.contains(Self.motoSecret))
        let token = try await CLI.run(["token", "--name", "mfa"] + store.arguments)
        #expect(token.status == 0 && token.stdout.split(separator: ".").count == 3)
    }

    @Test func noCodeAndNoTerminalNamesTheChallengeAndTheFlags() async throws {
        let user = try await Self.freshUser()
        let store = try await TempStore()
        await #expect(try Self.login(user, store, ["--mfa-code-command", Self.codeCommand]).status == 0)
        let run = try await Self.login(user, store)
        #expect(run.status == 2, "\(run.stderr)")
        #expect(run.stderr.contains("the sign-in asks for SOFTWARE_TOKEN_MFA: give --mfa-code or --mfa-code-command, or run in a terminal"))
    }
}
