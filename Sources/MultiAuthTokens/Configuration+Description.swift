public import MultiAuthCore

// Descriptions of the configuration and login types that hold secrets: printing,
// interpolating or dumping one never shows a client secret, token, code verifier or device code.

extension CognitoUserPoolConfiguration: RedactedDescribing {
    public var description: String {
        "CognitoUserPoolConfiguration(userPoolId: \(userPoolId), clientId: \(clientId), clientSecret: \(Redaction.secret(clientSecret)), region: \(region), endpoint: \(endpoint))"
    }
}

extension OIDCConfiguration: RedactedDescribing {
    public var description: String {
        "OIDCConfiguration(issuer: \(issuer), clientId: \(clientId), clientSecret: \(Redaction.secret(clientSecret)), scope: \(scope))"
    }
}

extension PKCE: RedactedDescribing {
    public var description: String { "PKCE(verifier: \(Redaction.placeholder), challenge: \(challenge))" }
}

extension DeviceAuthorization: RedactedDescribing {
    public var description: String {
        "DeviceAuthorization(userCode: \(userCode), verificationURI: \(verificationURI), deviceCode: \(Redaction.placeholder), expiresIn: \(expiresIn))"
    }
}

