public import MultiAuthCore

// Configuration values that hold secrets print and dump without them.

extension AppSyncEntry: RedactedDescribing {
    public var description: String {
        "AppSyncEntry(name: \(name), apiURL: \(apiURL), region: \(region), authMode: \(authMode.rawValue), apiKey: \(Redaction.secret(apiKey)), clientDatabasePrefix: \(clientDatabasePrefix ?? "none"))"
    }
}

extension UserPoolSection: RedactedDescribing {
    public var description: String {
        "UserPoolSection(poolId: \(poolId), appClientId: \(appClientId), appClientSecret: \(Redaction.secret(appClientSecret)), region: \(region))"
    }
}

extension OIDCSection: RedactedDescribing {
    public var description: String {
        "OIDCSection(issuer: \(issuer), clientId: \(clientId), clientSecret: \(Redaction.secret(clientSecret)))"
    }
}
