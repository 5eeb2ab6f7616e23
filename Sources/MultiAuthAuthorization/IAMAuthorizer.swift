public import HTTPTypes
import Synchronization
public import Logging
public import MultiAuthCore
public import MultiAuthCredentials
public import MultiAuthSigV4

/// AWS_IAM: SigV4 (or SigV4a) with credentials from a provider, resolved per request (they
/// rotate). The payload hash is derived from the body here: bytes are hashed, a file is
/// hashed in chunks off the cooperative pool, and an S3 streaming upload turns a file body
/// into a signed `aws-chunked` stream that is read from the start again on every attempt.
public struct IAMAuthorizer: RequestAuthorizer {
    /// How the body is covered by the signature.
    public enum PayloadSigning: Sendable, Equatable {
        /// The body's SHA-256 (the default).
        case signed
        /// `UNSIGNED-PAYLOAD`, where the service allows it (S3 over TLS).
        case unsigned
        /// An S3 streaming upload of a file body in chunks of `chunkSize` bytes (a request
        /// without a body is signed as usual: there is nothing to stream).
        case awsChunked(chunkSize: Int, mode: StreamingMode)
    }

    let credentials: any CredentialsProvider
    /// Where the signing credentials come from (a server's health check asks it).
    package var credentialSource: any CredentialsProvider { credentials }
    let region: String
    let service: String
    let algorithm: SigningAlgorithm
    let options: SigningOptions?
    let payloadSigning: PayloadSigning
    let keyCache: SigningKeyCache
    let logger: Logger
    /// The signer of requests without a body file for the credentials last used: a signer is
    /// worked out once per credentials, not per request.
    private let recentSigner = RecentSigner()

    /// Creates an authorizer for `service` (`execute-api`, `appsync`, `s3`, …) in `region`
    /// (for SigV4a, pass `algorithm: .sigV4a(regionSet:)`; `region` is then unused).
    /// Derived keys are kept in `keyCache` (by default the authorizer's own).
    public init(
        credentials: any CredentialsProvider, region: String, service: String, algorithm: SigningAlgorithm = .sigV4,
        options: SigningOptions? = nil, payloadSigning: PayloadSigning = .signed, keyCache: SigningKeyCache = SigningKeyCache(),
        logger: Logger = .disabled
    ) {
        self.keyCache = keyCache
        self.credentials = credentials
        self.region = region
        self.service = service
        self.algorithm = algorithm
        self.options = options
        self.payloadSigning = payloadSigning
        self.logger = logger
    }

    public func authorize(_ request: HTTPRequest, body: OutgoingBody, at date: SigningDate) async throws(AuthorizationError) -> AuthorizedRequest {
        let resolved: ExpiringCredentials
        do { resolved = try await credentials.credentials() } catch { throw .credentials(error) }
        do throws(SigningError) {
            let signer = try makeSigner(resolved.credentials, body: body)
            let authorized: AuthorizedRequest
            if case .awsChunked(let chunkSize, let mode) = payloadSigning, !Self.isEmpty(body) {
                authorized = try await AWSChunkedBody.authorize(request, body: body, signer: signer, chunkSize: chunkSize, mode: mode, date: date)
            } else {
                let result = try signer.signHeaders(request, payload: try await payload(of: body, for: request), date: date)
                authorized = AuthorizedRequest(request: try result.signedRequest(), body: body, signing: result)
            }
            if let signing = authorized.signing { log(signing) }
            return authorized
        } catch {
            throw .signing(error)
        }
    }

    /// `request` with a body held in memory (`body`, empty for none) signed at `date` without
    /// suspending, when the credentials are a ``MultiAuthCredentials/CachingCredentialsProvider``'s
    /// and need no refresh; nil otherwise (then ``authorize(_:body:at:)`` decides), and for an
    /// `aws-chunked` upload of a body. The signing proxy signs this way, on the event loop.
    package func authorizeWithoutSuspending(
        _ request: HTTPRequest, body: [UInt8] = [], at date: SigningDate
    ) -> Result<HTTPRequest, AuthorizationError>? {
        if case .awsChunked = payloadSigning, !body.isEmpty { return nil }
        guard let caching = credentials as? CachingCredentialsProvider, let current = caching.credentialsWithoutWaiting() else { return nil }
        do throws(SigningError) {
            let payload: Payload = payloadSigning == .unsigned ? .unsigned : body.isEmpty ? .empty : .bytes(body)
            let result = try heldBodySigner(current.credentials).signHeaders(request, payload: payload, date: date)
            log(result)
            return .success(try result.signedRequest())
        } catch {
            return .failure(.signing(error))
        }
    }

    /// The signer for requests with no body or one held in memory, with `credentials`: the one
    /// made last, while they are the same.
    private func heldBodySigner(_ credentials: AWSCredentials) throws(SigningError) -> SigV4Signer {
        if let recent = recentSigner.last.withLock({ $0 }), recent.credentials == credentials { return recent.signer }
        let signer = try makeSigner(credentials, body: .empty)
        recentSigner.last.withLock { $0 = (credentials, signer) }
        return signer
    }

    private static func isEmpty(_ body: OutgoingBody) -> Bool {
        if case .empty = body { true } else { false }
    }

    /// The signer; a file body or an unsigned payload also signs `x-amz-content-sha256`, so
    /// the server learns which hash the signature covers.
    private func makeSigner(_ credentials: AWSCredentials, body: OutgoingBody) throws(SigningError) -> SigV4Signer {
        var options = self.options ?? .defaults(forService: service)
        if case .file = body { options.signsContentSHA256Header = true }
        if payloadSigning == .unsigned { options.signsContentSHA256Header = true }
        switch algorithm {
        case .sigV4: return SigV4Signer(credentials: credentials, region: region, service: service, options: options, keyCache: keyCache)
        case .sigV4a(let set): return try SigV4Signer(credentials: credentials, regionSet: set, service: service, options: options)
        }
    }

    /// The payload as the signature covers it, derived from the body.
    private func payload(of body: OutgoingBody, for request: HTTPRequest) async throws(SigningError) -> Payload {
        if payloadSigning == .unsigned { return .unsigned }
        switch body {
        case .empty: return .empty
        case .bytes(let bytes): return .bytes(bytes)
        case .file(let path): return .sha256(try await PayloadHash.sha256(ofFileAt: path))
        case .stream:
            // A caller-supplied x-amz-content-sha256 (or UNSIGNED-PAYLOAD) covers a stream.
            guard request.headerFields[.amzContentSHA256] != nil else { throw .unhashableBody(body.name) }
            return .empty
        }
    }

    private func log(_ signing: SigningResult) {
        logger.debug("canonical request", metadata: ["canonical-request": "\(Redaction.canonicalText(signing.canonicalRequest))"])
        logger.debug("string to sign", metadata: ["string-to-sign": "\(signing.stringToSign)"])
    }
}

/// The last signer for in-memory bodies an ``IAMAuthorizer`` made, with the credentials it signs with.
private final class RecentSigner: Sendable {
    let last = Mutex<(credentials: AWSCredentials, signer: SigV4Signer)?>(nil)
}
