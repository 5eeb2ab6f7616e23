/// Where temporary credentials a profile obtained (STS AssumeRole, AssumeRoleWithWebIdentity,
/// GetSessionToken, SSO role credentials) are kept between calls and between processes, so a
/// session is obtained once and not once per command.
public protocol SessionCache: Sendable {
    /// The cached session for `key` when one is still usable, else the result of `obtain`,
    /// kept for the next caller. An implementation shared by processes lets one of them at a
    /// time obtain a session for a key, and the others use what it obtained.
    func session(
        for key: SessionKey, obtain: () async throws(CredentialsError) -> ExpiringCredentials
    ) async throws(CredentialsError) -> ExpiringCredentials

    /// The session a person signed in for and kept under `name` (`multiauth login saml
    /// --name NAME`), which a profile names with `saml_session = NAME`.
    func signedInSession(named name: String, profile: String) async throws(CredentialsError) -> ExpiringCredentials
}

extension SessionCache {
    /// A cache that keeps no signed-in sessions has none to give.
    public func signedInSession(named name: String, profile: String) async throws(CredentialsError) -> ExpiringCredentials {
        throw .incompleteProfile(profile: profile, problem: "saml_session \(name) is kept in the credential store, which is not open here")
    }
}

/// What a cached session belongs to: a profile, and the settings that shaped its session.
/// A session is used only for the same settings: a changed `role_arn`, `mfa_serial` or
/// `duration_seconds` (or other config files) makes a new one.
public struct SessionKey: Sendable, Hashable {
    /// The profile's name.
    public let profile: String
    /// The profile's settings, secrets left out (`aws_secret_access_key`,
    /// `aws_session_token`), and `files`: the config files they came from.
    public let settings: [String: String]

    /// A key.
    public init(profile: String, settings: [String: String]) {
        self.profile = profile
        self.settings = settings
    }

    /// The settings of a profile that are never part of a key.
    static let secretSettings: Set<String> = ["aws_secret_access_key", "aws_session_token", "aws_security_token"]

    init(profile: String, profileSettings: [String: String], files: [String]) {
        var settings = profileSettings.filter { !Self.secretSettings.contains($0.key) }
        settings["files"] = files.joined(separator: "\n")
        self.init(profile: profile, settings: settings)
    }
}
