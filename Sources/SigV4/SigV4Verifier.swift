import MultiAuthCrypto
import Synchronization

/// What a verifier knows about an access key id.
public struct VerifierCredential: Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The secret that signs for the key id.
    public let secretAccessKey: String
    /// When set, the request must carry exactly this session token.
    public let sessionToken: String?

    /// Creates an entry.
    public init(secretAccessKey: String, sessionToken: String? = nil) {
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
    }

    public var description: String { "VerifierCredential(<redacted>)" }
    public var debugDescription: String { description }
}

/// Why a request was rejected. Never includes a secret or the expected signature.
public enum VerificationFailure: Error, Sendable, Equatable, CustomStringConvertible {
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

    public var description: String {
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

/// Checks incoming SigV4 requests (header or presigned form), as a server does: the
/// canonical request is recomputed from the received wire form with the same stages as
/// ``SigV4Signer``, and signatures are compared in constant time. It never throws on
/// hostile input: every problem is a ``VerificationFailure``.
public struct SigV4Verifier: Sendable {
    let region: String
    let service: String
    let lookup: @Sendable (String) async -> VerifierCredential?
    let options: SigningOptions
    /// Allowed difference between the signing time and now for header signatures (15 min).
    public let allowedSkew: Int64
    private let signers = VerifierSignerCache()

    /// Creates a verifier for `service` in `region`; `lookup` maps an access key id to its secret.
    /// `options` are the service's canonicalization rules (default: ``SigningOptions/defaults(forService:)``).
    public init(
        region: String, service: String, options: SigningOptions? = nil, allowedSkew: Int64 = 15 * 60,
        lookup: @escaping @Sendable (String) async -> VerifierCredential?
    ) {
        self.region = region
        self.service = service
        self.options = options ?? .defaults(forService: service)
        self.allowedSkew = allowedSkew
        self.lookup = lookup
    }

    /// Verifies `request` as received at `now`; returns the access key id that signed it.
    public func verify(_ request: SignableRequest, now: SigningDate) async -> Result<String, VerificationFailure> {
        let parsed: ReceivedAuthorization
        switch ReceivedAuthorization.parse(request) {
        case .failure(let failure): return .failure(failure)
        case .success(let value): parsed = value
        }
        if let failure = checkScopeAndTime(parsed, now: now) { return .failure(failure) }
        guard let known = await lookup(parsed.accessKeyId) else { return .failure(.unknownAccessKey(parsed.accessKeyId)) }
        if let expected = known.sessionToken, parsed.sessionToken != expected { return .failure(.sessionTokenMismatch) }
        guard parsed.signedHeaders.contains("host") else { return .failure(.hostNotSigned) }
        // A presigned URL does not say whether its token was signed or appended afterwards: try both.
        let tokenChoices = parsed.expires != nil && parsed.sessionToken != nil ? [true, false] : [nil]
        for tokenSigned in tokenChoices {
            let expected = recompute(request, parsed, secret: known.secretAccessKey, presignedTokenSigned: tokenSigned)
            if let expected, Self.sameSignature(expected, parsed.signature) {
                return .success(parsed.accessKeyId)
            }
        }
        return .failure(.signatureMismatch)
    }

    /// Constant-time comparison of two hex signatures, on their UTF-8 storage when it is contiguous.
    private static func sameSignature(_ expected: String, _ received: String) -> Bool {
        let direct = expected.utf8.withContiguousStorageIfAvailable { left in
            received.utf8.withContiguousStorageIfAvailable { right in
                ConstantTime.equals(UnsafeRawBufferPointer(left), UnsafeRawBufferPointer(right))
            }
        }
        return (direct ?? nil) ?? ConstantTime.equals(Array(expected.utf8), Array(received.utf8))
    }

    private func checkScopeAndTime(_ parsed: ReceivedAuthorization, now: SigningDate) -> VerificationFailure? {
        let scope = parsed.scope
        guard scope.count == 4, scope[3] == "aws4_request" else { return .malformedAuthorization("credential scope") }
        guard scope[0] == parsed.date.scopeDate else { return .scopeMismatch("date") }
        guard scope[1] == region else { return .scopeMismatch("region") }
        guard scope[2] == service else { return .scopeMismatch("service") }
        let age = now.secondsSince1970 - parsed.date.secondsSince1970
        if let expires = parsed.expires {
            if age > Int64(expires) { return .expired }
            if age < -allowedSkew { return .notYetValid }
        } else {
            if age > allowedSkew { return .expired }
            if age < -allowedSkew { return .notYetValid }
        }
        return nil
    }

    /// The signature the request should carry, recomputed with the signer's stages from the
    /// signed headers only; nil when the received values cannot be signed at all.
    private func recompute(
        _ request: SignableRequest, _ parsed: ReceivedAuthorization, secret: String, presignedTokenSigned: Bool?
    ) -> String? {
        var unsigned = request
        // Only signed headers take part (the signer drops Authorization itself); copy the list
        // only when something must go.
        let signed: (HTTPHeaderList.Field) -> Bool = { field in parsed.signedHeaders.contains { HTTPHeaderList.namesMatch(field.name, $0) } }
        if !request.headers.fields.allSatisfy({ signed($0) || HTTPHeaderList.namesMatch($0.name, "authorization") }) {
            unsigned.headers = HTTPHeaderList(request.headers.fields.filter(signed))
        }
        let tokenSigned = presignedTokenSigned ?? parsed.signedHeaders.contains("x-amz-security-token")
        let signer = signers.signer(
            for: .init(accessKeyId: parsed.accessKeyId, secret: secret, token: tokenSigned ? parsed.sessionToken : nil, tokenSigned: tokenSigned)
        ) { key in
            var options = self.options
            options.signsContentSHA256Header = false
            options.omitsSessionToken = !key.tokenSigned
            let credentials = AWSCredentials(accessKeyId: key.accessKeyId, secretAccessKey: key.secret, sessionToken: key.token)
            return SigV4Signer(credentials: credentials, region: region, service: service, options: options, keyCache: .shared)
        }
        if let expires = parsed.expires {
            unsigned.query = ReceivedAuthorization.queryWithoutAuthParameters(request.query)
            return try? signer.presign(unsigned, expires: expires, date: parsed.date).signature
        }
        // A signed header the request does not carry cannot be reproduced: the lists differ.
        guard let result = try? signer.headerSignature(unsigned, date: parsed.date), result.signedHeaders == parsed.signedHeadersText
        else { return nil }
        return result.signature
    }
}

/// Signers the verifier made, by credential, so a busy key id does not rebuild one per
/// request. Bounded: it starts over past 256 entries.
final class VerifierSignerCache: Sendable {
    struct Key: Hashable, Sendable {
        let accessKeyId: String
        let secret: String
        let token: String?
        let tokenSigned: Bool
    }

    // By key id only (cheap to hash); the rest of the key is compared on a hit.
    private let signers = Mutex<[String: [(key: Key, signer: SigV4Signer)]]>([:])

    func signer(for key: Key, make: (Key) -> SigV4Signer) -> SigV4Signer {
        if let known = signers.withLock({ $0[key.accessKeyId]?.first { $0.key == key }?.signer }) { return known }
        let made = make(key)
        signers.withLock { cache in
            if cache.count >= 256 { cache.removeAll(keepingCapacity: true) }
            cache[key.accessKeyId, default: []].append((key, made))
            if let count = cache[key.accessKeyId]?.count, count > 4 { cache[key.accessKeyId]?.removeFirst() }
        }
        return made
    }
}

/// The authorization a request carries, in header or query form.
struct ReceivedAuthorization {
    let accessKeyId: String
    let scope: [String]
    let signedHeaders: [String]
    /// `SignedHeaders` as received, for comparing with the recomputed list.
    let signedHeadersText: String
    let signature: String
    let date: SigningDate
    let expires: Int?
    let sessionToken: String?

    static let authParameters: Set<String> = [
        "X-Amz-Algorithm", "X-Amz-Credential", "X-Amz-Date", "X-Amz-Expires", "X-Amz-SignedHeaders", "X-Amz-Signature",
        "X-Amz-Security-Token",
    ]

    static func parse(_ request: SignableRequest) -> Result<ReceivedAuthorization, VerificationFailure> {
        // One pass over the headers, matching names without lowercasing copies.
        var authorization: String?, date: String?, token: String?
        for field in request.headers.fields {
            if HTTPHeaderList.namesMatch(field.name, "authorization") {
                guard authorization == nil else { return .failure(.repeatedParameter("Authorization")) }
                authorization = field.value
            } else if HTTPHeaderList.namesMatch(field.name, "x-amz-date") {
                guard date == nil else { return .failure(.repeatedParameter("X-Amz-Date")) }
                date = field.value
            } else if HTTPHeaderList.namesMatch(field.name, "x-amz-security-token") {
                guard token == nil else { return .failure(.repeatedParameter("X-Amz-Security-Token")) }
                token = field.value
            }
        }
        guard let authorization else { return parseQuery(request) }
        guard let date else { return .failure(.malformedAuthorization("no X-Amz-Date")) }
        return parseHeader(authorization, date: date, token: token)
    }

    private static let algorithmBytes = Array(SigV4Signer.algorithm.utf8)
    private static let headerParameters = ["Credential", "SignedHeaders", "Signature"].map { Array($0.utf8) }

    /// `AWS4-HMAC-SHA256 Credential=…, SignedHeaders=…, Signature=…`, read on bytes.
    private static func parseHeader(_ value: String, date: String, token: String?) -> Result<ReceivedAuthorization, VerificationFailure> {
        let bytes = Array(value.utf8)
        guard let space = bytes.firstIndex(of: UInt8(ascii: " ")) else { return .failure(.malformedAuthorization("no parameters")) }
        guard bytes[..<space].elementsEqual(algorithmBytes) else {
            return .failure(.unsupportedAlgorithm(String(decoding: bytes[..<space], as: UTF8.self)))
        }
        var credential: String?, signedHeaders: String?, signature: String?
        var index = space + 1
        while index < bytes.count {
            let end = bytes[index...].firstIndex(of: UInt8(ascii: ",")) ?? bytes.count
            var first = index
            while first < end, bytes[first] == 0x20 || bytes[first] == 0x09 { first += 1 }
            var last = end
            while last > first, bytes[last - 1] == 0x20 || bytes[last - 1] == 0x09 { last -= 1 }
            if first < last {
                guard let equals = bytes[first..<last].firstIndex(of: UInt8(ascii: "=")) else {
                    return .failure(.malformedAuthorization("'\(String(decoding: bytes[first..<last], as: UTF8.self))'"))
                }
                let name = bytes[first..<equals]
                let text = { String(decoding: bytes[(equals + 1)..<last], as: UTF8.self) }
                if name.elementsEqual(headerParameters[0]) {
                    guard credential == nil else { return .failure(.repeatedParameter("Credential")) }
                    credential = text()
                } else if name.elementsEqual(headerParameters[1]) {
                    guard signedHeaders == nil else { return .failure(.repeatedParameter("SignedHeaders")) }
                    signedHeaders = text()
                } else if name.elementsEqual(headerParameters[2]) {
                    guard signature == nil else { return .failure(.repeatedParameter("Signature")) }
                    signature = text()
                }
            }
            index = end + 1
        }
        return build(
            credential: credential, signedHeaders: signedHeaders, signature: signature, date: trimmed(date), expires: nil,
            token: token.map(trimmed))
    }

    /// The value without surrounding spaces or tabs; the same string when it has none (the usual case).
    private static func trimmed(_ value: String) -> String {
        let isSpace: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 }
        guard let first = value.utf8.first, let last = value.utf8.last, isSpace(first) || isSpace(last) else { return value }
        return value.trimmingHTTPWhitespace()
    }

    private static func parseQuery(_ request: SignableRequest) -> Result<ReceivedAuthorization, VerificationFailure> {
        var values: [String: String] = [:]
        for pair in request.query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key = percentDecoded(String(parts[0]))
            guard authParameters.contains(key) else { continue }
            guard values[key] == nil else { return .failure(.repeatedParameter(key)) }
            values[key] = parts.count > 1 ? percentDecoded(String(parts[1])) : ""
        }
        guard let algorithm = values["X-Amz-Algorithm"] else { return .failure(.missingAuthorization) }
        guard algorithm == SigV4Signer.algorithm else { return .failure(.unsupportedAlgorithm(algorithm)) }
        guard let expiresText = values["X-Amz-Expires"], let expires = Int(expiresText), (1...SigV4Signer.maximumExpiry).contains(expires)
        else { return .failure(.malformedAuthorization("X-Amz-Expires")) }
        return build(
            credential: values["X-Amz-Credential"], signedHeaders: values["X-Amz-SignedHeaders"], signature: values["X-Amz-Signature"],
            date: values["X-Amz-Date"] ?? "", expires: expires, token: values["X-Amz-Security-Token"])
    }

    private static func build(
        credential: String?, signedHeaders: String?, signature: String?, date: String, expires: Int?, token: String?
    ) -> Result<ReceivedAuthorization, VerificationFailure> {
        guard let credential else { return .failure(.malformedAuthorization("Credential")) }
        let parts = split(credential, at: UInt8(ascii: "/"))
        guard parts.count >= 2 else { return .failure(.malformedAuthorization("Credential")) }
        guard let signedHeaders, !signedHeaders.isEmpty else { return .failure(.malformedAuthorization("SignedHeaders")) }
        guard let signature, signature.utf8.count == 64 else { return .failure(.malformedAuthorization("Signature")) }
        guard let parsedDate = try? SigningDate(parsing: date) else { return .failure(.malformedAuthorization("X-Amz-Date")) }
        return .success(ReceivedAuthorization(
            accessKeyId: parts[0], scope: Array(parts.dropFirst()),
            signedHeaders: split(signedHeaders, at: UInt8(ascii: ";")).filter { !$0.isEmpty },
            signedHeadersText: signedHeaders, signature: signature, date: parsedDate,
            expires: expires, sessionToken: token))
    }

    /// `text` cut at every `separator` byte, empty pieces kept (a plain loop: the generic
    /// `split` on a UTF-8 view costs several times more).
    private static func split(_ text: String, at separator: UInt8) -> [String] {
        let bytes = Array(text.utf8)
        var pieces: [String] = []
        pieces.reserveCapacity(6)
        var start = 0
        for index in 0...bytes.count where index == bytes.count || bytes[index] == separator {
            pieces.append(String(decoding: bytes[start..<index], as: UTF8.self))
            start = index + 1
        }
        return pieces
    }

    /// The received query without the presigning parameters, other pairs kept byte for byte.
    static func queryWithoutAuthParameters(_ query: String) -> String {
        query.split(separator: "&").filter { pair in
            // Not `split(separator:)[0]`: a pair like "=x" has an empty key (found by the fuzzer).
            !authParameters.contains(percentDecoded(String(pair.prefix { $0 != "=" })))
        }.joined(separator: "&")
    }

    static func percentDecoded(_ text: String) -> String {
        var out = [UInt8]()
        let bytes = Array(text.utf8)
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.count,
                let high = URIEncoding.hexValue(bytes[index + 1]), let low = URIEncoding.hexValue(bytes[index + 2]) {
                out.append(high << 4 | low)
                index += 3
            } else {
                out.append(bytes[index])
                index += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
