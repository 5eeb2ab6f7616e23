import MultiAuthCore

// Descriptions of the configuration and login types that hold secrets: printing or
// interpolating one never shows a client secret, token, code verifier or device code.

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
