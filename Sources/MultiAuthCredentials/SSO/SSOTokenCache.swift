public import MultiAuthCore
import MultiAuthCrypto

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// One SSO login as the AWS CLI caches it in `~/.aws/sso/cache/<sha1 of the cache key>.json`:
/// `startUrl`, `region`, `accessToken`, `expiresAt`, and for refreshing `clientId`,
/// `clientSecret`, `registrationExpiresAt`, `refreshToken`. Fields MultiAuth does not know are
/// kept when the file is written back. ``description`` never shows a token or secret.
public struct SSOToken: Sendable, RedactedDescribing {
    /// Every field of the file.
    var fields: [String: JSONValue]

    /// The access token (the portal's `x-amz-sso_bearer_token`).
    public var accessToken: String { fields["accessToken"]?.stringValue ?? "" }
    /// When the access token expires.
    public var expiresAt: Date? { fields["expiresAt"]?.stringValue.flatMap(ISO8601.parse) }
    /// The start URL the login is for, if the file says.
    public var startURL: String? { fields["startUrl"]?.stringValue }
    /// The registered client's id, secret and expiry, and the refresh token: all present
    /// when the token can be refreshed.
    var registration: (clientId: String, clientSecret: String, expiresAt: Date, refreshToken: String)? {
        guard let id = fields["clientId"]?.stringValue, let secret = fields["clientSecret"]?.stringValue,
            let expiry = fields["registrationExpiresAt"]?.stringValue.flatMap(ISO8601.parse),
            let refresh = fields["refreshToken"]?.stringValue
        else { return nil }
        return (id, secret, expiry, refresh)
    }

    init(fields: [String: JSONValue]) { self.fields = fields }

    public var description: String {
        "SSO token for \(startURL ?? "an unknown start URL")" + (expiresAt.map { " expiring \($0)" } ?? "")
    }

    /// `date` as the AWS CLI and botocore write it: `2026-11-23T18:00:00Z`.
    static func timestamp(_ date: Date) -> String {
        Date(timeIntervalSince1970: date.timeIntervalSince1970.rounded(.down)).formatted(.iso8601)
    }
}

/// The folder of SSO token caches and the file for one login.
public struct SSOTokenCache: Sendable {
    /// The folder, `~/.aws/sso/cache` by default.
    public let folder: String

    /// The folder under `environment`'s `HOME`.
    public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        folder = (environment["HOME"] ?? ".") + "/.aws/sso/cache"
    }

    /// A cache in `folder`.
    public init(folder: String) { self.folder = folder }

    /// The file of `configuration`'s login.
    public func path(for configuration: SSOSessionConfiguration) -> String {
        folder + "/" + CacheKeyDigest.sha1Hex(configuration.cacheKey) + ".json"
    }

    /// The cached login, or nil when there is none.
    /// - Throws: ``CredentialsError/ssoCache(path:problem:)`` for a file that is not a token
    ///   cache or is for another start URL.
    public func read(_ configuration: SSOSessionConfiguration) throws(CredentialsError) -> SSOToken? {
        let path = path(for: configuration)
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        guard case .object(let fields)? = try? JSONDecoding.decode(JSONValue.self, from: data, what: path),
            fields["accessToken"]?.stringValue != nil, fields["expiresAt"]?.stringValue.flatMap(ISO8601.parse) != nil
        else {
            throw .ssoCache(path: path, problem: "is not an SSO token cache (JSON with accessToken and expiresAt)")
        }
        let token = SSOToken(fields: fields)
        if let startURL = token.startURL, startURL != configuration.startURL {
            throw .ssoCache(path: path, problem: "is for start URL \(startURL), not \(configuration.startURL)")
        }
        return token
    }

    /// Writes `token` as `configuration`'s login, atomically, mode 0600, in a 0700 folder.
    public func write(_ token: SSOToken, for configuration: SSOSessionConfiguration) throws(CredentialsError) {
        do throws(CacheFileWrite.Failure) { try CacheFileWrite.write(token.fields, to: path(for: configuration), in: folder) } catch {
            throw .ssoCache(path: error.path, problem: error.problem)
        }
    }

    /// The lock file that serializes refreshes of `configuration`'s login between processes
    /// (a refresh rotates the refresh token, so two at once would lose one).
    func lockPath(for configuration: SSOSessionConfiguration) -> String { path(for: configuration) + ".lock" }
}
