public import HTTPTypes
public import MultiAuthCore

/// Where a response body goes as it arrives.
///
/// Whatever the destination, the body of a response with status 400 or more is kept in
/// memory (up to ``defaultMemoryLimit``), so the caller can read the error, retry or show
/// it as it chooses: only answers that succeeded are streamed.
public enum ResponseDestination: Sendable {
    /// Kept in memory, at most `limit` bytes: a longer body fails the call with
    /// ``HTTPTransportError/responseTooLarge(host:limit:)`` (nothing to parse is ever held whole beyond it).
    case memory(limit: Int)
    /// Written to the file at `path` (created 0644 or truncated) as it arrives.
    case file(path: String)
    /// Written to an open descriptor (standard output) as it arrives; `preamble`, when given,
    /// is written first, once the head of a successful response is complete.
    case descriptor(Int32, preamble: (@Sendable (HTTPResponse) -> [UInt8])? = nil)
    /// Handed to a reader chunk by chunk as it arrives (``ResponseRelay``); the call returns
    /// once the reader has taken the last chunk.
    case relay(ResponseRelay)

    /// The most a response body in memory may hold: 16 MiB.
    public static let defaultMemoryLimit = 16 << 20
    /// In memory, up to ``defaultMemoryLimit``.
    public static let bounded = ResponseDestination.memory(limit: defaultMemoryLimit)
}

/// A response as received: the swift-http-types head, and the body bytes (empty when the
/// body was streamed to a file or descriptor).
public struct ReceivedResponse: Sendable {
    /// Status and header fields of the final response.
    public var head: HTTPResponse
    /// The body bytes kept in memory.
    public var body: [UInt8]
    /// True when the body (and preamble) went to the destination rather than into ``body``.
    public var streamed: Bool

    /// Creates a response.
    public init(head: HTTPResponse, body: [UInt8], streamed: Bool = false) {
        self.head = head
        self.body = body
        self.streamed = streamed
    }

    /// The status code.
    public var status: Int { head.status.code }

    /// The first value of the field `name` (any case).
    public func header(_ name: String) -> String? {
        guard let fieldName = HTTPField.Name(name) else { return nil }
        return head.headerFields[fieldName]
    }
}

/// Why a request got no response, classified the same whatever the sender (libcurl,
/// AsyncHTTPClient): no connection, TLS, a timeout, a connection reset mid-exchange, an
/// answer that is not HTTP. Messages name the URL's host or the body, never headers or body
/// content; the sender's own words are in `reason`.
public struct HTTPTransportError: CodedError, Sendable, Equatable {
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

extension HTTPTransportError {
    public static func invalidURL(_ value: String) -> HTTPTransportError { HTTPTransportError(.invalidURL(value)) }
    /// No connection: the host did not resolve or refused it.
    public static func connectionFailed(host: String, reason: String) -> HTTPTransportError {
        HTTPTransportError(.connectionFailed(host: host, reason: reason))
    }
    public static func timedOut(host: String) -> HTTPTransportError { HTTPTransportError(.timedOut(host: host)) }
    public static func tlsFailure(host: String, reason: String) -> HTTPTransportError {
        HTTPTransportError(.tlsFailure(host: host, reason: reason))
    }
    /// The connection was closed or reset before a whole response came (nothing was delivered).
    public static func connectionReset(host: String, reason: String) -> HTTPTransportError {
        HTTPTransportError(.connectionReset(host: host, reason: reason))
    }
    /// The server's answer was not HTTP a client can use, or the sender could not run.
    public static func protocolFailure(host: String, reason: String) -> HTTPTransportError {
        HTTPTransportError(.protocolFailure(host: host, reason: reason))
    }
    public static var cancelled: HTTPTransportError { HTTPTransportError(.cancelled) }
    /// The body could not be produced (see ``BodyError``); nothing was sent as if complete.
    public static func body(_ value: BodyError) -> HTTPTransportError { HTTPTransportError(.body(value)) }
    public static func unwritableResponseFile(path: String, reason: String) -> HTTPTransportError {
        HTTPTransportError(.unwritableResponseFile(path: path, reason: reason))
    }
    /// A body kept in memory outgrew its limit; the transfer was stopped.
    public static func responseTooLarge(host: String, limit: Int) -> HTTPTransportError {
        HTTPTransportError(.responseTooLarge(host: host, limit: limit))
    }
    /// A streamed response broke off after part of it was delivered; it is not retried, since
    /// the part already went out.
    public static func interrupted(host: String, delivered: Int, reason: String) -> HTTPTransportError {
        HTTPTransportError(.interrupted(host: host, delivered: delivered, reason: reason))
    }
}

extension HTTPTransportError {
    /// Each failure with its details, for matching inside MultiAuth; callers switch on
    /// ``HTTPTransportError/code``.
    package enum Kind: Sendable, Equatable, CustomStringConvertible, ErrorKind {
        case invalidURL(String)
        case connectionFailed(host: String, reason: String)
        case timedOut(host: String)
        case tlsFailure(host: String, reason: String)
        case connectionReset(host: String, reason: String)
        case protocolFailure(host: String, reason: String)
        case cancelled
        case body(BodyError)
        case unwritableResponseFile(path: String, reason: String)
        case responseTooLarge(host: String, limit: Int)
        case interrupted(host: String, delivered: Int, reason: String)

        /// The error this case keeps as its cause.
        package var underlying: (any Error & Sendable)? {
            switch self {
            case .body(let error): error
            case .cancelled: CancellationError()
            default: nil
            }
        }

        package var description: String {
            switch self {
            case .invalidURL(let url): "invalid URL '\(Redaction.url(url))'"
            case .connectionFailed(let host, let reason): "cannot connect to \(host): \(reason)"
            case .timedOut(let host): "\(host) did not answer in time"
            case .tlsFailure(let host, let reason): "TLS failure with \(host): \(reason)"
            case .connectionReset(let host, let reason): "the connection to \(host) closed before a response: \(reason)"
            case .protocolFailure(let host, let reason): host.isEmpty ? "transfer failed: \(reason)" : "transfer with \(host) failed: \(reason)"
            case .cancelled: "the request was cancelled"
            case .body(let error): error.description
            case .unwritableResponseFile(let path, let reason): "cannot write '\(path)': \(reason)"
            case .responseTooLarge(let host, let limit):
                "the response from \(host) is larger than \(limit >= 1 << 20 ? "\(limit >> 20) MiB" : "\(limit >> 10) KiB"), the most kept in memory"
            case .interrupted(let host, let delivered, let reason): "the response from \(host) broke off after \(delivered) bytes: \(reason)"
            }
        }

        package var isTransient: Bool {
            switch self {
            case .connectionFailed, .timedOut, .connectionReset: true
            default: false
            }
        }
    }
}

/// Sends HTTP requests exactly as given: the sender adds no header of its own. Implementations
/// never block a cooperative thread.
public protocol HTTPSender: Sendable {
    /// Sends `request` with `body` and returns the response, whatever its status; the
    /// response body goes to `responseBody` (see ``ResponseDestination`` for error statuses).
    func send(_ request: HTTPRequest, body: OutgoingBody, responseBody: ResponseDestination) async throws(HTTPTransportError) -> ReceivedResponse
}

extension HTTPSender {
    /// Sends `request` with `body`, keeping the response body in memory (at most 16 MiB).
    public func send(_ request: HTTPRequest, body: OutgoingBody = .empty) async throws(HTTPTransportError) -> ReceivedResponse {
        try await send(request, body: body, responseBody: .bounded)
    }
}

extension HTTPTransportError.Kind {
    /// `HTTPTransport.` and the case's name, fixed once published.
    package var code: ErrorCode {
        switch self {
        case .invalidURL: "HTTPTransport.invalidURL"
        case .connectionFailed: "HTTPTransport.connectionFailed"
        case .timedOut: "HTTPTransport.timedOut"
        case .tlsFailure: "HTTPTransport.tlsFailure"
        case .cancelled: "HTTPTransport.cancelled"
        case .body: "HTTPTransport.body"
        case .unwritableResponseFile: "HTTPTransport.unwritableResponseFile"
        case .responseTooLarge: "HTTPTransport.responseTooLarge"
        case .interrupted: "HTTPTransport.interrupted"
        case .connectionReset: "HTTPTransport.connectionReset"
        case .protocolFailure: "HTTPTransport.protocolFailure"
        }
    }
}

extension HTTPTransportError {
    /// True for failures worth retrying: the request may not have reached the server (no
    /// connection, a timeout, a reset before any response).
    public var isTransient: Bool { kind.isTransient }
}
