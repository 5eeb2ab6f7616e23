package import HTTPTypes
package import Hummingbird
import Logging
package import MultiAuthCore
import MultiAuthCrypto
import MultiAuthHTTP
import MultiAuthInboundAuthorization
import MultiAuthSigV4
import NIOCore

/// What goes to one upstream: the upstream's base path plus the received path and query,
/// byte for byte; `Host` rewritten; hop-by-hop fields dropped; the verified principal added
/// as `X-MultiAuth-Principal` and `X-MultiAuth-Mode` (any such fields from the client are
/// removed first, so a client cannot claim one).
///
/// A body of up to ``spoolThreshold`` bytes with a `Content-Length` is held in memory; any
/// other is written to a private 0600 spool file as it arrives (up to the body limit), then
/// hashed, signed and sent from there, so memory stays flat whatever the upload's size.
package struct UpstreamForwarder: Sendable {
    let upstream: WireURL
    /// The upstream's `Host` (its port left out when it is the scheme's), made once.
    let hostHeader: String
    /// The upstream's path without a trailing `/`, which each received target is appended to.
    let basePath: String
    let maxBodySize: Int
    let spoolThreshold: Int
    /// Fields of the client's request that never go upstream (lowercase names).
    let dropped: Set<String>
    /// The spool space the server's bodies share; nil for no total cap.
    let spoolBudget: SpoolBudget?

    /// Creates a forwarder to the base URL `upstream`.
    /// - Throws: ``ReverseProxyError/invalidUpstream(_:)`` for a URL that is not absolute http(s).
    /// Bodies without a `Content-Length` or over `spoolThreshold` bytes are spooled to a file.
    /// The fields named in `dropping` (lowercase) are removed from every request. Spooled
    /// bodies take their bytes from `spoolBudget`, shared by the server's connections.
    package init(
        upstream: String, maxBodySize: Int = 10 << 20, spoolThreshold: Int = 1 << 20, dropping: Set<String> = [],
        spoolBudget: SpoolBudget? = nil
    ) throws(ReverseProxyError) {
        do { self.upstream = try WireURL(upstream) } catch { throw .invalidUpstream(Redaction.url(upstream)) }
        hostHeader = self.upstream.hostHeader
        let path = self.upstream.path
        basePath = path.hasSuffix("/") ? String(path.dropLast()) : path
        self.maxBodySize = maxBodySize
        self.spoolThreshold = spoolThreshold
        dropped = dropping
        self.spoolBudget = spoolBudget
    }

    /// The principal fields.
    package static let principalField = HTTPField.Name("X-MultiAuth-Principal")!
    package static let modeField = HTTPField.Name("X-MultiAuth-Mode")!

    /// True for a field that describes one connection, never forwarded (RFC 9110 §7.6.1), or
    /// one the transport writes itself. Asked of every field both ways: the name's length picks
    /// the one or two names it could be (`name` is lowercase).
    static func isHopByHop(_ name: String) -> Bool {
        switch name.utf8.count {
        case 2: name == "te"
        case 4: name == "host"
        case 6: name == "expect"
        case 7: name == "trailer" || name == "upgrade"
        case 10: name == "connection" || name == "keep-alive"
        case 14: name == "content-length"
        case 16: name == "proxy-connection"
        case 17: name == "transfer-encoding"
        case 18: name == "proxy-authenticate"
        case 19: name == "proxy-authorization"
        default: false
        }
    }

    /// The upstream's response fields less the hop-by-hop ones, `Content-Length` kept: the
    /// response is relayed byte for byte, so it still holds.
    static func forwardedFields(_ upstream: HTTPFields) -> HTTPFields {
        var fields = upstream
        fields.removeFields { $0 != .contentLength && isHopByHop($0.canonicalName) }
        return fields
    }

    /// A received body, in memory or in its spool file, with its SHA-256 when it was asked for
    /// (taken as the body arrived).
    package struct ReceivedBody: Sendable {
        var body: OutgoingBody
        var spool: SpooledBody?
        /// The lowercase hex SHA-256 of the body, when ``receive(_:hashing:)`` was asked to hash.
        package let sha256: String?

        /// Removes the spool file, if any (a body that will not be forwarded).
        package func discard() { spool?.remove() }

        /// No body.
        static let none = ReceivedBody(body: .empty, spool: nil, sha256: nil)
    }

    /// The answer to a body ``receive(_:hashing:)`` refused: 413 past the body limit, 500 when the
    /// spool file cannot be written, 503 past the server's spool space, 400 for a client that
    /// stopped sending.
    static func bodyRefusal(_ error: BodyError, logger: Logger) -> (head: HTTPResponse, body: [UInt8]) {
        logger.info("request body refused", metadata: ["error": "\(error)"])
        if case .tooLarge = error.kind { return errorResponse(.contentTooLarge, "RequestEntityTooLargeException", "Request Too Long") }
        if case .spoolFailed = error.kind { return errorResponse(.internalServerError, "InternalServerErrorException", "Internal server error") }
        if case .spoolFull = error.kind { return errorResponse(.serviceUnavailable, "ServiceUnavailableException", "Too many request bodies at once; try again") }
        return errorResponse(.badRequest, "BadRequestException", "Invalid request body")
    }

    /// Reads `request`'s body: in memory up to the spool threshold (when `Content-Length`
    /// says so), else into a spool file; with `hashing`, its SHA-256 is taken as it arrives
    /// (the gateway checks it; the proxy hashes what it signs itself).
    package func receive(_ request: Request, hashing: Bool) async throws(BodyError) -> ReceivedBody {
        let name = "the received body"
        let length = request.headers[.contentLength].flatMap { Int($0) }
        if let length, length > maxBodySize { throw .tooLarge(body: name, limit: maxBodySize) }
        // Without Transfer-Encoding, the Content-Length (or its absence: no body) is the size.
        if request.headers[.transferEncoding] == nil, (length ?? 0) <= spoolThreshold {
            var request = request
            let buffer: ByteBuffer
            do { buffer = try await request.collectBody(upTo: maxBodySize) } catch is NIOTooManyBytesError {
                throw .tooLarge(body: name, limit: maxBodySize)
            } catch {
                throw .unreadable(body: name, reason: "\(error)")  // the client stopped sending, or went away
            }
            let bytes = Array(buffer.readableBytesView)
            let sha256 = !hashing ? nil : bytes.isEmpty ? PayloadHash.emptySHA256 : SHA256Hasher.hash(bytes).hex
            return ReceivedBody(body: bytes.isEmpty ? .empty : .bytes(bytes), spool: nil, sha256: sha256)
        }
        let digest = hashing ? RunningDigest() : nil
        let spool = try await SpooledBody(
            collecting: request.body.map { digest?.add($0) ?? Array($0.readableBytesView) }, name: name, limit: maxBodySize, budget: spoolBudget)
        return ReceivedBody(body: spool.length == 0 ? .empty : spool.body, spool: spool, sha256: digest?.finish())
    }

    /// The answer for a request target that cannot be forwarded, or nil: `CONNECT` (405; this
    /// is no tunnel), the asterisk form of `OPTIONS *` (400), and a path with a dot segment
    /// however it is spelled (``RequestPath/hasDotSegment(_:)``; 400), which could take the
    /// request out of the upstream's base path. Asked before any decision.
    static func refusal(of head: HTTPRequest) -> (head: HTTPResponse, body: [UInt8])? {
        if head.method == .connect {
            // The HTTP/1 encoder sends any answer to CONNECT without a length: the connection's
            // end marks where it stops (``ExchangeGuards``).
            var answer = errorResponse(.methodNotAllowed, "MethodNotAllowedException", "CONNECT is not supported")
            answer.head.headerFields[.connection] = "close"
            return answer
        }
        guard let path = head.path, path.hasPrefix("/") else {
            return errorResponse(.badRequest, "BadRequestException", "only origin-form request targets (starting with /) are forwarded")
        }
        if RequestPath.hasDotSegment(path) { return dotSegmentRefusal }
        return nil
    }

    /// The request as the upstream receives it: hop-by-hop fields dropped, with every field
    /// the client's `Connection` names (RFC 9110 §7.6.1), and the API key a gateway consumed
    /// (the principal's, or any when `dropKey`: a route that also required one).
    func upstreamRequest(
        for head: HTTPRequest, principal: Principal?, target: (scheme: String, authority: String, path: String)? = nil, dropKey: Bool = false
    ) -> HTTPRequest {
        let connectionNamed: Set<String> = !head.headerFields.contains(.connection) ? [] : Set(
            head.headerFields[values: .connection].flatMap { $0.split(separator: ",") }.map { String($0).trimmedWhitespace.lowercased() })
        let dropsKey = dropKey || principal?.mode == .apiKey
        var fields = head.headerFields
        fields.removeFields { name in
            Self.isHopByHop(name.canonicalName) || (!connectionNamed.isEmpty && connectionNamed.contains(name.canonicalName))
                || Self.isIdentityField(name) || (!dropped.isEmpty && dropped.contains(name.canonicalName))
                || (dropsKey && name.canonicalName == "x-api-key")
        }
        if let principal {
            // Appended: the loop above let no field of these names through.
            fields.append(HTTPField(name: Self.principalField, value: principal.name))
            fields.append(HTTPField(name: Self.modeField, value: principal.mode.rawValue))
        }
        if let target { return HTTPRequest(method: head.method, scheme: target.scheme, authority: target.authority, path: target.path, headerFields: fields) }
        return HTTPRequest(
            method: head.method, scheme: upstream.scheme, authority: hostHeader, path: basePath + (head.path ?? "/"),
            headerFields: fields)
    }

    /// True for a field a CGI or WSGI upstream would read as one the gateway sets: any case,
    /// with `-` or `_` between the words (`X_MultiAuth_Principal` becomes
    /// `HTTP_X_MULTIAUTH_PRINCIPAL` there, as `X-MultiAuth-Principal` does).
    static func isIdentityField(_ name: HTTPField.Name) -> Bool {
        sameWords(name.canonicalName, principalField.canonicalName) || sameWords(name.canonicalName, modeField.canonicalName)
    }

    /// True when lowercase `name` is `identity` with any `-` spelled `-` or `_` (asked of every field).
    private static func sameWords(_ name: String, _ identity: String) -> Bool {
        guard name.utf8.count == identity.utf8.count else { return false }
        return zip(name.utf8, identity.utf8).allSatisfy { $0 == $1 || ($0 == UInt8(ascii: "_") && $1 == UInt8(ascii: "-")) }
    }

    /// The answer to a path with a `.` or `..` segment, as API Gateway gives it.
    static let dotSegmentRefusal = errorResponse(.badRequest, "BadRequestException", "the path holds a . or .. segment")

    /// An error answer in API Gateway's form: the status, `x-amzn-ErrorType` and `{"message": …}`.
    static func errorResponse(_ status: HTTPResponse.Status, _ type: String, _ message: String) -> (head: HTTPResponse, body: [UInt8]) {
        let rejection = InboundRejection(status: status, errorType: type, message: message, reason: message)
        return (rejection.responseHead, rejection.body)
    }
}

/// The SHA-256 of a body, taken chunk by chunk as it is spooled.
///
/// `@unchecked Sendable`: the spool's loop calls ``add(_:)`` for one chunk at a time, each
/// after the last, and ``finish()`` after the loop; nothing else touches the hasher.
final class RunningDigest: @unchecked Sendable {
    private var hasher = SHA256Hasher()

    /// Hashes `chunk` and hands back its bytes for the spool.
    func add(_ chunk: ByteBuffer) -> [UInt8] {
        chunk.withUnsafeReadableBytes { hasher.update($0) }
        return Array(chunk.readableBytesView)
    }

    /// The lowercase hex digest of everything added.
    func finish() -> String { hasher.finalize().hex }
}

/// Why a proxy or gateway cannot start.
package enum ReverseProxyError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The upstream is not an absolute http(s) URL.
    case invalidUpstream(String)
    /// The usage state file exists and holds no usage counts.
    case unreadableUsageState(path: String, reason: String)

    package var description: String {
        switch self {
        case .invalidUpstream(let url): "the upstream '\(url)' is not an absolute http:// or https:// URL"
        case .unreadableUsageState(let path, let reason): "the usage state file \(path) \(reason)"
        }
    }
}

extension ReverseProxyError: CodedError {
    /// `ReverseProxy.` and the case's name, fixed once published.
    package var code: ErrorCode {
        switch self {
        case .invalidUpstream: "ReverseProxy.invalidUpstream"
        case .unreadableUsageState: "ReverseProxy.unreadableUsageState"
        }
    }
}
