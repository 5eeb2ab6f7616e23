package import HTTPTypes
import Metrics
import Synchronization

/// What the proxy and the gateway report through swift-metrics (a no-op until the process
/// bootstraps a metrics system): request durations and requests in flight, named as the
/// OpenTelemetry HTTP conventions name them, and the decisions each server makes. Every
/// label comes from a small fixed set (a method outside the standard ones is `_OTHER`), so a
/// client spraying paths, methods or credentials cannot grow the registry; no path, query,
/// key id, key, token or signature is ever a label.
package final class ServerMetrics: Sendable {
    /// What the server decides on each request.
    package enum Decision: String, Sendable {
        /// The gateway's verification: `multiauth_verifications_total`.
        case verification = "multiauth_verifications_total"
        /// The proxy's signing or authorizing: `multiauth_signatures_total`.
        case signature = "multiauth_signatures_total"
    }

    private let decision: Decision
    private let durations = Mutex<[String: Timer]>([:])
    private let active = Mutex<[String: Meter]>([:])
    private let decisions = Mutex<[String: Counter]>([:])

    /// Metrics for a server that makes `decision`s.
    package init(decision: Decision) {
        self.decision = decision
    }

    private static let standardMethods: Set<String> = ["GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH"]

    /// The standard methods keep their name; any other is `_OTHER` (OpenTelemetry's rule).
    static func methodLabel(_ method: HTTPRequest.Method) -> String {
        standardMethods.contains(method.rawValue) ? method.rawValue : "_OTHER"
    }

    /// A request began (`http_server_active_requests` up).
    package func requestStarted(_ method: HTTPRequest.Method) {
        activeMeter(Self.methodLabel(method)).increment()
    }

    /// A request ended after `seconds` with `status` (0: the client went away first).
    package func requestEnded(_ method: HTTPRequest.Method, status: Int, seconds: Double) {
        let method = Self.methodLabel(method)
        activeMeter(method).decrement()
        let key = "\(method) \(status)"
        let timer = durations.withLock { timers in
            if let timer = timers[key] { return timer }
            let timer = Timer(
                label: "http_server_request_duration_seconds",
                dimensions: [("http_request_method", method), ("http_response_status_code", String(status))], preferredDisplayUnit: .seconds)
            timers[key] = timer
            return timer
        }
        timer.recordNanoseconds(Int64(seconds * 1e9))
    }

    /// One decision in `mode` (`AWS_IAM`, `API_KEY`, `JWT`, `NONE`, …): `allowed` or `denied`
    /// for the gateway, `signed` or `failed` for the proxy.
    package func record(mode: String, passed: Bool) {
        let result = switch decision {
        case .verification: passed ? "allowed" : "denied"
        case .signature: passed ? "signed" : "failed"
        }
        let key = "\(mode) \(result)"
        let counter = decisions.withLock { counters in
            if let counter = counters[key] { return counter }
            let counter = Counter(label: decision.rawValue, dimensions: [("mode", mode), ("result", result)])
            counters[key] = counter
            return counter
        }
        counter.increment()
    }

    /// One decision of an API definition's route (its template, never the raw path): `allowed`,
    /// `denied`, `throttled` or `limit_exceeded` (`multiauth_api_decisions_total`).
    package func recordRoute(_ route: String, mode: String, result: String) {
        count("multiauth_api_decisions_total", [("route", route), ("mode", mode), ("result", result)])
    }

    /// A request authorizer's decision found in its cache, or asked for
    /// (`multiauth_authorizer_cache_total`, `result` `hit` or `miss`).
    package func recordAuthorizerCache(hit: Bool) {
        count("multiauth_authorizer_cache_total", [("result", hit ? "hit" : "miss")])
    }

    private func count(_ label: String, _ dimensions: [(String, String)]) {
        let key = label + dimensions.map { "\u{0}" + $0.1 }.joined()
        let counter = decisions.withLock { counters in
            if let counter = counters[key] { return counter }
            let counter = Counter(label: label, dimensions: dimensions)
            counters[key] = counter
            return counter
        }
        counter.increment()
    }

    private func activeMeter(_ method: String) -> Meter {
        active.withLock { meters in
            if let meter = meters[method] { return meter }
            let meter = Meter(label: "http_server_active_requests", dimensions: [("http_request_method", method)])
            meters[method] = meter
            return meter
        }
    }
}
