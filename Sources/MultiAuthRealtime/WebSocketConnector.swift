public import Logging

/// Opens WebSocket connections for the real-time clients. The protocol engine
/// (``RealtimeConnection``) speaks through this, so it never depends on a socket library:
/// the `MultiAuthWebSocket` product provides one on swift-websocket (SwiftNIO), and tests may
/// provide their own.
public protocol WebSocketConnector: Sendable {
    /// Opens `url` offering `subprotocols`; returns once the upgrade succeeded.
    /// - Throws: ``RealtimeError/connectFailed(endpoint:reason:)`` when the connection or the
    ///   upgrade fails. `url` may carry credentials in its query: never put it in a message.
    func connect(to url: String, subprotocols: [String], logger: Logger) async throws(RealtimeError) -> any WebSocketChannel
}

/// One open WebSocket: text frames in, text frames out.
public protocol WebSocketChannel: Sendable {
    /// The text frames received, in order; finishes when the socket closes for any reason.
    var inbound: AsyncStream<String> { get }
    /// Sends one text frame.
    func send(_ text: String) async throws(RealtimeError)
    /// Closes the socket (normal closure); `inbound` then finishes.
    func close() async
}
