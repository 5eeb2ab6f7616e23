import HTTPTypes
import MultiAuthHTTP

/// One answer's body read as it arrives: an event stream (`text/event-stream`) message by
/// message, anything else as one JSON message once it is whole.
struct AnswerReader {
    let streaming: Bool
    private(set) var events = ServerSentEvents()
    private var json: [UInt8] = []

    /// A reader for the answer `head` begins.
    init(_ head: HTTPResponse) {
        streaming = head.headerFields[.contentType]?.lowercased().hasPrefix("text/event-stream") == true
    }

    /// The messages `chunk` completes.
    /// - Throws: ``MultiAuthHTTP/HTTPTransportError`` for a JSON answer over 16 MiB.
    mutating func read(_ chunk: [UInt8]) throws(HTTPTransportError) -> [[UInt8]] {
        guard streaming else {
            json += chunk
            guard json.count <= ResponseDestination.defaultMemoryLimit else {
                throw .responseTooLarge(host: "the MCP server", limit: ResponseDestination.defaultMemoryLimit)
            }
            return []
        }
        return events.feed(chunk).filter { $0.type == "message" }.map(\.data)
    }

    /// The JSON answer, once the body has ended.
    mutating func finish() -> [[UInt8]] {
        defer { json = [] }
        return streaming || json.isEmpty ? [] : [json]
    }
}
