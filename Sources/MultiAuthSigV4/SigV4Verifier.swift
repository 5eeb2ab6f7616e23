public import HTTPTypes
public import MultiAuthCore
import MultiAuthCrypto

/// What a verifier knows about an access key id.
public struct VerifierCredential: Sendable, RedactedDescribing {
    /// The secret that signs for the key id.
    public let secretAccessKey: String
    /// When set, the request must carry exactly this session token.
    public let sessionToken: String?

    /// Creates an entry.
    public init(secretAccessKey: String, sessionToken: String? = nil) {
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
    }

    /// Always redacted.
    public var description: String { "VerifierCredential(\(Redaction.placeholder))" }
}

/// Why a request was rejected. Never includes a secret or the expected signature.
public struct VerificationFailure: CodedError, Sendable, Equatable {
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

extension VerificationFailure {
    /// Neither an `Authorization` header nor an `X-Amz-Signature` query parameter.
    public static var missingAuthorization: VerificationFailure { VerificationFailure(.missingAuthorization) }
    /// A part of the authorization is missing or unreadable; the value names the part.
    public static func malformedAuthorization(_ value: String) -> VerificationFailure {
        VerificationFailure(.malformedAuthorization(value))
    }
    /// An authorization parameter or header is given more than once.
    public static func repeatedParameter(_ value: String) -> VerificationFailure {
        VerificationFailure(.repeatedParameter(value))
    }
    /// The algorithm is not `AWS4-HMAC-SHA256`.
    public static func unsupportedAlgorithm(_ value: String) -> VerificationFailure {
        VerificationFailure(.unsupportedAlgorithm(value))
    }
    /// The lookup knows no secret for this access key id.
    public static func unknownAccessKey(_ value: String) -> VerificationFailure {
        VerificationFailure(.unknownAccessKey(value))
    }
    /// The credential requires a session token that the request lacks or gets wrong.
    public static var sessionTokenMismatch: VerificationFailure { VerificationFailure(.sessionTokenMismatch) }
    /// The credential scope's date, region or service is not this verifier's.
    public static func scopeMismatch(_ value: String) -> VerificationFailure {
        VerificationFailure(.scopeMismatch(value))
    }
    /// The signing time is older than the allowed skew (or the presigned expiry).
    public static var expired: VerificationFailure { VerificationFailure(.expired) }
    /// The signing time is further in the future than the allowed skew.
    public static var notYetValid: VerificationFailure { VerificationFailure(.notYetValid) }
    /// `SignedHeaders` does not include `host`.
    public static var hostNotSigned: VerificationFailure { VerificationFailure(.hostNotSigned) }
    /// The recomputed signature differs from the received one.
    public static var signatureMismatch: VerificationFailure { VerificationFailure(.signatureMismatch) }
}

extension VerificationFailure {
    /// Each failure with its details, for matching inside MultiAuth; callers switch on
    /// ``VerificationFailure/code``.
    package enum Kind: Sendable, Equatable, CustomStringConvertible, ErrorKind {
        case missingAuthorization
        case malformedAuthorization(String)
        case repeatedParameter(String)
        case unsupportedAlgorithm(String)
        case unknownAccessKey(String)
        case sessionTokenMismatch
        case scopeMismatch(String)
        case expired
        case notYetValid
        case hostNotSigned
        case signatureMismatch

        /// None of these cases keeps another error.
        package var underlying: (any Error & Sendable)? { nil }

        package var description: String {
            switch self {
            case .missingAuthorization: "no Authorization header or X-Amz-Signature parameter"
            case .malformedAuthorization(let what): "malformed authorization: \(what)"
            case .repeatedParameter(let name): "\(name) is given more than once"
            case .unsupportedAlgorithm(let name): "unsupported algorithm '\(name)'"
            case .unknownAccessKey(let id): "unknown access key id '\(id)'"
            case .sessionTokenMismatch: "the session token is missing or wrong"
            case .scopeMismatch(let field): "the credential scope's \(field) does not match"
            case .expired: "the signature has expired"
            case .notYetValid: "the signature is not yet valid"
            case .hostNotSigned: "the host header is not signed"
            case .signatureMismatch: "the signature does not match"
            }
        }
    }
}

/// Checks incoming SigV4 and SigV4a requests (header or presigned form), as a server does:
/// the canonical request is recomputed from the received wire form with the same stages as
/// ``SigV4Signer``; SigV4 signatures are compared in constant time, SigV4a (ECDSA P-256)
/// signatures are checked against the public key derived from the secret, as the
/// specification derives it, and the region set must include the verifier's region. It never
/// throws on hostile input: every problem is a ``VerificationFailure``.
public struct SigV4Verifier: Sendable {
    let region: String
    let service: String
    let lookup: CredentialLookup
    /// Allowed difference between the signing time and now for header signatures (15 min).
    public let allowedSkew: Duration
    /// ``allowedSkew`` in whole seconds, as signing dates count.
    private let skewSeconds: Int64
    /// The signers that recompute received signatures, with their own derived-key cache.
    private let signers: VerifierSigners
    /// `/region/service/aws4_request`, the scope after its date.
    private let scopeSuffix: [UInt8]

    /// Creates a verifier for `service` in `region`; `lookup` maps an access key id to its secret.
    /// `options` are the service's canonicalization rules (default: ``SigningOptions/defaults(forService:)``).
    public init(
        region: String, service: String, options: SigningOptions? = nil, allowedSkew: Duration = .seconds(15 * 60),
        lookup: @escaping @Sendable (String) async -> VerifierCredential?
    ) {
        self.init(region: region, service: service, options: options, allowedSkew: allowedSkew, lookup: .function(lookup))
    }

    /// Creates a verifier for `service` in `region` that knows the access key ids in
    /// `credentials`. A verification then never suspends, and reads the request once.
    public init(
        region: String, service: String, options: SigningOptions? = nil, allowedSkew: Duration = .seconds(15 * 60),
        credentials: [String: VerifierCredential]
    ) {
        self.init(region: region, service: service, options: options, allowedSkew: allowedSkew, lookup: .table(credentials))
    }

    private init(region: String, service: String, options: SigningOptions?, allowedSkew: Duration, lookup: CredentialLookup) {
        self.region = region
        self.service = service
        self.allowedSkew = allowedSkew
        skewSeconds = max(0, allowedSkew.components.seconds)
        self.lookup = lookup
        signers = VerifierSigners(region: region, service: service, options: options ?? .defaults(forService: service))
        scopeSuffix = Array("/\(region)/\(service)/aws4_request".utf8)
    }

    /// Where a key id's secret comes from.
    enum CredentialLookup: Sendable {
        /// A fixed table, read in place.
        case table([String: VerifierCredential])
        /// The caller's function, awaited.
        case function(@Sendable (String) async -> VerifierCredential?)
    }

    /// Verifies `request` as received at `now`, with `payload` the body it arrived with (or
    /// its hash); returns the access key id that signed it.
    public func verify(_ request: HTTPRequest, payload: Payload = .empty, now: SigningDate) async -> Result<String, VerificationFailure> {
        await verify(request, payload: payload, now: now) { Self.namesHost(request, $0) }
    }

    /// Every check a request's head decides, before its body is read: the authorization
    /// parsed, the credential scope (region or region set, service) and the date window, the
    /// key id known with its session token, `host` signed. Nil when only the signature, which
    /// covers the body's hash, remains; a server then reads the body and calls ``verify(_:payload:now:)``.
    public func failureBeforeBody(_ request: HTTPRequest, now: SigningDate) async -> VerificationFailure? {
        let parsing = request.withSigningView { view in Self.namesHost(request, view) ? ReceivedAuthorization.parse(view) : .failure(.hostNotSigned) }
        let function: @Sendable (String) async -> VerifierCredential?
        switch lookup {
        case .table(let table): function = { table[$0] }
        case .function(let lookup): function = lookup
        }
        guard case .failure(let failure) = await checkedAuthorization(parsing, now: now, function: function) else { return nil }
        return failure
    }

    /// Verifies a request in the signer's own form (the raw request text of the suites).
    package func verify(_ request: SignableRequest, now: SigningDate) async -> Result<String, VerificationFailure> {
        await verify(request, payload: request.payload, now: now) { _ in true }
    }

    /// Either form; `hasHost` says whether the request names its host at all.
    private func verify<Request: SigningViewSource>(
        _ request: Request, payload: Payload, now: SigningDate, hasHost: (RequestView<Request.Headers>) -> Bool
    ) async -> Result<String, VerificationFailure> {
        switch lookup {
        case .table(let table):
            return verify(request, payload: payload, now: now, table: table, hasHost: hasHost)
        case .function(let function):
            let parsing = request.withSigningView { view in hasHost(view) ? ReceivedAuthorization.parse(view) : .failure(.hostNotSigned) }
            let parsed: ReceivedAuthorization, known: VerifierCredential
            switch await checkedAuthorization(parsing, now: now, function: function) {
            case .failure(let failure): return .failure(failure)
            case .success(let found): (parsed, known) = found
            }
            return request.withSigningView { signatureMatches($0, payload, parsed, known) }
                ? .success(parsed.accessKeyIdText) : .failure(.signatureMismatch)
        }
    }

    /// A table verifier's verification of `request`, without `async`: what the async call
    /// runs, for a caller that must not suspend (the gateway, on an event loop)
    /// and for instruction counting (valgrind cannot follow the cooperative pool's threads).
    /// Nil for a verifier with a lookup function.
    package func verifyWithTable(_ request: HTTPRequest, payload: Payload = .empty, now: SigningDate) -> Result<String, VerificationFailure>? {
        guard case .table(let table) = lookup else { return nil }
        return verify(request, payload: payload, now: now, table: table) { Self.namesHost(request, $0) }
    }

    private func verify<Request: SigningViewSource>(
        _ request: Request, payload: Payload, now: SigningDate, table: [String: VerifierCredential],
        hasHost: (RequestView<Request.Headers>) -> Bool
    ) -> Result<String, VerificationFailure> {
        request.withSigningView { view in
            guard hasHost(view) else { return .failure(.hostNotSigned) }
            return verify(view, payload: payload, now: now) { table[$0] }
        }
    }

    /// The whole verification in one look at the request, with a lookup that does not suspend.
    private func verify<Headers>(
        _ view: RequestView<Headers>, payload: Payload, now: SigningDate, lookup: (String) -> VerifierCredential?
    ) -> Result<String, VerificationFailure> {
        let parsed: ReceivedAuthorization
        switch ReceivedAuthorization.parse(view) {
        case .failure(let failure): return .failure(failure)
        case .success(let found): parsed = found
        }
        if let failure = checkScopeAndTime(parsed, now: now) { return .failure(failure) }
        guard let known = lookup(parsed.accessKeyIdText) else { return .failure(.unknownAccessKey(parsed.accessKeyIdText)) }
        if let failure = Self.credentialFailure(parsed, known) { return .failure(failure) }
        return signatureMatches(view, payload, parsed, known) ? .success(parsed.accessKeyIdText) : .failure(.signatureMismatch)
    }

    /// Everything but the signature, with the caller's lookup awaited: the one suspension.
    /// Not generic over the request form, so that no view of the request is held across it.
    private func checkedAuthorization(
        _ parsing: Result<ReceivedAuthorization, VerificationFailure>, now: SigningDate,
        function: @Sendable (String) async -> VerifierCredential?
    ) async -> Result<(ReceivedAuthorization, VerifierCredential), VerificationFailure> {
        let parsed: ReceivedAuthorization
        switch parsing {
        case .failure(let failure): return .failure(failure)
        case .success(let value): parsed = value
        }
        if let failure = checkScopeAndTime(parsed, now: now) { return .failure(failure) }
        guard let known = await function(parsed.accessKeyIdText) else { return .failure(.unknownAccessKey(parsed.accessKeyIdText)) }
        if let failure = Self.credentialFailure(parsed, known) { return .failure(failure) }
        return .success((parsed, known))
    }

    /// What the key id's entry requires (its session token), and that `host` is signed.
    private static func credentialFailure(_ parsed: ReceivedAuthorization, _ known: VerifierCredential) -> VerificationFailure? {
        if let expected = known.sessionToken, parsed.sessionToken != expected { return .sessionTokenMismatch }
        guard parsed.signsHeader("host") else { return .hostNotSigned }
        return nil
    }

    /// A request names its host with an authority or, without one, a `Host` field.
    private static func namesHost(_ request: HTTPRequest, _ view: RequestView<HTTPFields>) -> Bool {
        view.authority != nil || request.headerFields.contains { $0.name.canonicalName == "host" }
    }

    /// Recomputes the signature from the received parts, read in place, trying each way the
    /// request may have been signed.
    private func signatureMatches<Headers>(
        _ view: RequestView<Headers>, _ payload: Payload, _ parsed: ReceivedAuthorization, _ known: VerifierCredential
    ) -> Bool {
        let signers = self.signers
        return Self.withListedView(view, parsed) { listed in
            let secret = known.secretAccessKey
            if parsed.isSigV4a {
                return signers.sigV4aMatches(listed, payload, parsed, secret: secret, presignedTokenSigned: true)
                    || (parsed.presigned != nil && parsed.sessionToken != nil
                        && signers.sigV4aMatches(listed, payload, parsed, secret: secret, presignedTokenSigned: false))
            }
            if parsed.presigned != nil, parsed.sessionToken != nil {
                // A presigned URL does not say whether its token was signed or appended afterwards: try both.
                return signers.sigV4Matches(listed, payload, parsed, secret: secret, presignedTokenSigned: true)
                    || signers.sigV4Matches(listed, payload, parsed, secret: secret, presignedTokenSigned: false)
            }
            return signers.sigV4Matches(listed, payload, parsed, secret: secret, presignedTokenSigned: nil)
        }
    }

    /// The received request as its signer saw it: only the fields `SignedHeaders` lists and,
    /// for a presigned URL, the query without the presigning parameters.
    private static func withListedView<Headers, Result>(
        _ view: RequestView<Headers>, _ parsed: ReceivedAuthorization, _ body: (RequestView<ListedFields<Headers>>) -> Result
    ) -> Result {
        parsed.withBytes(of: parsed.signedHeaders) { list in
            let headers = ListedFields(base: view.headers, signedHeaders: list)
            guard let presigned = parsed.presigned else {
                return body(RequestView(method: view.method, path: view.path, query: view.query, authority: view.authority, headers: headers))
            }
            return presigned.query.withUnsafeBufferPointer { query in
                body(RequestView(method: view.method, path: view.path, query: query, authority: view.authority, headers: headers))
            }
        }
    }

    private func checkScopeAndTime(_ parsed: ReceivedAuthorization, now: SigningDate) -> VerificationFailure? {
        if parsed.isSigV4a {
            if let failure = sigV4aScopeFailure(parsed) { return failure }
        } else if !scopeMatches(parsed) {
            return scopeFailure(parsed)
        }
        let age = now.secondsSince1970 - parsed.date.secondsSince1970
        if age > (parsed.presigned.map { Int64($0.expires) } ?? skewSeconds) { return .expired }
        if age < -skewSeconds { return .notYetValid }
        return nil
    }

    /// The usual case, on bytes: the scope is the signing date followed by this verifier's suffix.
    private func scopeMatches(_ parsed: ReceivedAuthorization) -> Bool {
        parsed.date.amzDate.withUTF8InPlace { amzDate in
            let date = UnsafeBufferPointer(rebasing: amzDate.prefix(8))
            return scopeSuffix.withUnsafeBufferPointer { suffix in
                parsed.withBytes(of: parsed.scope) { received in
                    received.count == date.count + suffix.count
                        && ByteComparison.equal(UnsafeBufferPointer(rebasing: received[..<date.count]), date)
                        && ByteComparison.equal(UnsafeBufferPointer(rebasing: received[date.count...]), suffix)
                }
            }
        }
    }

    /// SigV4a's scope is `date/service/aws4_request`, and its region set must include this
    /// verifier's region (`*` and `prefix-*` patterns match as the SDKs expand them).
    private func sigV4aScopeFailure(_ parsed: ReceivedAuthorization) -> VerificationFailure? {
        let scope = parsed.scopePieces
        guard scope.count == 3, scope[2] == "aws4_request" else { return .malformedAuthorization("credential scope") }
        guard scope[0] == parsed.date.scopeDate else { return .scopeMismatch("date") }
        guard scope[1] == service else { return .scopeMismatch("service") }
        let patterns = (parsed.regionSet ?? "").split(separator: ",").map { String($0).trimmingHTTPWhitespace() }
        guard patterns.contains(where: { Self.region(region, matches: $0) }) else { return .scopeMismatch("region set") }
        return nil
    }

    /// `pattern` is a region name, or has `*` standing for any run of characters.
    static func region(_ region: String, matches pattern: String) -> Bool {
        let pieces = pattern.split(separator: "*", omittingEmptySubsequences: false)
        guard pieces.count > 1 else { return region == pattern }
        var rest = Substring(region)
        guard rest.hasPrefix(pieces[0]) else { return false }
        rest = rest.dropFirst(pieces[0].count)
        for piece in pieces.dropFirst().dropLast() {
            guard let found = rest.firstRange(of: piece) else { return false }
            rest = rest[found.upperBound...]
        }
        return rest.hasSuffix(pieces[pieces.count - 1])
    }

    /// Which part of a scope that did not match is wrong.
    private func scopeFailure(_ parsed: ReceivedAuthorization) -> VerificationFailure {
        let scope = parsed.scopePieces
        guard scope.count == 4, scope[3] == "aws4_request" else { return .malformedAuthorization("credential scope") }
        guard scope[0] == parsed.date.scopeDate else { return .scopeMismatch("date") }
        guard scope[1] == region else { return .scopeMismatch("region") }
        return .scopeMismatch("service")
    }
}

extension VerificationFailure.Kind {
    /// `Verification.` and the case's name, fixed once published.
    package var code: ErrorCode {
        switch self {
        case .missingAuthorization: "Verification.missingAuthorization"
        case .malformedAuthorization: "Verification.malformedAuthorization"
        case .repeatedParameter: "Verification.repeatedParameter"
        case .unsupportedAlgorithm: "Verification.unsupportedAlgorithm"
        case .unknownAccessKey: "Verification.unknownAccessKey"
        case .sessionTokenMismatch: "Verification.sessionTokenMismatch"
        case .scopeMismatch: "Verification.scopeMismatch"
        case .expired: "Verification.expired"
        case .notYetValid: "Verification.notYetValid"
        case .hostNotSigned: "Verification.hostNotSigned"
        case .signatureMismatch: "Verification.signatureMismatch"
        }
    }
}
