public import MultiAuthCore

/// An AWS access key pair with an optional session token.
///
/// `description` and `debugDescription` show the access key id only; the secret and the
/// token never appear in logs, errors, `dump` output or a debugger's view.
public struct AWSCredentials: Sendable, Equatable, RedactedDescribing {
    /// The access key id (not secret).
    public var accessKeyId: String
    /// The secret access key.
    public var secretAccessKey: String
    /// The session token of temporary credentials.
    public var sessionToken: String?

    /// Creates credentials; empty strings are rejected when signing, not here.
    public init(accessKeyId: String, secretAccessKey: String, sessionToken: String? = nil) {
        self.accessKeyId = accessKeyId
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
    }

    public var description: String {
        "AWSCredentials(accessKeyId: \(accessKeyId), secretAccessKey: \(Redaction.placeholder)"
            + (sessionToken == nil ? ")" : ", sessionToken: \(Redaction.placeholder))")
    }

    func validate() throws(SigningError) {
        guard !accessKeyId.isEmpty else { throw .missingCredentials("access key id is empty") }
        guard !secretAccessKey.isEmpty else { throw .missingCredentials("secret access key is empty") }
    }
}
