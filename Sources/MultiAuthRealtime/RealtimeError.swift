public import MultiAuthAuthorization
public import MultiAuthCore

/// One entry of an AppSync error list (`errors` of `connection_error`, `error` or
/// `subscribe_error`).
public struct RealtimeServerError: Sendable, Equatable, Codable, CustomStringConvertible {
    /// AppSync's `errorType`, e.g. `UnauthorizedException`.
    public var errorType: String?
    /// The message.
    public var message: String?
    /// `errorCode`, when given.
    public var errorCode: Int?

    /// Creates an entry.
    public init(errorType: String? = nil, message: String? = nil, errorCode: Int? = nil) {
        self.errorType = errorType
        self.message = message
        self.errorCode = errorCode
    }

    /// `errorType: message`, quoted safely (a server may echo what it was sent).
    public var description: String {
        let text = [errorType, message].compactMap { $0 }.joined(separator: ": ")
        return Redaction.quoted(text.isEmpty ? "no message" : text)
    }

    /// Whether this refuses the caller's authorization (not worth retrying with the same one).
    public var isUnauthorized: Bool {
        (errorType ?? "").contains("Unauthorized") || errorCode == 401 || errorCode == 403
    }
}

/// Why a real-time connection or subscription failed. Messages name the endpoint (never its
/// authorization query) and quote AppSync's own error text.
public struct RealtimeError: CodedError, Sendable {
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

extension RealtimeError {
    /// The socket could not be opened or upgraded.
    public static func connectFailed(endpoint: String, reason: String) -> RealtimeError {
        RealtimeError(.connectFailed(endpoint: endpoint, reason: reason))
    }
    /// The server answered `connection_init` with `connection_error`.
    public static func connectionRefused(endpoint: String, errors: [RealtimeServerError]) -> RealtimeError {
        RealtimeError(.connectionRefused(endpoint: endpoint, errors: errors))
    }
    /// No `connection_ack` within the time allowed.
    public static func noAcknowledgement(endpoint: String, seconds: Double) -> RealtimeError {
        RealtimeError(.noAcknowledgement(endpoint: endpoint, seconds: seconds))
    }
    /// The connection kept failing; the subscriptions ended.
    public static func gaveUp(endpoint: String, attempts: Int, lastReason: String) -> RealtimeError {
        RealtimeError(.gaveUp(endpoint: endpoint, attempts: attempts, lastReason: lastReason))
    }
    /// The server refused or ended the subscription with errors (an authorization error is never retried).
    public static func subscriptionRefused(endpoint: String, errors: [RealtimeServerError]) -> RealtimeError {
        RealtimeError(.subscriptionRefused(endpoint: endpoint, errors: errors))
    }
    /// The document is not a subscription (the real-time endpoint only takes subscriptions).
    public static func notASubscription(_ value: String) -> RealtimeError { RealtimeError(.notASubscription(value)) }
    /// The subscription's authorization could not be made.
    public static func authorization(_ value: AuthorizationError) -> RealtimeError {
        RealtimeError(.authorization(value))
    }
    /// A frame could not be sent.
    public static func sendFailed(endpoint: String, reason: String) -> RealtimeError {
        RealtimeError(.sendFailed(endpoint: endpoint, reason: reason))
    }
    /// The subscriber fell more than `limit` messages behind; the subscription was ended
    /// after the messages kept, so that none is lost unnoticed.
    public static func subscriberBehind(endpoint: String, limit: Int) -> RealtimeError {
        RealtimeError(.subscriberBehind(endpoint: endpoint, limit: limit))
    }
}

extension RealtimeError {
    /// Each failure with its details, for matching inside MultiAuth; callers switch on
    /// ``RealtimeError/code``.
    package enum Kind: Sendable, CustomStringConvertible, ErrorKind {
        case connectFailed(endpoint: String, reason: String)
        case connectionRefused(endpoint: String, errors: [RealtimeServerError])
        case noAcknowledgement(endpoint: String, seconds: Double)
        case gaveUp(endpoint: String, attempts: Int, lastReason: String)
        case subscriptionRefused(endpoint: String, errors: [RealtimeServerError])
        case notASubscription(String)
        case authorization(AuthorizationError)
        case sendFailed(endpoint: String, reason: String)
        case subscriberBehind(endpoint: String, limit: Int)

        /// The error this case keeps as its cause.
        package var underlying: (any Error & Sendable)? {
            switch self {
            case .authorization(let error): error
            default: nil
            }
        }

        package var description: String {
            switch self {
            case .connectFailed(let endpoint, let reason): "cannot connect to \(endpoint): \(Redaction.quoted(reason))"
            case .connectionRefused(let endpoint, let errors): "\(endpoint) refused the connection: \(Self.list(errors))"
            case .noAcknowledgement(let endpoint, let seconds): "\(endpoint) sent no connection_ack within \(seconds) s"
            case .gaveUp(let endpoint, let attempts, let reason): "gave up on \(endpoint) after \(attempts) failed connections (last: \(reason))"
            case .subscriptionRefused(let endpoint, let errors): "\(endpoint) refused the subscription: \(Self.list(errors))"
            case .notASubscription(let what): "not a subscription: \(what)"
            case .authorization(let error): "cannot authorize the real-time call: \(error.description)"
            case .sendFailed(let endpoint, let reason): "cannot send to \(endpoint): \(Redaction.quoted(reason))"
            case .subscriberBehind(let endpoint, let limit):
                "the subscriber fell more than \(limit) messages behind \(endpoint); the subscription was ended after the messages kept"
            }
        }

        package var isFinal: Bool {
            switch self {
            case .connectionRefused(_, let errors): errors.contains(where: \.isUnauthorized)
            case .subscriptionRefused, .notASubscription, .authorization, .gaveUp, .subscriberBehind: true
            case .connectFailed, .noAcknowledgement, .sendFailed: false
            }
        }

        private static func list(_ errors: [RealtimeServerError]) -> String {
            errors.isEmpty ? "no errors given" : errors.map(\.description).joined(separator: "; ")
        }
    }
}

extension RealtimeError.Kind {
    /// `Realtime.` and the case's name, fixed once published.
    package var code: ErrorCode {
        switch self {
        case .connectFailed: "Realtime.connectFailed"
        case .connectionRefused: "Realtime.connectionRefused"
        case .noAcknowledgement: "Realtime.noAcknowledgement"
        case .gaveUp: "Realtime.gaveUp"
        case .subscriptionRefused: "Realtime.subscriptionRefused"
        case .notASubscription: "Realtime.notASubscription"
        case .authorization: "Realtime.authorization"
        case .sendFailed: "Realtime.sendFailed"
        case .subscriberBehind: "Realtime.subscriberBehind"
        }
    }
}

extension RealtimeError {
    /// Whether waiting and connecting again cannot help.
    public var isFinal: Bool { kind.isFinal }
}
