import MultiAuthCore

// Descriptions of the configuration and login types that hold secrets: printing,
// interpolating or dumping one never shows a client secret, token, code verifier or device code.

extension CognitoUserPoolConfiguration: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String {
        "CognitoUserPoolConfiguration(userPoolId: \(userPoolId), clientId: \(clientId), clientSecret: \(Redaction.secret(clientSecret)), region: \(region), endpoint: \(endpoint))"
    }
    public var debugDescription: String { description }
    /// No children: `dump` and debuggers show the description.
    public var customMirror: Mirror { Redaction.mirror(of: self) }
}

extension OIDCConfiguration: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String {
        "OIDCConfiguration(issuer: \(issuer), clientId: \(clientId), clientSecret: \(Redaction.secret(clientSecret)), scope: \(scope))"
    }
    public var debugDescription: String { description }
    /// No children: `dump` and debuggers show the description.
    public var customMirror: Mirror { Redaction.mirror(of: self) }
}

extension AuthTokens: CustomDebugStringConvertible, CustomReflectable {
    public var debugDescription: String { description }
    /// No children: `dump` and debuggers show the description.
    public var customMirror: Mirror { Redaction.mirror(of: self) }
}

extension PKCE: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String { "PKCE(verifier: \(Redaction.placeholder), challenge: \(challenge))" }
    public var debugDescription: String { description }
    /// No children: `dump` and debuggers show the description.
    public var customMirror: Mirror { Redaction.mirror(of: self) }
}

extension DeviceAuthorization: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String {
        "DeviceAuthorization(userCode: \(userCode), verificationURI: \(verificationURI), deviceCode: \(Redaction.placeholder), expiresIn: \(expiresIn))"
    }
    public var debugDescription: String { description }
    /// No children: `dump` and debuggers show the description.
    public var customMirror: Mirror { Redaction.mirror(of: self) }
}

