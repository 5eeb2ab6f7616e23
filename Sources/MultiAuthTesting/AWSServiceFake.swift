public import HTTPTypes
public import MultiAuthCore
public import MultiAuthHTTP
import Synchronization

/// An AWS service in the test's own process: an ``MultiAuthHTTP/HTTPSender`` that reads each
/// request as the service's protocol frames it (the query protocol's `Action`, JSON 1.0/1.1's
/// `X-Amz-Target`, REST-JSON's method and path), answers what the test set for that
/// operation, and fails on cue in that protocol's own error form: throttling, a 500, a
/// signing-time refusal whose `Date` is an hour ahead, a body that is not the protocol's, a
/// dropped connection. It answers as `scripts/peers/fault_server.py` does, which the retry
/// parity suite checks against botocore.
public final class AWSServiceFake: HTTPSender {
    /// How the service frames operations and errors.
    public enum Wire: Sendable {
        /// Form-encoded `Action=` requests, XML answers (STS).
        case query
        /// `X-Amz-Target: Prefix.Operation`, JSON answers with `__type` (Cognito, KMS, SSM, Secrets Manager).
        case json
        /// An operation per method and path, JSON answers, the code in `x-amzn-ErrorType` (SSO).
        case restJSON
    }

    /// A failure the fake answers with instead of the operation's answer.
    public enum Fault: Sendable, Equatable {
        /// The service's throttling code (`Throttling`, `ThrottlingException`, or 429 `TooManyRequestsException`).
        case throttle
        /// 500 `InternalFailure`.
        case serverError
        /// A signature refused as expired, with the service's `Date` an hour ahead of the test's clock.
        case skewedClock
        /// 200 with a body the protocol cannot parse.
        case garbage
        /// The connection closed before any answer.
        case reset
        /// A refusal with the service's error `code` (`ResourceNotFoundException`,
        /// `IncorrectKeyException`, ...) and HTTP 400, in the protocol's error form.
        case refuse(code: String, message: String)
    }

    private struct State {
        var answers: [String: String] = [:]
        var faults: [String: [Fault]] = [:]
        var attempts: [String: Int] = [:]
        var sent: [ScriptedSender.Sent] = []
    }

    /// The service's protocol.
    public let wire: Wire
    private let clock: TimeSource
    private let state = Mutex(State())

    /// A service speaking `wire`, whose `Date` header reads `clock`.
    public init(wire: Wire, clock: TimeSource = .system) {
        self.wire = wire
        self.clock = clock
    }

    /// Answers `operation` (`AssumeRole`; `GenerateDataKey`; `GET /federation/credentials`
    /// for REST-JSON) with `body`: XML for the query protocol, JSON otherwise.
    public func answer(_ operation: String, with body: String) { state.withLock { $0.answers[operation] = body } }

    /// The next requests for `operation` get `faults`, in order, before its answer.
    public func script(_ operation: String, _ faults: [Fault]) { state.withLock { $0.faults[operation] = faults } }

    /// How many requests `operation` has had.
    public func attempts(_ operation: String) -> Int { state.withLock { $0.attempts[operation, default: 0] } }

    /// Every request, in order.
    public var sent: [ScriptedSender.Sent] { state.withLock { $0.sent } }

    public func send(_ request: HTTPRequest, body: OutgoingBody, responseBody: ResponseDestination) async throws(HTTPTransportError) -> ReceivedResponse {
        let bytes: [UInt8] = if case .bytes(let bytes) = body { bytes } else { [] }
        let operation = operationName(request, bytes)
        let (fault, answer) = state.withLock { state -> (Fault?, String?) in
            state.sent.append(ScriptedSender.Sent(request: request, body: bytes))
            state.attempts[operation, default: 0] += 1
            let fault = state.faults[operation]?.isEmpty == false ? state.faults[operation]?.removeFirst() : nil
            return (fault, state.answers[operation])
        }
        let host = request.authority ?? ""
        switch fault {
        case .reset?: throw .connectionReset(host: host, reason: "the fake service closed the connection")
        case .garbage?: return Self.response(200, "this is not the protocol's answer {", contentType: "application/json")
        case let fault?: return failure(fault)
        case nil:
            guard let answer else { return failure(code: "UnknownOperationException", status: 400, message: "no answer set for \(operation)") }
            return Self.response(200, answer, contentType: wire == .query ? "text/xml" : wire == .json ? "application/x-amz-json-1.1" : "application/json")
        }
    }

    private func operationName(_ request: HTTPRequest, _ body: [UInt8]) -> String {
        switch wire {
        case .query:
            let form = String(decoding: body, as: UTF8.self)
            let action = form.split(separator: "&").first { $0.hasPrefix("Action=") }
            return action.map { String($0.dropFirst("Action=".count)) } ?? ""
        case .json:
            let target = request.headerFields[HTTPField.Name("X-Amz-Target")!] ?? ""
            return String(target.split(separator: ".").last ?? "")
        case .restJSON:
            let path = (request.path ?? "").split(separator: "?", maxSplits: 1).first.map(String.init) ?? ""
            return "\(request.method.rawValue) \(path)"
        }
    }

    private func failure(_ fault: Fault) -> ReceivedResponse {
        let expired = "Signature expired: 20261127T000000Z is now earlier than 20261127T010000Z (20261127T011500Z - 15 min.)"
        switch (fault, wire) {
        case (.refuse(let code, let message), _): return failure(code: code, status: 400, message: message)
        case (.throttle, .query): return failure(code: "Throttling", status: 400, message: "Rate exceeded")
        case (.throttle, .json): return failure(code: "ThrottlingException", status: 400, message: "Rate exceeded")
        case (.throttle, .restJSON): return failure(code: "TooManyRequestsException", status: 429, message: "Rate exceeded")
        case (.skewedClock, .query): return failure(code: "SignatureDoesNotMatch", status: 403, message: expired, dateAhead: 3600)
        case (.skewedClock, _): return failure(code: "InvalidSignatureException", status: 400, message: expired, dateAhead: 3600)
        default: return failure(code: "InternalFailure", status: 500, message: "We encountered an internal error")
        }
    }

    private func failure(code: String, status: Int, message: String, dateAhead: Double? = nil) -> ReceivedResponse {
        var response: ReceivedResponse
        switch wire {
        case .query:
            let xml = "<ErrorResponse><Error><Type>Sender</Type><Code>\(code)</Code><Message>\(message)</Message></Error>"
                + "<RequestId>fake-request</RequestId></ErrorResponse>"
            response = Self.response(status, xml, contentType: "text/xml")
        case .json:
            response = Self.response(status, JSONValue.object(["__type": .string(code), "message": .string(message)]).description, contentType: "application/x-amz-json-1.1")
            response.head.headerFields[HTTPField.Name("x-amzn-RequestId")!] = "fake-request"
        case .restJSON:
            response = Self.response(status, JSONValue.object(["message": .string(message)]).description, contentType: "application/json")
            response.head.headerFields[HTTPField.Name("x-amzn-ErrorType")!] = code
        }
        if let dateAhead { response.head.headerFields[.date] = Self.httpDate(clock.now() + dateAhead) }
        return response
    }

    private static func response(_ status: Int, _ body: String, contentType: String) -> ReceivedResponse {
        ReceivedResponse(head: HTTPResponse(status: .init(code: status), headerFields: [.contentType: contentType]), body: Array(body.utf8))
    }

    /// `seconds` since 1970 as an HTTP date (RFC 9110's IMF-fixdate), by the civil calendar.
    public static func httpDate(_ seconds: Double) -> String {
        let total = Int64(seconds.rounded(.down))
        let days = total >= 0 ? total / 86_400 : (total - 86_399) / 86_400
        let time = total - days * 86_400
        let (year, month, day) = CivilCalendar.civil(fromDaysSince1970: days)
        let weekdays = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let weekday = weekdays[Int(((days % 7) + 7) % 7)]
        return "\(weekday), \(two(Int64(day))) \(months[month - 1]) \(year) \(two(time / 3600)):\(two(time / 60 % 60)):\(two(time % 60)) GMT"
    }
}
