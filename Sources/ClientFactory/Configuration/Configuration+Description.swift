import MultiAuthCore

// Configuration values that hold secrets print without them.

extension AppSyncEntry: CustomStringConvertible, CustomDebugStringConvertible {
    public var description: String {
        "AppSyncEntry(name: \(name), apiURL: \(apiURL), region: \(region), authMode: \(authMode.rawValue), apiKey: \(Redaction.secret(apiKey)), clientDatabasePrefix: \(clientDatabasePrefix ?? "none"))"
    }
    public var debugDescription: String { description }
}

extension UserPoolSection: CustomStringConvertible, CustomDebugStringConvertible {
    public var description: String {
        "UserPoolSection(poolId: \(poolId), appClientId: \(appClientId), appClientSecret: \(Redaction.secret(appClientSecret)), region: \(region))"
    }
    public var debugDescription: String { description }
}

extension OIDCSection: CustomStringConvertible, CustomDebugStringConvertible {
    public var description: String {
        "OIDCSection(issuer: \(issuer), clientId: \(clientId), clientSecret: \(Redaction.secret(clientSecret)))"
    }
    public var debugDescription: String { description }
}
