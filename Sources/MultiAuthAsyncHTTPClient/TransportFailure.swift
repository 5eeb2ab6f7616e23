import AsyncHTTPClient
import MultiAuthCore
import MultiAuthHTTP
import NIOSSL

/// AsyncHTTPClient's and NIO's errors as `HTTPTransportError`, the one error every
/// sender throws, so retries and messages do not depend on the transport.
enum TransportFailure {
    static func map(_ error: any Error, host: String, delivered: Int) -> HTTPTransportError {
        if let error = error as? HTTPTransportError { return error }
        if let error = error as? BodyError { return .body(error) }
        if error is CancellationError { return .cancelled }
        if let error = error as? HTTPClientError {
            if timeouts.contains(error) { return .timedOut(host: host) }
            if error == .cancelled { return .cancelled }
            if invalidTargets.contains(error) { return .invalidURL(host) }
        }
        if error is NIOSSLError || error is BoringSSLError || error is NIOSSLExtraError {
            return .tlsFailure(host: host, reason: "\(error)")
        }
        if delivered > 0 { return .interrupted(host: host, delivered: delivered, reason: "\(error)") }
        return .connectionFailed(host: host, reason: "\(error)")
    }

    private static let timeouts: [HTTPClientError] = [
        .connectTimeout, .readTimeout, .writeTimeout, .deadlineExceeded, .tlsHandshakeTimeout, .getConnectionFromPoolTimeout,
    ]
    private static let invalidTargets: [HTTPClientError] = [.invalidURL, .emptyHost, .emptyScheme]
}
