public import MultiAuthCore
public import MultiAuthSigV4

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// Credentials with the time they stop working (nil: long-term keys).
public struct ExpiringCredentials: Sendable, Equatable, CustomStringConvertible {
    /// The key pair and token, read together (never torn).
    public let credentials: AWSCredentials
    /// When they expire.
    public let expiration: Date?
    /// Where they came from (`environment`, `profile 'dev'`, `STS AssumeRole`, ...), for
    /// people and logs; never a secret.
    public let source: String

    /// Creates a value.
    public init(_ credentials: AWSCredentials, expiration: Date? = nil, source: String = "static credentials") {
        self.credentials = credentials
        self.expiration = expiration
        self.source = source
    }

    public var description: String {
        "\(credentials) from \(source)" + (expiration.map { " expiring \($0)" } ?? "")
    }
}

/// A source of AWS credentials. Implementations are safe to call from many tasks.
public protocol CredentialsProvider: Sendable {
    /// Current credentials.
    func credentials() async throws(CredentialsError) -> ExpiringCredentials
}

/// Why credentials could not be resolved. Messages name files, lines, profiles and
/// services, never a secret, token or key.
public struct CredentialsError: CodedError, Sendable, Equatable {
    /// The failure with its details.
    package let kind: Kind
    /// The error behind a case that holds only words: the failed AWS call (an `AWSCallError`).
    package var cause: UnderlyingError?

    /// The error for `kind`, caused by `cause`.
    package init(_ kind: Kind, cause: (any Error & Sendable)? = nil) {
        self.kind = kind
        self.cause = cause.map { UnderlyingError($0) }
    }

    /// What failed, as a stable name to switch on (an `ErrorCode`).
    public var code: ErrorCode { kind.code }
    /// What failed and where, in one line; never a secret.
    public var message: String { kind.description }
    /// The error that caused this one, when there is one: for a failed AWS call, its
    /// `AWSCallError` (service, operation, AWS error code, status, request id, attempts).
    public var underlying: (any Error & Sendable)? { cause?.error ?? kind.underlying }

    /// Two errors are equal when they report the same failure; their causes are not compared.
    public static func == (lhs: CredentialsError, rhs: CredentialsError) -> Bool { lhs.kind == rhs.kind }
    public var description: String { message }
}

extension CredentialsError {
    public static func notFound(_ value: String) -> CredentialsError { CredentialsError(.notFound(value)) }
    public static func profileNotFound(profile: String, files: [String]) -> CredentialsError {
        CredentialsError(.profileNotFound(profile: profile, files: files))
    }
    public static func malformedFile(path: String, line: Int, problem: String) -> CredentialsError {
        CredentialsError(.malformedFile(path: path, line: line, problem: problem))
    }
    public static func incompleteProfile(profile: String, problem: String) -> CredentialsError {
        CredentialsError(.incompleteProfile(profile: profile, problem: problem))
    }
    public static func profileCycle(_ value: [String]) -> CredentialsError { CredentialsError(.profileCycle(value)) }
    public static func credentialProcessFailed(command: String, problem: String) -> CredentialsError {
        CredentialsError(.credentialProcessFailed(command: command, problem: problem))
    }
    public static func expired(source: String, at: Date) -> CredentialsError {
        CredentialsError(.expired(source: source, at: at))
    }
    public static func serviceError(service: String, code: String, message: String) -> CredentialsError {
        CredentialsError(.serviceError(service: service, code: code, message: message))
    }
    public static func transport(service: String, problem: String) -> CredentialsError {
        CredentialsError(.transport(service: service, problem: problem))
    }
    /// A credentials endpoint was refused before any request: `rule` says why.
    public static func refusedEndpoint(source: String, url: String, rule: String) -> CredentialsError {
        CredentialsError(.refusedEndpoint(source: source, url: url, rule: rule))
    }
    /// A command run for credentials did not finish in time and was stopped.
    public static func timedOut(source: String, seconds: Double) -> CredentialsError {
        CredentialsError(.timedOut(source: source, seconds: seconds))
    }
    /// A credential value holds a line break or another control character, so it cannot be
    /// sent; `source` says where it came from, `field` which value it is.
    public static func unsafeValue(source: String, field: String) -> CredentialsError {
        CredentialsError(.unsafeValue(source: source, field: field))
    }
    /// A setting (`source`: the variable or config key) has a value that cannot be used.
    public static func invalidSetting(source: String, problem: String) -> CredentialsError {
        CredentialsError(.invalidSetting(source: source, problem: problem))
    }
    /// An SSO token cache file (or its folder) cannot be used.
    public static func ssoCache(path: String, problem: String) -> CredentialsError {
        CredentialsError(.ssoCache(path: path, problem: problem))
    }
    /// There is no usable SSO login: none cached, or expired and not refreshable. `command`
    /// is what renews it.
    public static func ssoLoginNeeded(what: String, command: String) -> CredentialsError {
        CredentialsError(.ssoLoginNeeded(what: what, command: command))
    }
    /// A profile with `mfa_serial` needs a session and there is no MFA code for it (none
    /// given, or its source failed: `problem` says how). The code itself is never reported.
    public static func mfaCodeUnavailable(profile: String, serial: String, problem: String) -> CredentialsError {
        CredentialsError(.mfaCodeUnavailable(profile: profile, serial: serial, problem: problem))
    }
    /// The X.509 certificate or key that signs for credentials (IAM Roles Anywhere) cannot be
    /// read or cannot sign.
    public static func certificate(_ error: X509IdentityError) -> CredentialsError { CredentialsError(.certificate(error)) }
    /// An `aws login` session file (named by `path`) is unusable.
    public static func loginCache(path: String, problem: String) -> CredentialsError { CredentialsError(.loginCache(path: path, problem: problem)) }
    /// The `aws login` session is missing or can no longer be refreshed: `command` signs in again.
    public static func loginNeeded(what: String, command: String) -> CredentialsError { CredentialsError(.loginNeeded(what: what, command: command)) }
    /// A SAML response fails a check (`problem` says which); the assertion is never shown.
    public static func samlResponse(_ problem: String) -> CredentialsError { CredentialsError(.samlResponse(problem)) }
    /// The SAML assertion offers several roles and none was chosen: `offered` lists them.
    public static func samlRoleNotChosen(offered: [String]) -> CredentialsError { CredentialsError(.samlRoleNotChosen(offered: offered)) }
    /// The task was cancelled during `what` (the cause is a `CancellationError`).
    public static func cancelled(what: String) -> CredentialsError { CredentialsError(.cancelled(what: what)) }
}

extension CredentialsError {
    /// Each failure with its details, for matching inside MultiAuth; callers switch on
    /// ``CredentialsError/code``.
    package enum Kind: Sendable, Equatable, CustomStringConvertible, ErrorKind {
        case notFound(String)
        case profileNotFound(profile: String, files: [String])
        case malformedFile(path: String, line: Int, problem: String)
        case incompleteProfile(profile: String, problem: String)
        case profileCycle([String])
        case credentialProcessFailed(command: String, problem: String)
        case expired(source: String, at: Date)
        case serviceError(service: String, code: String, message: String)
        case transport(service: String, problem: String)
        case refusedEndpoint(source: String, url: String, rule: String)
        case timedOut(source: String, seconds: Double)
        case unsafeValue(source: String, field: String)
        case invalidSetting(source: String, problem: String)
        case ssoCache(path: String, problem: String)
        case ssoLoginNeeded(what: String, command: String)
        case mfaCodeUnavailable(profile: String, serial: String, problem: String)
        case certificate(X509IdentityError)
        case loginCache(path: String, problem: String)
        case loginNeeded(what: String, command: String)
        case samlResponse(String)
        case samlRoleNotChosen(offered: [String])
        case cancelled(what: String)

        /// The error this case keeps as its cause.
        package var underlying: (any Error & Sendable)? {
            switch self {
            case .certificate(let error): error
            case .cancelled: CancellationError()
            default: nil
            }
        }

        package var description: String {
            switch self {
            case .notFound(let what): "no credentials: \(what)"
            case .profileNotFound(let profile, let files):
                "profile '\(profile)' not found in \(files.joined(separator: " or "))"
            case .malformedFile(let path, let line, let problem): "\(path):\(line): \(problem)"
            case .incompleteProfile(let profile, let problem): "profile '\(profile)': \(problem)"
            case .profileCycle(let chain): "source_profile cycle: \(chain.joined(separator: " -> "))"
            case .credentialProcessFailed(let command, let problem): "credential_process '\(command)' failed: \(problem)"
            case .expired(let source, let date): "credentials from \(source) expired at \(date)"
            case .serviceError(let service, let code, let message): "\(service) refused: \(code): \(message)"
            case .transport(let service, let problem): "cannot reach \(service): \(problem)"
            case .refusedEndpoint(let source, let url, let rule): "\(source) names \(Redaction.url(url)), which is refused: \(rule)"
            case .timedOut(let source, let seconds): "\(source) did not finish within \(seconds.secondsText) s and was stopped"
            case .unsafeValue(let source, let field): "\(field) from \(source) contains a line break or a control character, so it cannot be sent"
            case .invalidSetting(let source, let problem): "\(source): \(problem)"
            case .ssoCache(let path, let problem): "SSO token cache \(path) \(problem)"
            case .ssoLoginNeeded(let what, let command): "\(what): run \(command)"
            case .mfaCodeUnavailable(let profile, let serial, let problem): "profile '\(profile)' (mfa_serial \(serial)): \(problem)"
            case .certificate(let error): error.description
            case .loginCache(let path, let problem): "login session cache \(path) \(problem)"
            case .loginNeeded(let what, let command): "\(what): run `\(command)` again"
            case .samlResponse(let problem): "the SAML response cannot be used: \(problem)"
            case .cancelled(let what): "\(what) was cancelled"
            case .samlRoleNotChosen(let offered): "the SAML assertion offers \(offered.count) roles and none was chosen: \(offered.joined(separator: ", "))"
            }
        }
    }
}

/// Fixed credentials.
public struct StaticCredentialsProvider: CredentialsProvider {
    let value: ExpiringCredentials
    let clock: TimeSource

    /// Creates a provider that always returns `credentials`, until `expiration` by `clock`.
    public init(_ credentials: AWSCredentials, expiration: Date? = nil, clock: TimeSource = .system) {
        value = ExpiringCredentials(credentials, expiration: expiration)
        self.clock = clock
    }

    public func credentials() async throws(CredentialsError) -> ExpiringCredentials {
        if let expiration = value.expiration, expiration.timeIntervalSince1970 <= clock.now() {
            throw .expired(source: "static credentials", at: expiration)
        }
        return value
    }
}

/// `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN` (or the legacy
/// `AWS_SECURITY_TOKEN`) and `AWS_CREDENTIAL_EXPIRATION` (ISO 8601).
public struct EnvironmentCredentialsProvider: CredentialsProvider {
    let environment: [String: String]
    let clock: TimeSource

    /// Reads `environment` (default: the process environment) on every call; an
    /// `AWS_CREDENTIAL_EXPIRATION` is compared with `clock`.
    public init(environment: [String: String]? = nil, clock: TimeSource = .system) {
        self.environment = environment ?? ProcessInfo.processInfo.environment
        self.clock = clock
    }

    public func credentials() async throws(CredentialsError) -> ExpiringCredentials {
        try read()
    }

    /// The credentials the environment holds now, read without waiting (for callers that are
    /// not async, such as the CLI's `sign`).
    public func read() throws(CredentialsError) -> ExpiringCredentials {
        guard let keyId = nonEmpty(environment["AWS_ACCESS_KEY_ID"]),
            let secret = nonEmpty(environment["AWS_SECRET_ACCESS_KEY"])
        else { throw .notFound("AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are not both set") }
        let token = nonEmpty(environment["AWS_SESSION_TOKEN"]) ?? nonEmpty(environment["AWS_SECURITY_TOKEN"])
        try checkWireSafe([("AWS_ACCESS_KEY_ID", keyId), ("AWS_SESSION_TOKEN", token)], source: "the environment")
        let expiration = environment["AWS_CREDENTIAL_EXPIRATION"].flatMap(ISO8601.parse)
        if let expiration, expiration.timeIntervalSince1970 <= clock.now() {
            throw .expired(source: "AWS_CREDENTIAL_EXPIRATION", at: expiration)
        }
        return ExpiringCredentials(AWSCredentials(accessKeyId: keyId, secretAccessKey: secret, sessionToken: token),
                                   expiration: expiration, source: "environment")
    }
}

/// Refuses credential values that could not go on the wire (one check: ``WireText``).
func checkWireSafe(_ values: [(field: String, value: String?)], source: String) throws(CredentialsError) {
    for (field, value) in values where !WireText.isSafe(value ?? "") { throw .unsafeValue(source: source, field: field) }
}

func nonEmpty(_ value: String?) -> String? {
    guard let value, !value.isEmpty else { return nil }
    return value
}

/// ISO 8601 timestamps as AWS writes them (`2026-11-22T06:00:00Z`, optional fractions).
enum ISO8601 {
    static func parse(_ text: String) -> Date? {
        var trimmed = text.trimmedWhitespace
        // Old AWS CLI versions wrote SSO cache expiries as `2019-11-14T04:05:45UTC`.
        if trimmed.hasSuffix("UTC") { trimmed = trimmed.dropLast(3) + "Z" }
        if let date = try? Date(trimmed, strategy: .iso8601) { return date }
        let withoutFraction = trimmed.replacing(/\.\d+/, with: "")
        return try? Date(withoutFraction, strategy: .iso8601)
    }
}

extension CredentialsError.Kind {
    /// `Credentials.` and the case's name, fixed once published.
    package var code: ErrorCode {
        switch self {
        case .notFound: "Credentials.notFound"
        case .profileNotFound: "Credentials.profileNotFound"
        case .malformedFile: "Credentials.malformedFile"
        case .incompleteProfile: "Credentials.incompleteProfile"
        case .profileCycle: "Credentials.profileCycle"
        case .credentialProcessFailed: "Credentials.credentialProcessFailed"
        case .expired: "Credentials.expired"
        case .serviceError: "Credentials.serviceError"
        case .transport: "Credentials.transport"
        case .refusedEndpoint: "Credentials.refusedEndpoint"
        case .timedOut: "Credentials.timedOut"
        case .unsafeValue: "Credentials.unsafeValue"
        case .invalidSetting: "Credentials.invalidSetting"
        case .ssoCache: "Credentials.ssoCache"
        case .ssoLoginNeeded: "Credentials.ssoLoginNeeded"
        case .mfaCodeUnavailable: "Credentials.mfaCodeUnavailable"
        case .certificate: "Credentials.certificate"
        case .loginCache: "Credentials.loginCache"
        case .loginNeeded: "Credentials.loginNeeded"
        case .samlResponse: "Credentials.samlResponse"
        case .samlRoleNotChosen: "Credentials.samlRoleNotChosen"
        case .cancelled: "Credentials.cancelled"
        }
    }
}
