import Foundation
import MultiAuthCore
public import MultiAuthStore
import NIOSSL
public import PostgresNIO

/// Where a PostgreSQL store is: `postgres://USER[:PASSWORD]@HOST[:PORT]/DB[?sslmode=MODE][&store=NAME]`
/// (`postgresql://` too). The password comes from the URL or `PGPASSWORD`, and is never part of
/// ``location``. `sslmode` is libpq's: `disable`, `prefer` (the default), `require` (encrypted,
/// the server not checked), or `verify-full` (the certificate checked against the system's
/// roots, or `sslrootcert=FILE`). `store` names the row, so one database can hold several
/// stores (default `default`).
public struct PostgresStoreURL: Sendable {
    /// The server's host name or address.
    public let host: String
    /// The server's port.
    public let port: Int
    /// The database user.
    public let user: String
    /// The database.
    public let database: String
    /// The store's name (its row).
    public let storeName: String
    /// libpq's `sslmode`.
    public let sslMode: String
    let password: String?
    let rootCertificates: String?

    /// Parses `text`; `environment` supplies `PGPASSWORD` when the URL has no password.
    /// - Throws: ``StoreError/readFailed(path:reason:)`` naming the part that is wrong (the
    ///   message never holds the password).
    public init(_ text: String, environment: [String: String]) throws(StoreError) {
        guard let url = Self.split(text) else {
            throw .readFailed(path: Self.redacted(text), reason: "not a postgres://USER@HOST:PORT/DB URL")
        }
        let query = url.query
        if let unknown = query.keys.sorted().first(where: { !Self.parameters.contains($0) }) {
            throw .readFailed(
                path: Self.redacted(text),
                reason: "unknown parameter '\(Redaction.quoted(unknown, limit: 40))' (known: \(Self.parameters.sorted().joined(separator: ", ")))")
        }
        guard ["disable", "prefer", "require", "verify-full"].contains(query["sslmode"] ?? "prefer") else {
            throw .readFailed(path: Self.redacted(text), reason: "sslmode must be disable, prefer, require or verify-full")
        }
        host = url.host
        port = url.port
        user = url.user
        database = url.database
        storeName = query["store"] ?? "default"
        sslMode = query["sslmode"] ?? "prefer"
        rootCertificates = query["sslrootcert"]
        password = url.password ?? environment["PGPASSWORD"]
    }

    /// The query parameters a store URL may have: any other (a misspelt `sslMode`, say) is
    /// refused rather than ignored, since ignoring it could mean a plaintext connection.
    static let parameters: Set<String> = ["sslmode", "sslrootcert", "store"]

    /// True for the URL schemes this backend takes.
    public static func isPostgres(_ text: String) -> Bool { text.hasPrefix("postgres://") || text.hasPrefix("postgresql://") }

    /// The URL without its password, for messages.
    public var location: String {
        "postgres://\(user)@\(host):\(port)/\(database)" + (storeName == "default" ? "" : "?store=\(storeName)")
    }

    /// postgres-nio's settings for this URL, connecting within `connectTimeout` seconds.
    func configuration(connectTimeout: Double) throws(StoreError) -> PostgresConnection.Configuration {
        var configuration = PostgresConnection.Configuration(
            host: host, port: port, username: user, password: password, database: database, tls: try tls())
        configuration.options.connectTimeout = .milliseconds(Int64(connectTimeout * 1000))
        return configuration
    }

    /// postgres-nio's `PostgresClient` settings for this URL: connecting within `connectTimeout`,
    /// at most `maximumConnections` open at once.
    public func clientConfiguration(connectTimeout: Duration, maximumConnections: Int) -> PostgresClient.Configuration {
        var configuration = PostgresClient.Configuration(
            host: host, port: port, username: user, password: password, database: database, tls: poolTLS)
        configuration.options.connectTimeout = connectTimeout
        configuration.options.maximumConnections = maximumConnections
        return configuration
    }

    private var poolTLS: PostgresClient.Configuration.TLS {
        guard sslMode != "disable" else { return .disable }
        let settings = tlsSettings
        return sslMode == "prefer" ? .prefer(settings) : .require(settings)
    }

    private var tlsSettings: TLSConfiguration {
        var settings = TLSConfiguration.makeClientConfiguration()
        if sslMode == "verify-full" {
            if let rootCertificates { settings.trustRoots = .file(rootCertificates) }
        } else {
            settings.certificateVerification = .none
        }
        return settings
    }

    private func tls() throws(StoreError) -> PostgresConnection.Configuration.TLS {
        guard sslMode != "disable" else { return .disable }
        let context: NIOSSLContext
        do { context = try NIOSSLContext(configuration: tlsSettings) } catch {
            throw .readFailed(path: location, reason: "TLS settings: \(error)")
        }
        return sslMode == "prefer" ? .prefer(context) : .require(context)
    }

    private struct Parts {
        var user: String, password: String?, host: String, port: Int, database: String, query: [String: String]
    }

    private static func split(_ text: String) -> Parts? {
        guard let scheme = text.range(of: "://"), isPostgres(text) else { return nil }
        var rest = Substring(text[scheme.upperBound...])
        var query: [String: String] = [:]
        if let mark = rest.firstIndex(of: "?") {
            for pair in rest[rest.index(after: mark)...].split(separator: "&") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                guard parts.count == 2 else { return nil }
                query[percentDecoded(parts[0])] = percentDecoded(parts[1])
            }
            rest = rest[..<mark]
        }
        guard let at = rest.lastIndex(of: "@"), let slash = rest[at...].firstIndex(of: "/") else { return nil }
        let credentials = rest[..<at].split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        let address = rest[rest.index(after: at)..<slash]
        let database = percentDecoded(rest[rest.index(after: slash)...])
        guard let user = credentials.first.map(percentDecoded), !user.isEmpty, !database.isEmpty, !database.contains("/") else { return nil }
        let hostAndPort = address.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        guard let host = hostAndPort.first, !host.isEmpty else { return nil }
        let port = hostAndPort.count == 2 ? Int(hostAndPort[1]) : 5432
        guard let port, (1...65535).contains(port) else { return nil }
        return Parts(
            user: user, password: credentials.count == 2 ? percentDecoded(credentials[1]) : nil, host: String(host), port: port,
            database: database, query: query)
    }

    private static func percentDecoded(_ text: Substring) -> String { String(text).removingPercentEncoding ?? String(text) }

    /// A URL that did not parse, as a message may quote it (no user information).
    static func redacted(_ text: String) -> String { Redaction.url(text) }
}
