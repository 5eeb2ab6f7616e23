import HTTPTypes
import MultiAuthCore

/// A response as received: the swift-http-types head, and the body bytes (empty when the
/// body was written to a file).
public struct ReceivedResponse: Sendable {
    /// Status and header fields of the final response.
    public var head: HTTPResponse
    /// The body bytes.
    public var body: [UInt8]

    /// Creates a response.
    public init(head: HTTPResponse, body: [UInt8]) {
        self.head = head
        self.body = body
    }

    /// The status code.
    public var status: Int { head.status.code }

    /// The first value of the field `name` (any case).
    public func header(_ name: String) -> String? {
        guard let fieldName = HTTPField.Name(name) else { return nil }
        return head.headerFields[fieldName]
    }
}

/// Why a request got no response. Messages name the URL's host or the body, never headers
/// or body content.
public enum HTTPError: Error, Sendable, Equatable, CustomStringConvertible {
    case invalidURL(String)
    case connectionFailed(host: String, reason: String)
    case timedOut(host: String)
    case tlsFailure(host: String, reason: String)
    case cancelled
    /// The body could not be produced (see ``BodyError``); nothing was sent as if complete.
    case body(BodyError)
    case unwritableResponseFile(path: String, reason: String)
    case transport(code: Int, reason: String)

    public var description: String {
        switch self {
        case .invalidURL(let url): "invalid URL '\(Redaction.url(url))'"
        case .connectionFailed(let host, let reason): "cannot connect to \(host): \(reason)"
        case .timedOut(let host): "\(host) did not answer in time"
        case .tlsFailure(let host, let reason): "TLS failure with \(host): \(reason)"
        case .cancelled: "the request was cancelled"
        case .body(let error): error.description
        case .unwritableResponseFile(let path, let reason): "cannot write '\(path)': \(reason)"
        case .transport(let code, let reason): "transfer failed (curl \(code)): \(reason)"
        }
    }

    /// True for failures worth retrying: the request may not have reached the server.
    public var isTransient: Bool {
        switch self {
        case .connectionFailed, .timedOut: true
        case .transport(let code, _): [52, 55, 56].contains(code)  // empty reply, send error, receive error
        default: false
        }
    }
}

/// Sends HTTP requests exactly as given: the sender adds no header of its own. Implementations
/// never block a cooperative thread.
public protocol HTTPSender: Sendable {
    /// Sends `request` with `body` and returns the response, whatever its status; the
    /// response body goes to `responseFile` when one is given.
    func send(_ request: HTTPRequest, body: RequestBody, responseFile: String?) async throws(HTTPError) -> ReceivedResponse
}

extension HTTPSender {
    /// Sends `request` with `body`, keeping the response body in memory.
    public func send(_ request: HTTPRequest, body: RequestBody = .empty) async throws(HTTPError) -> ReceivedResponse {
        try await send(request, body: body, responseFile: nil)
    }
}
