import ArgumentParser
import MultiAuthCore
import MultiAuthCredentials
import MultiAuthCrypto
import MultiAuthTokens
import MultiAuthWebAuthn
import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// How `multiauth login cognito` answers challenges: a code from `--mfa-code` (used once),
/// from the kept TOTP secret, from `--mfa-code-command`, or from a prompt on the terminal;
/// without any of them, an error naming the challenge and the flags, never a wait.
final class CognitoChallengeAnswers: CognitoChallengeResponder {
    let mfaCode: String?
    let mfaCodeCommand: String?
    let mfaType: CognitoMFAKind?
    /// Codes made from the TOTP secret kept in the store, if any.
    let keptTOTP: TOTPGenerator?
    /// At TOTP set-up, make the first code from the new secret and keep the secret.
    let storeTOTPSecret: Bool
    let newPassword: @Sendable (String) async throws(TokenError) -> [UInt8]
    /// Custom challenge answers, one per round in order, then the command, then the terminal.
    let customAnswers: [String]
    let customAnswerCommand: String?
    /// The authenticator and origin for WEB_AUTHN.
    let passkeys: PasskeyArguments?
    /// The secret of a TOTP set-up made during this sign-in, to keep after it succeeds.
    let setUpSecret = Mutex<String?>(nil)
    private let flagCodeUsed = Mutex(false)
    private let customRound = Mutex(0)

    init(
        mfaCode: String?, mfaCodeCommand: String?, mfaType: CognitoMFAKind?, keptTOTP: TOTPGenerator?, storeTOTPSecret: Bool,
        customAnswers: [String] = [], customAnswerCommand: String? = nil, passkeys: PasskeyArguments? = nil,
        newPassword: @escaping @Sendable (String) async throws(TokenError) -> [UInt8]
    ) {
        self.mfaCode = mfaCode
        self.mfaCodeCommand = mfaCodeCommand
        self.mfaType = mfaType
        self.keptTOTP = keptTOTP
        self.storeTOTPSecret = storeTOTPSecret
        self.customAnswers = customAnswers
        self.customAnswerCommand = customAnswerCommand
        self.passkeys = passkeys
        self.newPassword = newPassword
    }

    static let how = "give --mfa-code or --mfa-code-command, or run in a terminal"

    func newPassword(for username: String) async throws(TokenError) -> [UInt8] { try await newPassword(username) }

    func code(for kind: CognitoMFAKind, destination: String?) async throws(TokenError) -> [UInt8] {
        if kind == .totp, let keptTOTP { return Array(keptTOTP.code(at: Int64(Date().timeIntervalSince1970)).utf8) }
        return try await externalCode(for: kind.rawValue, prompt: "Code for \(kind.rawValue)" + (destination.map { " (sent to \($0))" } ?? "") + ": ")
    }

    func chooseMFA(from options: [CognitoMFAKind]) async throws(TokenError) -> CognitoMFAKind {
        if let mfaType, options.contains(mfaType) { return mfaType }
        if keptTOTP != nil, options.contains(.totp) { return .totp }
        if options.count == 1 { return options[0] }
        let names = options.map { CognitoMFAKind.flagName($0) }.joined(separator: ", ")
        throw .challengeNeedsInput(challenge: "SELECT_MFA_TYPE (\(names))", how: "give --mfa-type")
    }

    func confirmTOTPSetup(_ setup: CognitoTOTPSetup) async throws(TokenError) -> [UInt8] {
        StandardError.emit("MFA set-up for \(setup.username): add this secret to an authenticator app (it is shown once):")
        StandardError.emit("  secret: \(setup.secret)")
        StandardError.emit("  \(setup.otpauthURI)")
        await QRCode.show(setup.otpauthURI)
        if storeTOTPSecret {
            setUpSecret.withLock { $0 = setup.secret }
            do { return Array(try TOTPGenerator(base32Secret: setup.secret).code(at: Int64(Date().timeIntervalSince1970)).utf8) } catch {
                throw .malformedResponse(provider: "Cognito", problem: "the TOTP secret is not base32")
            }
        }
        return try await externalCode(for: "MFA_SETUP", prompt: "Code from the authenticator app: ")
    }

    func chooseFirstFactor(from options: [CognitoFirstFactor]) async throws(TokenError) -> CognitoFirstFactor {
        if options.count == 1 { return options[0] }
        let names = options.map { CognitoFirstFactorArgument($0).rawValue }.joined(separator: ", ")
        throw .challengeNeedsInput(challenge: "SELECT_CHALLENGE (\(names))", how: "give --challenge")
    }

    /// `--custom-answer` for the round, else `--custom-answer-command` (the challenge's
    /// parameters in MULTIAUTH_CHALLENGE_<NAME> variables, for names of letters, digits and `_`),
    /// else the terminal.
    func answer(_ challenge: CognitoCustomChallenge) async throws(TokenError) -> [UInt8] {
        let round = customRound.withLock { round in defer { round += 1 }; return round }
        if round < customAnswers.count { return Array(customAnswers[round].utf8) }
        let shown = challenge.parameters.filter { $0.key != "USERNAME" }.sorted { $0.key < $1.key }
        if let customAnswerCommand {
            // Only names that are shell variable names are exported: a parameter name comes from
            // the server and must never become shell syntax.
            let exports = shown.filter { Self.isVariableName($0.key) }.map { "MULTIAUTH_CHALLENGE_\($0.key.uppercased())=\(Self.shellQuoted($0.value))" }.joined(separator: " ")
            return try await commandOutput(exports.isEmpty ? customAnswerCommand : "export \(exports); \(customAnswerCommand)", flag: "--custom-answer-command", challenge: "CUSTOM_CHALLENGE")
        }
        StandardError.emit("Custom challenge: " + shown.map { "\($0.key)=\(Redaction.quoted($0.value))" }.joined(separator: " "))
        guard let typed = TerminalPrompt.readSecret("Answer: "), !typed.isEmpty else {
            throw .challengeNeedsInput(challenge: "CUSTOM_CHALLENGE", how: "give --custom-answer or --custom-answer-command, or run in a terminal")
        }
        return typed
    }

    func passkeyAssertion(for options: JSONValue) async throws(TokenError) -> JSONValue {
        guard let passkeys else { throw .unsupportedChallenge("WEB_AUTHN") }
        StandardError.emit("Touch your security key to sign in with your passkey.")
        do throws(WebAuthnError) { return try await passkeys.client().authenticate(options) } catch {
            throw .passkey(error)
        }
    }

    /// `--mfa-code` (once), then `--mfa-code-command`, then the terminal.
    private func externalCode(for challenge: String, prompt: String) async throws(TokenError) -> [UInt8] {
        if let mfaCode, flagCodeUsed.withLock({ used in defer { used = true }; return !used }) { return Array(mfaCode.utf8) }
        if let mfaCodeCommand { return try await commandOutput(mfaCodeCommand, flag: "--mfa-code-command", challenge: challenge) }
        guard let typed = TerminalPrompt.readSecret(prompt), !typed.isEmpty else {
            throw .challengeNeedsInput(challenge: challenge, how: Self.how)
        }
        return typed
    }

    /// A command's standard output, trimmed; it must print something within the time limit.
    private func commandOutput(_ command: String, flag: String, challenge: String) async throws(TokenError) -> [UInt8] {
        let output: [UInt8]
        do throws(ShellCommandError) { output = try await ShellCommand.output(of: command, timeout: CommandTimeout.defaultSeconds) } catch {
            throw .challengeNeedsInput(challenge: challenge, how: "\(flag) failed: \(error)")
        }
        let text = String(decoding: output, as: UTF8.self).trimmedWhitespace
        guard !text.isEmpty else { throw .challengeNeedsInput(challenge: challenge, how: "\(flag) printed nothing") }
        return Array(text.utf8)
    }

    private static func isVariableName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x7a) || $0 == 0x5f }
    }

    private static func shellQuoted(_ text: String) -> String { "'" + text.replacing("'", with: "'\\''") + "'" }
}

extension CognitoMFAKind {
    /// The `--mfa-type` spelling.
    static func flagName(_ kind: CognitoMFAKind) -> String {
        switch kind {
        case .totp: "totp"
        case .sms: "sms"
        case .email: "email"
        case .smsOTP: "sms"
        }
    }
}

/// `--challenge` spellings of USER_AUTH's first factors.
enum CognitoFirstFactorArgument: String, ExpressibleByArgument, CaseIterable {
    case password, passwordSRP = "password-srp", emailOTP = "email-otp", smsOTP = "sms-otp", webAuthn = "web-authn"

    init(_ factor: CognitoFirstFactor) {
        switch factor {
        case .password: self = .password
        case .passwordSRP: self = .passwordSRP
        case .emailOTP: self = .emailOTP
        case .smsOTP: self = .smsOTP
        case .webAuthn: self = .webAuthn
        }
    }

    var factor: CognitoFirstFactor {
        switch self {
        case .password: .password
        case .passwordSRP: .passwordSRP
        case .emailOTP: .emailOTP
        case .smsOTP: .smsOTP
        case .webAuthn: .webAuthn
        }
    }
}
