import MultiAuthCore

// Descriptions of the configuration and login types that hold secrets: printing,
// interpolating or dumping one never shows a client secret, token, code verifier or device code.

extension CognitoUserPoolConfiguration: CustomStringConvertible, CustomDebugStringConvertible {
    public var description: String {
        "CognitoUserPoolConfiguration(userPoolId: \(userPoolId), clientId: \(clientId), clientSecret: \(Redaction.secret(clientSecret)), region: \(region), endpoint: \(endpoint))"
    }
    public var debugDescription: String { description }
}

extension OIDCConfiguration: CustomStringConvertible, CustomDebugStringConvertible {
    public var description: String {
        "OIDCConfiguration(issuer: \(issuer), clientId: \(clientId), clientSecret: \(Redaction.secret(clientSecret)), scope: \(scope))"
    }
    public var debugDescription: String { description }
}

extension AuthTokens: CustomDebugStringConvertible {
    public var debugDescription: String { description }
}

extension PKCE: CustomStringConvertible, CustomDebugStringConvertible {
    public var description: String { "PKCE(verifier: \(Redaction.placeholder), challenge: \(challenge))" }
    public var debugDescription: String { description }
}

extension DeviceAuthorization: CustomStringConvertible, CustomDebugStringConvertible {
    public var description: String {
        "DeviceAuthorization(userCode: \(userCode), verificationURI: \(verificationURI), deviceCode: \(Redaction.placeholder), expiresIn: \(expiresIn))"
    }
    public var debugDescription: String { description }
}

// Their mirrors have no children, so `dump` and debuggers show the descriptions above.

extension CognitoUserPoolConfiguration: CustomReflectable {
    public var customMirror: Mirror { Redaction.mirror(of: self) }
}

extension OIDCConfiguration: CustomReflectable {
    public var customMirror: Mirror { Redaction.mirror(of: self) }
}

extension AuthTokens: CustomReflectable {
    public var customMirror: Mirror { Redaction.mirror(of: self) }
}

extension PKCE: CustomReflectable {
    public var customMirror: Mirror { Redaction.mirror(of: self) }
}

extension DeviceAuthorization: CustomReflectable {
    public var customMirror: Mirror { Redaction.mirror(of: self) }
}

extension CognitoTOTPSetup: CustomReflectable {
    public var customMirror: Mirror { Redaction.mirror(of: self) }
}

extension CognitoRememberedDevice: CustomReflectable {
    public var customMirror: Mirror { Redaction.mirror(of: self) }
}
