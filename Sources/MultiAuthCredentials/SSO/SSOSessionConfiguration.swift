import MultiAuthCore

/// An IAM Identity Center (SSO) login as a profile names it: an `[sso-session NAME]` section
/// (`sso_start_url`, `sso_region`, `sso_registration_scopes`) through `sso_session`, or the
/// legacy form with `sso_start_url` and `sso_region` in the profile itself.
public struct SSOSessionConfiguration: Sendable, Equatable {
    /// The `sso-session` name; nil for the legacy form.
    public let sessionName: String?
    /// The AWS access portal URL.
    public let startURL: String
    /// The region of IAM Identity Center.
    public let region: String
    /// Scopes asked for at registration (`sso:account:access` by default).
    public let registrationScopes: [String]

    /// The token cache key: the session name, or the start URL for the legacy form (the AWS
    /// CLI's rule).
    public var cacheKey: String { sessionName ?? startURL }

    /// How `multiauth login sso` is told to renew this login.
    var loginHint: String { sessionName.map { "--sso-session \($0)" } ?? "--profile" }

    /// Creates a configuration.
    public init(sessionName: String?, startURL: String, region: String, registrationScopes: [String] = ["sso:account:access"]) {
        self.sessionName = sessionName
        self.startURL = startURL
        self.region = region
        self.registrationScopes = registrationScopes
    }

    /// The login `profile` uses, or nil when it has no SSO settings.
    /// - Throws: ``CredentialsError/incompleteProfile(profile:problem:)`` for a missing section
    ///   or key.
    public static func of(profile name: String, in files: SharedConfigFiles) throws(CredentialsError) -> SSOSessionConfiguration? {
        guard let settings = files.profiles[name] else { return nil }
        if let session = settings["sso_session"] {
            return try named(session, in: files, for: "profile '\(name)'")
        }
        guard let startURL = settings["sso_start_url"] else { return nil }
        guard let region = nonEmpty(settings["sso_region"]) else {
            throw .incompleteProfile(profile: name, problem: "sso_start_url without sso_region")
        }
        return SSOSessionConfiguration(sessionName: nil, startURL: startURL, region: try checkedRegion(region, source: "profile '\(name)' sso_region"))
    }

    /// The `[sso-session NAME]` section.
    public static func named(_ session: String, in files: SharedConfigFiles, for user: String? = nil) throws(CredentialsError) -> SSOSessionConfiguration {
        let who = user ?? "sso-session '\(session)'"
        guard let section = files.ssoSessions[session] else {
            throw .notFound("\(who) names sso_session '\(session)', but \(files.paths.last ?? "the config file") has no [sso-session \(session)] section")
        }
        guard let startURL = nonEmpty(section["sso_start_url"]), let region = nonEmpty(section["sso_region"]) else {
            throw .incompleteProfile(profile: who, problem: "[sso-session \(session)] needs sso_start_url and sso_region")
        }
        let scopes = section["sso_registration_scopes"].map {
            $0.split(separator: ",").map { $0.trimmedWhitespace }.filter { !$0.isEmpty }
        }
        let checked = try checkedRegion(region, source: "[sso-session \(session)] sso_region")
        return SSOSessionConfiguration(sessionName: session, startURL: startURL, region: checked, registrationScopes: scopes ?? ["sso:account:access"])
    }
}
