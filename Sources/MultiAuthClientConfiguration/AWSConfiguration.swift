public import MultiAuthCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One `AppSync` entry of `awsconfiguration.json`: a GraphQL API and how to authorize calls to it.
public struct AppSyncEntry: Sendable, Equatable {
    /// The entry's key (`Default`, `friendly_name_AWS_IAM`, ...).
    public let name: String
    /// `ApiUrl`: the GraphQL endpoint.
    public let apiURL: String
    /// `Region`.
    public let region: String
    /// `AuthMode`.
    public let authMode: AuthMode
    /// `ApiKey`, required for `API_KEY`.
    public let apiKey: String?
    /// `ClientDatabasePrefix`: names this client's databases (`<prefix>_queries.db`, ...).
    public let clientDatabasePrefix: String?
}

/// `CognitoUserPool.Default`.
public struct UserPoolSection: Sendable, Equatable {
    /// `PoolId`, `AppClientId`, `AppClientSecret`, `Region`.
    public let poolId: String, appClientId: String, appClientSecret: String?, region: String
    /// Our extension: `Endpoint`, for a local Cognito peer.
    public let endpoint: String?
}

/// `CredentialsProvider.CognitoIdentity.Default`.
public struct IdentityPoolSection: Sendable, Equatable {
    /// `PoolId` and `Region`.
    public let poolId: String, region: String
}

/// Our `OIDC.Default` block: the provider behind `OPENID_CONNECT` entries.
public struct OIDCSection: Sendable, Equatable {
    /// `Issuer`, `ClientId`, and an optional `ClientSecret`.
    public let issuer: String, clientId: String, clientSecret: String?
}

/// A parsed `awsconfiguration.json` (the format Amplify CLI writes for the AppSync SDK).
///
/// Entries are checked in the AppSync SDK's order — `ApiUrl`, `Region`, `AuthMode`, then
/// `ApiKey` for `API_KEY` — and the prefix rule `^[_a-zA-Z0-9]+$`. An entry with a problem is
/// kept out of ``appSync`` and its problem listed in ``problems``.
public struct AWSConfiguration: Sendable {
    /// The file read.
    public let file: String
    /// The valid AppSync entries, by name.
    public let appSync: [AppSyncEntry]
    /// What is wrong with the other entries (or sections), in order.
    public let problems: [ConfigurationError]
    /// The user pool, if configured.
    public let userPool: UserPoolSection?
    /// The identity pool, if configured.
    public let identityPool: IdentityPoolSection?
    /// The OIDC provider, if configured.
    public let oidc: OIDCSection?

    /// Reads and parses `path`.
    public static func load(path: String) throws(ConfigurationError) -> AWSConfiguration {
        switch BoundedFileRead.contents(atPath: path, limit: BoundedFileRead.configLimit) {
        case .success(let data): return try parse(data, file: path)
        case .failure(let failure):
            guard case .unreadable(let reason) = failure.kind else { throw .unreadable(file: path, reason: failure.description) }
            throw .unreadable(file: path, reason: reason)
        }
    }

    /// Parses `bytes` (named `file` in messages).
    /// - Throws: ``ConfigurationError/invalidJSON(file:line:column:problem:)`` or, when the
    ///   `AppSync` section itself is missing, ``ConfigurationError/invalid(file:path:problem:)``.
    public static func parse(_ bytes: [UInt8], file: String) throws(ConfigurationError) -> AWSConfiguration {
        if let problem = JSONSyntax.firstProblem(in: bytes) {
            throw .invalidJSON(file: file, line: problem.line, column: problem.column, problem: problem.message)
        }
        guard let root = try? JSONDecoding.decode(JSONValue.self, from: bytes, what: file), case .object(let members) = root else {
            throw .invalid(file: file, path: "(root)", problem: "must be a JSON object")
        }
        let reader = ConfigurationReader(file: file)
        guard case .object(let section)? = members["AppSync"] else {
            throw .invalid(file: file, path: "AppSync", problem: members["AppSync"] == nil ? "missing" : "must be an object")
        }
        guard !section.isEmpty else { throw .invalid(file: file, path: "AppSync", problem: "has no entries") }
        var entries: [AppSyncEntry] = []
        var problems: [ConfigurationError] = []
        for name in section.keys.sorted() {
            do throws(ConfigurationError) { entries.append(try reader.appSyncEntry(name: name, section[name] ?? .null)) } catch {
                problems.append(error)
            }
        }
        problems += reader.duplicatePrefixes(entries)
        var userPool: UserPoolSection?
        var identityPool: IdentityPoolSection?
        var oidc: OIDCSection?
        do throws(ConfigurationError) {
            userPool = try reader.userPool(members["CognitoUserPool"])
        } catch { problems.append(error) }
        do throws(ConfigurationError) {
            identityPool = try reader.identityPool(members["CredentialsProvider"])
        } catch { problems.append(error) }
        do throws(ConfigurationError) { oidc = try reader.oidc(members["OIDC"]) } catch { problems.append(error) }
        return AWSConfiguration(
            file: file, appSync: entries, problems: problems, userPool: userPool, identityPool: identityPool, oidc: oidc)
    }

    /// The configuration, or its first problem.
    public func validated() throws(ConfigurationError) -> AWSConfiguration {
        if let first = problems.first { throw first }
        return self
    }

    /// The entry named `name`.
    public func entry(named name: String) throws(ConfigurationError) -> AppSyncEntry {
        guard let entry = appSync.first(where: { $0.name == name }) else {
            throw problems.first { if case .invalid(_, let path, _) = $0.kind { path.hasPrefix("AppSync.\(name).") } else { false } }
                ?? .noSuchClient(file: file, what: "name '\(name)'")
        }
        return entry
    }

    /// The only entry with `mode` (an error when there is none or more than one).
    public func entry(for mode: AuthMode) throws(ConfigurationError) -> AppSyncEntry {
        let matches = appSync.filter { $0.authMode == mode }
        guard matches.count == 1, let entry = matches.first else {
            throw .noSuchClient(file: file, what: matches.isEmpty ? "mode \(mode.rawValue)" : "mode \(mode.rawValue) (\(matches.count) entries have it: name one)")
        }
        return entry
    }
}

/// Reads typed fields out of the JSON, naming the path of anything wrong.
struct ConfigurationReader {
    let file: String
    static let prefixCharacters = Set("_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789".utf8)

    func string(_ object: [String: JSONValue], _ key: String, path: String, required: Bool = true) throws(ConfigurationError) -> String? {
        switch object[key] {
        case .string(let value) where !value.isEmpty: return value
        case nil, .null?:
            if required { throw .invalid(file: file, path: "\(path).\(key)", problem: "missing") }
            return nil
        case .string?: throw .invalid(file: file, path: "\(path).\(key)", problem: "is empty")
        default: throw .invalid(file: file, path: "\(path).\(key)", problem: "must be a string")
        }
    }

    /// `key` as a region name (``RegionName``): it becomes part of hostnames.
    func region(_ object: [String: JSONValue], path: String) throws(ConfigurationError) -> String {
        let value = try string(object, "Region", path: path) ?? ""
        guard RegionName.isValid(value) else {
            throw .invalid(file: file, path: "\(path).Region", problem: InvalidRegionError(source: "Region", value: value).problem)
        }
        return value
    }

    func appSyncEntry(name: String, _ value: JSONValue) throws(ConfigurationError) -> AppSyncEntry {
        let path = "AppSync.\(name)"
        guard case .object(let object) = value else { throw .invalid(file: file, path: path, problem: "must be an object") }
        let url = try string(object, "ApiUrl", path: path) ?? ""
        guard url.hasPrefix("https://") || url.hasPrefix("http://") else {
            throw .invalid(file: file, path: "\(path).ApiUrl", problem: "must be an http(s) URL")
        }
        let region = try region(object, path: path)
        let modeName = try string(object, "AuthMode", path: path) ?? ""
        guard let mode = AuthMode(rawValue: modeName) else {
            throw .invalid(
                file: file, path: "\(path).AuthMode",
                problem: "unknown mode '\(modeName)' (expected \(AuthMode.allCases.map(\.rawValue).joined(separator: ", ")))")
        }
        let apiKey = try string(object, "ApiKey", path: path, required: mode == .apiKey)
        let prefix = try string(object, "ClientDatabasePrefix", path: path, required: false)
        if let prefix, !prefix.utf8.allSatisfy(Self.prefixCharacters.contains) {
            throw .invalid(file: file, path: "\(path).ClientDatabasePrefix", problem: "'\(prefix)' must match ^[_a-zA-Z0-9]+$")
        }
        return AppSyncEntry(name: name, apiURL: url, region: region, authMode: mode, apiKey: apiKey, clientDatabasePrefix: prefix)
    }

    func duplicatePrefixes(_ entries: [AppSyncEntry]) -> [ConfigurationError] {
        // Typed step by step: as one chained expression it took 7 s to type-check.
        var byPrefix: [String: [String]] = [:]
        for entry in entries { if let prefix = entry.clientDatabasePrefix { byPrefix[prefix, default: []].append(entry.name) } }
        let shared: [(key: String, value: [String])] = byPrefix.filter { $0.value.count > 1 }.sorted { $0.key < $1.key }
        return shared.map { ConfigurationError.duplicatePrefix(file: file, prefix: $0.key, entries: $0.value) }
    }

    func defaultBlock(_ value: JSONValue?, path: String) throws(ConfigurationError) -> [String: JSONValue]? {
        guard let value else { return nil }
        guard case .object(let section) = value, case .object(let block)? = section["Default"] else {
            throw .invalid(file: file, path: "\(path).Default", problem: "missing")
        }
        return block
    }

    func userPool(_ value: JSONValue?) throws(ConfigurationError) -> UserPoolSection? {
        let path = "CognitoUserPool.Default"
        guard let block = try defaultBlock(value, path: "CognitoUserPool") else { return nil }
        return UserPoolSection(
            poolId: try string(block, "PoolId", path: path) ?? "", appClientId: try string(block, "AppClientId", path: path) ?? "",
            appClientSecret: try string(block, "AppClientSecret", path: path, required: false),
            region: try region(block, path: path), endpoint: try string(block, "Endpoint", path: path, required: false))
    }

    func identityPool(_ value: JSONValue?) throws(ConfigurationError) -> IdentityPoolSection? {
        guard case .object(let provider)? = value else { return nil }
        let path = "CredentialsProvider.CognitoIdentity.Default"
        guard let block = try defaultBlock(provider["CognitoIdentity"], path: "CredentialsProvider.CognitoIdentity") else { return nil }
        return IdentityPoolSection(poolId: try string(block, "PoolId", path: path) ?? "", region: try region(block, path: path))
    }

    func oidc(_ value: JSONValue?) throws(ConfigurationError) -> OIDCSection? {
        let path = "OIDC.Default"
        guard let block = try defaultBlock(value, path: "OIDC") else { return nil }
        return OIDCSection(
            issuer: try string(block, "Issuer", path: path) ?? "", clientId: try string(block, "ClientId", path: path) ?? "",
            clientSecret: try string(block, "ClientSecret", path: path, required: false))
    }
}
