public import MultiAuthCore

/// Why a request could not be signed. Messages name the offending input, never a secret;
/// input is quoted through `Redaction` (a bounded prefix, control bytes escaped).
public struct SigningError: CodedError, Sendable, Equatable {
    /// The failure with its details.
    package let kind: Kind

    /// The error for `kind`.
    package init(_ kind: Kind) { self.kind = kind }

    /// What failed, as a stable name to switch on (an `ErrorCode`).
    public var code: ErrorCode { kind.code }
    /// What failed and where, in one line; never a secret.
    public var message: String { kind.description }
    /// The error that caused this one, when there is one.
    public var underlying: (any Error & Sendable)? { kind.underlying }
    public var description: String { message }
}

extension SigningError {
    /// The URL could not be split into scheme, host, path and query.
    public static func malformedURL(_ value0: String, reason: String) -> SigningError {
        SigningError(.malformedURL(value0, reason: reason))
    }
    /// A header name is not an RFC 9110 token.
    public static func invalidHeaderName(_ value: String) -> SigningError { SigningError(.invalidHeaderName(value)) }
    /// A header line has no `:`.
    public static func malformedHeaderLine(_ value: String) -> SigningError {
        SigningError(.malformedHeaderLine(value))
    }
    /// A signing time is not `YYYYMMDDTHHMMSSZ` (or the ISO 8601 form where that is accepted).
    public static func invalidDate(_ value: String) -> SigningError { SigningError(.invalidDate(value)) }
    /// A presigned URL's expiry is outside 1…604800 seconds.
    public static func expiresOutOfRange(_ value: Int) -> SigningError { SigningError(.expiresOutOfRange(value)) }
    /// A required credential is missing or empty.
    public static func missingCredentials(_ value: String) -> SigningError { SigningError(.missingCredentials(value)) }
    /// There is no host to sign: neither a `Host` header nor a URL authority.
    public static var missingHost: SigningError { SigningError(.missingHost) }
    /// A raw HTTP request text could not be parsed.
    public static func malformedRequest(_ value: String) -> SigningError { SigningError(.malformedRequest(value)) }
    /// A caller-supplied payload hash is not 64 hex digits or a known SigV4 constant.
    public static func invalidPayloadHash(_ value: String) -> SigningError { SigningError(.invalidPayloadHash(value)) }
    /// The request body file could not be read.
    public static func unreadableBody(path: String, reason: String) -> SigningError {
        SigningError(.unreadableBody(path: path, reason: reason))
    }
    /// A SigV4a region set is not a comma-separated list of region names or patterns.
    public static func invalidRegionSet(_ value: String) -> SigningError { SigningError(.invalidRegionSet(value)) }
    /// The SigV4a key could not be derived or used.
    public static var keyDerivationFailed: SigningError { SigningError(.keyDerivationFailed) }
    /// A streaming chunk size below S3's 8 KiB minimum.
    public static func invalidChunkSize(_ value: Int) -> SigningError { SigningError(.invalidChunkSize(value)) }
    /// The method is not an HTTP token.
    public static func invalidMethod(_ value: String) -> SigningError { SigningError(.invalidMethod(value)) }
    /// A header value holds a line break or a control character.
    public static func invalidHeaderValue(_ value: String) -> SigningError { SigningError(.invalidHeaderValue(value)) }
    /// Signed aws-chunked streaming with SigV4a (ECDSA chunk signatures) is not implemented;
    /// it is refused rather than signed with HMAC.
    public static var streamingNeedsSigV4: SigningError { SigningError(.streamingNeedsSigV4) }
    /// The body is a stream that can be read only once, so its hash cannot be signed.
    public static func unhashableBody(_ value: String) -> SigningError { SigningError(.unhashableBody(value)) }
    /// A value that goes on the wire (the access key id, the session token, the region or
    /// the service) holds a line break or another control character; it is refused, never
    /// folded.
    public static func controlCharacter(in value: String) -> SigningError { SigningError(.controlCharacter(in: value)) }
    /// The X.509 certificate or its key cannot sign now (``X509Signer``): expired, not yet
    /// valid, or the key or token failed.
    public static func certificate(_ error: X509IdentityError) -> SigningError { SigningError(.certificate(error)) }
}

extension SigningError {
    /// Each failure with its details, for matching inside MultiAuth; callers switch on
    /// ``SigningError/code``.
    package enum Kind: Sendable, Equatable, CustomStringConvertible, ErrorKind {
        case malformedURL(String, reason: String)
        case invalidHeaderName(String)
        case malformedHeaderLine(String)
        case invalidDate(String)
        case expiresOutOfRange(Int)
        case missingCredentials(String)
        case missingHost
        case malformedRequest(String)
        case invalidPayloadHash(String)
        case unreadableBody(path: String, reason: String)
        case invalidRegionSet(String)
        case keyDerivationFailed
        case invalidChunkSize(Int)
        case invalidMethod(String)
        case invalidHeaderValue(String)
        case streamingNeedsSigV4
        case unhashableBody(String)
        case controlCharacter(in: String)
        case certificate(X509IdentityError)

        /// The error this case keeps as its cause.
        package var underlying: (any Error & Sendable)? {
            switch self {
            case .certificate(let error): error
            default: nil
            }
        }

        package var description: String {
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
            case .certificate(let error): error.description
            case .unhashableBody(let body):
                "\(body) can be read only once, so its SHA-256 cannot be signed; send it as a file or with an unsigned payload"
            }
        }
    }
}

extension SigningError.Kind {
    /// `Signing.` and the case's name, fixed once published.
    package var code: ErrorCode {
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
        case .certificate: "Signing.certificate"
        }
    }
}
