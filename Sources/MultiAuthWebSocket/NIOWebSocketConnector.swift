import HTTPTypes
public import Logging
public import MultiAuthRealtime
import NIOWebSocket
import Synchronization
import WSClient

/// A `WebSocketConnector` on swift-websocket's client (SwiftNIO): the socket a server that
/// already runs NIO shares with its event loops. `ws://` and `wss://` (TLS through NIO SSL).
public struct NIOWebSocketConnector: WebSocketConnector {
    /// The largest frame accepted (AppSync sends at most 240 KB per message).
    public var maxFrameSize: Int
    /// How long connecting may take before it fails.
    public var connectTimeout: Duration

    /// A connector; frames up to `maxFrameSize` bytes.
    public init(maxFrameSize: Int = 1 << 20, connectTimeout: Duration = .seconds(10)) {
        self.maxFrameSize = maxFrameSize
        self.connectTimeout = connectTimeout
    }

    public func connect(to url: String, subprotocols: [String], logger: Logger) async throws(RealtimeError) -> any WebSocketChannel {
        let endpoint = Self.endpoint(of: url)
        let channel = NIOWebSocketChannel(endpoint: endpoint)
        var headers = HTTPFields()
        if !subprotocols.isEmpty, let name = HTTPField.Name("Sec-WebSocket-Protocol") {
            headers[name] = subprotocols.joined(separator: ", ")
        }
        let configuration = WebSocketClientConfiguration(maxFrameSize: maxFrameSize, additionalHeaders: headers, closeTimeout: .seconds(1))
        let maxSize = maxFrameSize
        // swift-websocket traces whole frames, and start frames carry authorization.
        var socketLogger = logger
        socketLogger.logLevel = max(logger.logLevel, .debug)
        let client = WebSocketClient(url: url, configuration: configuration, logger: socketLogger) { inbound, outbound, _ in
            channel.opened(outbound)
            do {
                for try await message in inbound.messages(maxSize: maxSize) {
                    if case .text(let text) = message { channel.received(text) }
                }
            } catch {
                logger.debug("websocket ended with an error", metadata: ["endpoint": "\(endpoint)", "reason": "\(error)"])
            }
            channel.ended()
        }
        let task = Task {
            do { try await client.run() } catch { channel.failed(String(describing: error)) }
            channel.ended()
        }
        channel.attach(task)
        return try await channel.waitUntilOpen(timeout: connectTimeout)
    }

    /// `scheme://authority/path`, without the query (which may carry authorization).
    static func endpoint(of url: String) -> String {
        String(url.prefix { $0 != "?" && $0 != "#" })
    }
}

/// The channel one ``NIOWebSocketConnector/connect(to:subprotocols:logger:)`` returns: the
/// handler's writer once the upgrade succeeded, and the received text frames.
final class NIOWebSocketChannel: WebSocketChannel {
    private enum Phase {
        case connecting(CheckedContinuation<any WebSocketChannel, any Error>?)
        case open(WebSocketOutboundWriter)
        case ended
    }

    let endpoint: String
    let inbound: AsyncStream<String>
    private let continuation: AsyncStream<String>.Continuation
    private let phase = Mutex<Phase>(.connecting(nil))
    private let task = Mutex<Task<Void, Never>?>(nil)
    private let failure = Mutex<String?>(nil)

    init(endpoint: String) {
        self.endpoint = endpoint
        (inbound, continuation) = AsyncStream<String>.makeStream(bufferingPolicy: .bufferingOldest(65_536))
    }

    func attach(_ task: Task<Void, Never>) { self.task.withLock { $0 = task } }

    func waitUntilOpen(timeout: Duration) async throws(RealtimeError) -> any WebSocketChannel {
        let timer = Task { [weak self] in
            do { try await Task.sleep(for: timeout) } catch { return }
            self?.failed("no upgrade within \(timeout)")
        }
        defer { timer.cancel() }
        do {
            return try await withCheckedThrowingContinuation { (waiter: CheckedContinuation<any WebSocketChannel, any Error>) in
                let resumeNow: Result<any WebSocketChannel, any Error>? = phase.withLock { phase in
                    switch phase {
                    case .connecting: phase = .connecting(waiter); return nil
                    case .open: return .success(self)
                    case .ended: return .failure(RealtimeError.connectFailed(endpoint: endpoint, reason: failure.withLock { $0 } ?? "the socket closed"))
                    }
                }
                if let resumeNow { waiter.resume(with: resumeNow) }
            }
        } catch let error as RealtimeError { throw error } catch { throw .connectFailed(endpoint: endpoint, reason: "\(error)") }
    }

    func opened(_ writer: WebSocketOutboundWriter) {
        let waiter: CheckedContinuation<any WebSocketChannel, any Error>? = phase.withLock { phase in
            guard case .connecting(let waiter) = phase else { return nil }
            phase = .open(writer)
            return waiter
        }
        waiter?.resume(returning: self)
    }

    func received(_ text: String) {
        if case .dropped = continuation.yield(text) { failed("receiver too far behind") }
    }

    func failed(_ reason: String) {
        failure.withLock { if $0 == nil { $0 = reason } }
        ended()
    }

    func ended() {
        let waiter: CheckedContinuation<any WebSocketChannel, any Error>? = phase.withLock { phase in
            defer { phase = .ended }
            if case .connecting(let waiter) = phase { return waiter }
            return nil
        }
        waiter?.resume(throwing: RealtimeError.connectFailed(endpoint: endpoint, reason: failure.withLock { $0 } ?? "the socket closed"))
        continuation.finish()
        task.withLock { $0 }?.cancel()
    }

    func send(_ text: String) async throws(RealtimeError) {
        guard case .open(let writer) = phase.withLock({ $0 }) else { throw .sendFailed(endpoint: endpoint, reason: "the socket is closed") }
        do { try await writer.write(.text(text)) } catch { throw .sendFailed(endpoint: endpoint, reason: "\(error)") }
    }

    func close() async {
        let writer: WebSocketOutboundWriter? = phase.withLock { phase in
            if case .open(let writer) = phase { return writer }
            return nil
        }
        // The stream ends at once: a half-dead peer may never answer the close frame.
        continuation.finish()
        if let writer { try? await writer.close(.normalClosure, reason: nil) }
        ended()
    }
}
