public import HTTPTypes
public import MultiAuthCore
public import MultiAuthHTTP
import Synchronization

/// An ``MultiAuthHTTP/HTTPSender`` that answers from a script instead of a network, and keeps
/// every request it was given: for unit tests of code that sends (retries, signing, error
/// handling) without a server.
///
/// Each request takes the next step of the script; once the script runs out, the last step
/// answers again. A step is an answer (status, header fields, body) or a transport failure.
public final class ScriptedSender: HTTPSender {
    /// What one request gets.
    public enum Step: Sendable {
        /// An answer with `status`, header fields and body.
        case answer(status: Int, headers: [(String, String)] = [], body: [UInt8] = [])
        /// A failure before any answer.
        case failure(HTTPTransportError)
        /// An answer whose body arrives in these chunks (relayed one by one to a
        /// ``MultiAuthHTTP/ResponseDestination/relay(_:)``), then `failure` if given: a
        /// connection cut mid-body.
        case chunks(status: Int, headers: [(String, String)], chunks: [[UInt8]], then: HTTPTransportError? = nil)

        /// An answer whose body is `text`.
        public static func answer(_ status: Int, _ text: String, headers: [(String, String)] = []) -> Step {
            .answer(status: status, headers: headers, body: Array(text.utf8))
        }
    }

    /// A request as it was sent.
    public struct Sent: Sendable {
        /// The request head.
        public let request: HTTPRequest
        /// The body bytes (a file or stream body is recorded as empty).
        public let body: [UInt8]
    }

    private let state: Mutex<(steps: [Step], sent: [Sent])>

    /// A sender that answers with `steps`, in order.
    public init(_ steps: [Step]) {
        precondition(!steps.isEmpty, "a script needs at least one step")
        state = Mutex((steps, []))
    }

    /// The requests sent so far, in order.
    public var sent: [Sent] { state.withLock { $0.sent } }

    public func send(_ request: HTTPRequest, body: OutgoingBody, responseBody: ResponseDestination) async throws(HTTPTransportError) -> ReceivedResponse {
        let bytes: [UInt8] = if case .bytes(let bytes) = body { bytes } else { [] }
        let step = state.withLock { state -> Step in
            state.sent.append(Sent(request: request, body: bytes))
            return state.steps.count > 1 ? state.steps.removeFirst() : state.steps[0]
        }
        switch step {
        case .failure(let error): throw error
        case .answer(let status, let headers, let body): return try await answer(status, headers, [body], then: nil, to: responseBody)
        case .chunks(let status, let headers, let chunks, let failure): return try await answer(status, headers, chunks, then: failure, to: responseBody)
        }
    }

    /// The answer, relayed chunk by chunk when the caller asked for a relay and the status is
    /// below 400 (as the real senders do), else in memory.
    private func answer(
        _ status: Int, _ headers: [(String, String)], _ chunks: [[UInt8]], then failure: HTTPTransportError?, to destination: ResponseDestination
    ) async throws(HTTPTransportError) -> ReceivedResponse {
        var fields = HTTPFields()
        for (name, value) in headers { if let name = HTTPField.Name(name) { fields.append(HTTPField(name: name, value: value)) } }
        let head = HTTPResponse(status: .init(code: status), headerFields: fields)
        guard case .relay(let relay) = destination, status < 400 else {
            if let failure { throw failure }
            return ReceivedResponse(head: head, body: chunks.flatMap { $0 })
        }
        relay.begin(head)
        for chunk in chunks where !chunk.isEmpty {
            guard await relay.write(chunk) else { throw .cancelled }
        }
        if let failure { throw failure }
        return ReceivedResponse(head: head, body: [], streamed: true)
    }
}
