public import MultiAuthCore

/// Why a request could not be signed. Messages name the offending input, never a secret;
/// input is quoted through `Redaction` (a bounded prefix, control bytes escaped).
public enum SigningError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The URL could not be split into scheme, host, path and query.
    case malformedURL(String, reason: String)
    /// A header name is not an RFC 9110 token.
    case invalidHeaderName(String)
    /// A header line has no `:`.
    case malformedHeaderLine(String)
    /// A signing time is not `YYYYMMDDTHHMMSSZ` (or the ISO 8601 form where that is accepted).
    case invalidDate(String)
    /// A presigned URL's expiry is outside 1…604800 seconds.
    case expiresOutOfRange(Int)
    /// A required credential is missing or empty.
    case missingCredentials(String)
    /// There is no host to sign: neither a `Host` header nor a URL authority.
    case missingHost
    /// A raw HTTP request text could not be parsed.
    case malformedRequest(String)
    /// A caller-supplied payload hash is not 64 hex digits or a known SigV4 constant.
    case invalidPayloadHash(String)
    /// The request body file could not be read.
    case unreadableBody(path: String, reason: String)
    /// A SigV4a region set is not a comma-separated list of region names or patterns.
    case invalidRegionSet(String)
    /// The SigV4a key could not be derived or used.
    case keyDerivationFailed
    /// A streaming chunk size below S3's 8 KiB minimum.
    case invalidChunkSize(Int)
    /// The method is not an HTTP token.
    case invalidMethod(String)
    /// A header value holds a line break or a control character.
    case invalidHeaderValue(String)
    /// Signed aws-chunked streaming with SigV4a (ECDSA chunk signatures) is not implemented;
    /// it is refused rather than signed with HMAC.
    case streamingNeedsSigV4
    /// The body is a stream that can be read only once, so its hash cannot be signed.
    case unhashableBody(String)
    /// A value that goes on the wire (the access key id, the session token, the region or
    /// the service) holds a line break or another control character; it is refused, never
    /// folded.
    case controlCharacter(in: String)

    public var description: String {
        switch self {
        case .malformedURL(let url, let reason): "malformed URL '\(Redaction.url(url))': \(reason)"
        case .invalidHeaderName(let name): "invalid header name '\(Redaction.quoted(name))': not an HTTP token"
        case .malformedHeaderLine(let line): "malformed header '\(Redaction.quoted(line))': expected 'Name: value'"
        case .invalidDate(let text): "invalid date '\(Redaction.quoted(text))': expected YYYYMMDDTHHMMSSZ"
        case .expiresOutOfRange(let value): "expires \(value) out of range: must be 1...604800 seconds"
        case .missingCredentials(let what): "missing credentials: \(what)"
        case .missingHost: "no host to sign: give a Host header or an absolute URL"
        case .malformedRequest(let reason): "malformed request: \(Redaction.quoted(reason, limit: 300))"
        case .invalidPayloadHash(let value): "invalid payload hash '\(Redaction.quoted(value))': expected 64 hex digits"
        case .unreadableBody(let path, let reason): "cannot read body file '\(path)': \(reason)"
        case .invalidRegionSet(let text):
            "invalid region set '\(Redaction.quoted(text))': expected regions like 'us-east-1,us-west-2' or '*'"
        case .keyDerivationFailed: "the SigV4a key could not be derived"
        case .invalidChunkSize(let size): "chunk size \(size) is below S3's minimum of 8192 bytes"
        case .invalidMethod(let method): "invalid method '\(Redaction.quoted(method))': not an HTTP token"
        case .invalidHeaderValue(let name): "the value of header '\(Redaction.quoted(name))' contains a line break or a control character"
        case .streamingNeedsSigV4:
            "signed aws-chunked streaming is not supported with SigV4a (use SigV4, or unsigned chunks with a trailer)"
        case .controlCharacter(let what): "\(what) contains a line break or a control character, so it cannot be signed or sent"
        case .unhashableBody(let body):
            "\(body) can be read only once, so its SHA-256 cannot be signed; send it as a file or with an unsigned payload"
        }
    }
}

extension SigningError: CodedError {
    /// `Signing.` and the case's name, fixed once published.
    public var code: ErrorCode {
        switch self {
        case .malformedURL: "Signing.malformedURL"
        case .invalidHeaderName: "Signing.invalidHeaderName"
        case .malformedHeaderLine: "Signing.malformedHeaderLine"
        case .invalidDate: "Signing.invalidDate"
        case .expiresOutOfRange: "Signing.expiresOutOfRange"
        case .missingCredentials: "Signing.missingCredentials"
        case .missingHost: "Signing.missingHost"
        case .malformedRequest: "Signing.malformedRequest"
        case .invalidPayloadHash: "Signing.invalidPayloadHash"
        case .unreadableBody: "Signing.unreadableBody"
        case .invalidRegionSet: "Signing.invalidRegionSet"
        case .keyDerivationFailed: "Signing.keyDerivationFailed"
        case .invalidChunkSize: "Signing.invalidChunkSize"
        case .invalidMethod: "Signing.invalidMethod"
        case .invalidHeaderValue: "Signing.invalidHeaderValue"
        case .streamingNeedsSigV4: "Signing.streamingNeedsSigV4"
        case .unhashableBody: "Signing.unhashableBody"
        case .controlCharacter: "Signing.controlCharacter"
        }
    }
}
