public import MultiAuthCore
import MultiAuthCrypto
import MultiAuthSigV4

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// One `aws login` session as the AWS CLI writes it and botocore's `LoginProvider` reads it:
/// `accessToken` (`accessKeyId`, `secretAccessKey`, `sessionToken`, `accountId`, `expiresAt`),
/// `refreshToken`, `clientId` and `dpopKey` (the DPoP proof key, SEC1 PEM). Fields MultiAuth
/// does not know are kept when the file is written back. ``description`` shows no secret.
public struct LoginSession: Sendable, RedactedDescribing {
    var fields: [String: JSONValue]

    var accessToken: [String: JSONValue] { fields["accessToken"]?.objectValue ?? [:] }
    /// When the session's keys expire.
    public var expiresAt: Date? { accessToken["expiresAt"]?.stringValue.flatMap(ISO8601.parse) }
    /// The account the session is in.
    public var accountId: String? { accessToken["accountId"]?.stringValue }
    var clientId: String? { fields["clientId"]?.stringValue }
    var refreshToken: String? { fields["refreshToken"]?.stringValue }
    var dpopKey: String? { fields["dpopKey"]?.stringValue }

    /// The session's keys, when the file has them all.
    var credentials: ExpiringCredentials? {
        guard let id = accessToken["accessKeyId"]?.stringValue, let secret = accessToken["secretAccessKey"]?.stringValue,
            let token = accessToken["sessionToken"]?.stringValue
        else { return nil }
        return ExpiringCredentials(AWSCredentials(accessKeyId: id, secretAccessKey: secret, sessionToken: token), expiration: expiresAt, source: "login session")
    }

    init(fields: [String: JSONValue]) { self.fields = fields }

    public var description: String { "login session for account \(accountId ?? "unknown")" + (expiresAt.map { " expiring \($0)" } ?? "") }
}

/// The folder of `aws login` sessions: `AWS_LOGIN_CACHE_DIRECTORY`, else `~/.aws/login/cache`,
/// one file per session named by the SHA-256 of the session's name.
public struct LoginSessionCache: Sendable {
    /// The folder.
    public let folder: String

    /// The folder `environment` names (botocore's rule).
    public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        folder = environment["AWS_LOGIN_CACHE_DIRECTORY"].flatMap(nonEmpty) ?? (environment["HOME"] ?? ".") + "/.aws/login/cache"
    }

    /// A cache in `folder`.
    public init(folder: String) { self.folder = folder }

    /// The file of session `name`.
    public func path(for name: String) -> String { folder + "/" + SHA256Hasher.hash(Array(name.utf8)).hex + ".json" }

    /// The lock file that serializes refreshes of session `name` between processes (a refresh
    /// rotates the refresh token, so two at once would spend it twice).
    func lockPath(for name: String) -> String { path(for: name) + ".lock" }

    /// Session `name`, or nil when there is no file.
    /// - Throws: ``CredentialsError/loginCache(path:problem:)`` for a file that is not a login
    ///   session (JSON with `accessToken`, `refreshToken`, `clientId` and `dpopKey`).
    public func read(_ name: String) throws(CredentialsError) -> LoginSession? {
        let path = path(for: name)
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        let bytes: [UInt8]
        switch BoundedFileRead.contents(atPath: path, limit: 1 << 20) {
        case .success(let read): bytes = read
        case .failure(let failure): throw .loginCache(path: path, problem: "cannot be read: \(failure)")
        }
        guard case .object(let fields)? = try? JSONDecoding.decode(JSONValue.self, from: bytes, what: path) else {
            throw .loginCache(path: path, problem: "is not JSON")
        }
        let session = LoginSession(fields: fields)
        let missing = ["accessToken", "refreshToken", "clientId", "dpopKey"].filter { fields[$0] == nil }
        guard missing.isEmpty else { throw .loginCache(path: path, problem: "lacks \(missing.joined(separator: ", "))") }
        guard session.credentials != nil, session.expiresAt != nil else {
            throw .loginCache(path: path, problem: "has no complete accessToken (accessKeyId, secretAccessKey, sessionToken, expiresAt)")
        }
        return session
    }

    /// Writes `session` as `name`, atomically, mode 0600, in a 0700 folder.
    public func write(_ session: LoginSession, as name: String) throws(CredentialsError) {
        do throws(CacheFileWrite.Failure) { try CacheFileWrite.write(session.fields, to: path(for: name), in: folder) } catch {
            throw .loginCache(path: error.path, problem: error.problem)
        }
    }
}
