import MultiAuthCore

// Configuration values that hold secrets print and dump without them.

extension AppSyncEntry: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String {
        "AppSyncEntry(name: \(name), apiURL: \(apiURL), region: \(region), authMode: \(authMode.rawValue), apiKey: \(Redaction.secret(apiKey)), clientDatabasePrefix: \(clientDatabasePrefix ?? "none"))"
    }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Redaction.mirror(of: self) }
}

extension UserPoolSection: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String {
        "UserPoolSection(poolId: \(poolId), appClientId: \(appClientId), appClientSecret: \(Redaction.secret(appClientSecret)), region: \(region))"
    }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Redaction.mirror(of: self) }
}

extension OIDCSection: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String {
        "OIDCSection(issuer: \(issuer), clientId: \(clientId), clientSecret: \(Redaction.secret(clientSecret)))"
    }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Redaction.mirror(of: self) }
}
