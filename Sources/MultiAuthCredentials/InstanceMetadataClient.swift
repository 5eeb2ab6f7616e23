import HTTPTypes
public import MultiAuthCore
public import MultiAuthHTTP
import Synchronization

/// GETs from the EC2 instance metadata service with an IMDSv2 session token.
///
/// - The token comes from `PUT latest/api/token` (TTL 6 hours) and is reused until a minute
///   before it expires, by the injected clock.
/// - Only a 403, 404 or 405 answer to that PUT means "this IMDS has no tokens": then GETs go
///   without one (IMDSv1), unless ``InstanceMetadataSettings/isV1Disabled``. A timeout or a
///   refused connection is not a reason to drop the token.
/// - A 401 on a GET renews the token once.
/// - Every request is bounded by ``InstanceMetadataSettings/timeout`` and tried
///   ``InstanceMetadataSettings/attempts`` times.
public final class InstanceMetadataClient: Sendable {
    /// The session token's lifetime asked for, in seconds (the most IMDS grants).
    public static let tokenTTL = 21_600
    /// The token is renewed this many seconds before its expiry.
    static let tokenMargin = 60.0

    /// The settings in use.
    public let settings: InstanceMetadataSettings
    private let http: any HTTPSender
    private let clock: TimeSource
    private let token = Mutex<SessionToken?>(nil)

    private enum SessionToken {
        case token(String, expiresAt: Double)
        case unsupported  // the PUT answered 403/404/405: IMDSv1
    }

    /// A client for `settings` sending through `http`; each request is bounded by the
    /// settings' timeout, whatever the sender's own.
    public init(settings: InstanceMetadataSettings, http: any HTTPSender, clock: TimeSource = .system) {
        self.settings = settings
        self.clock = clock
        self.http = http
    }

    /// The body of `latest/<path>` as text.
    /// - Throws: ``CredentialsError/notFound(_:)`` when IMDS is disabled or does not answer
    ///   the token request (nothing to find here); other ``CredentialsError`` values naming
    ///   the URL otherwise. `404` is `notFound` too.
    public func text(_ path: String) async throws(CredentialsError) -> String {
        guard !settings.isDisabled else { throw .notFound("instance metadata is disabled (AWS_EC2_METADATA_DISABLED)") }
        var renewed = false
        while true {
            let current = try await sessionToken()
            let response = try await send(.get, path, headers: current.map { [(Self.tokenHeader, $0)] } ?? [])
            switch response.status {
            case 200: return String(decoding: response.body, as: UTF8.self)
            case 401 where !renewed && current != nil:
                renewed = true
                token.withLock { $0 = nil }
            case 404: throw .notFound("instance metadata has no \(settings.endpoint)latest/\(path)")
            default: throw .serviceError(service: service, code: "HTTP \(response.status)", message: "GET latest/\(path) failed")
            }
        }
    }

    var service: String { "instance metadata (\(Redaction.url(settings.endpoint)))" }
    private static let tokenHeader = "x-aws-ec2-metadata-token"

    /// The token to send, or nil for IMDSv1.
    private func sessionToken() async throws(CredentialsError) -> String? {
        let now = clock.now()
        switch token.withLock({ $0 }) {
        case .token(let value, let expiresAt) where expiresAt - Self.tokenMargin > now: return value
        case .unsupported: return nil
        default: break
        }
        let fresh = try await fetchToken(at: now)
        token.withLock { $0 = fresh }
        if case .token(let value, _) = fresh { return value }
        return nil
    }

    private func fetchToken(at now: Double) async throws(CredentialsError) -> SessionToken {
        let response: ReceivedResponse
        do throws(CredentialsError) {
            response = try await send(.put, "api/token", headers: [("x-aws-ec2-metadata-token-ttl-seconds", String(Self.tokenTTL))])
        } catch {
            guard case .transport(_, let problem) = error.kind else { throw error }
            throw .notFound("\(service) did not answer the token request: \(problem)")
        }
        switch response.status {
        case 200:
            let value = String(decoding: response.body, as: UTF8.self)
            try checkWireSafe([("the IMDSv2 token", value)], source: service)
            let ttl = response.head.headerFields[HTTPField.Name("x-aws-ec2-metadata-token-ttl-seconds")!].flatMap(Double.init)
            return .token(value, expiresAt: now + (ttl ?? Double(Self.tokenTTL)))
        case 403, 404, 405:
            guard !settings.isV1Disabled else {
                throw .serviceError(
                    service: service, code: "HTTP \(response.status)",
                    message: "no IMDSv2 token was issued and IMDSv1 is disabled (AWS_EC2_METADATA_V1_DISABLED)")
            }
            return .unsupported
        default:
            throw .serviceError(service: service, code: "HTTP \(response.status)", message: "the IMDSv2 token request failed")
        }
    }

    /// `request` through the sender, given up after the settings' timeout (a host outside
    /// EC2 has no metadata service, and the chain must not wait on it).
    private func bounded(_ request: HTTPRequest) async throws(HTTPTransportError) -> ReceivedResponse {
        let http = http
        let outcome = await Deadline.run(for: settings.timeout) { () async -> Result<ReceivedResponse, HTTPTransportError> in
            do throws(HTTPTransportError) { return .success(try await http.send(request)) } catch { return .failure(error) }
        }
        guard let outcome else { throw .timedOut(host: request.authority ?? "") }
        return try outcome.get()
    }

    /// One request, tried `attempts` times while the transport fails or the answer is a 5xx,
    /// with ``MultiAuthCore/Backoff``'s waits between (from 100 ms).
    private func send(_ method: HTTPRequest.Method, _ path: String, headers: [(String, String)]) async throws(CredentialsError) -> ReceivedResponse {
        let request: HTTPRequest
        do { request = try HTTPRequest(method: method, wireURL: settings.endpoint + "latest/" + path, headerFields: HTTPFields(checking: headers)) } catch {
            throw .invalidSetting(source: "the instance metadata endpoint", problem: "\(Redaction.url(settings.endpoint)) is not a usable URL")
        }
        let retry = Backoff(base: .milliseconds(100), cap: .seconds(1), maxAttempts: settings.attempts)
        var failures = 0
        while true {
            let failure: CredentialsError
            do throws(HTTPTransportError) {
                let response = try await bounded(request)
                if response.status < 500 { return response }
                failure = .serviceError(service: service, code: "HTTP \(response.status)", message: "\(method) latest/\(path) failed")
            } catch {
                failure = .transport(service: service, problem: error.description)
            }
            failures += 1
            guard retry.allowsRetry(after: failures) else { throw failure }
            do { try await retry.wait(after: failures) } catch { throw failure }  // cancelled: no more attempts
        }
    }
}
