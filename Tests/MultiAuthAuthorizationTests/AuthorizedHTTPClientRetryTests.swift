import HTTPTypes
import MultiAuthAWSClient
import MultiAuthAuthorization
import MultiAuthCore
import MultiAuthHTTP
import MultiAuthTesting
import Synchronization
import Testing

/// `AuthorizedHTTPClient` follows its `RetryStrategy` (whose rules `RetryStrategyTests`
/// states): against a scripted server, on a clock that records sleeps instead of sleeping.
struct AuthorizedHTTPClientRetryTests {
    static let request = HTTPRequest(method: .get, scheme: "https", authority: "api.example.com", path: "/items")
    static let post = HTTPRequest(method: .post, scheme: "https", authority: "api.example.com", path: "/graphql")

    /// A clock whose sleeps return at once and are counted.
    final class CountingClock: Sendable {
        let sleeps = Mutex(0)
        var source: TimeSource {
            TimeSource(now: { 1_700_000_000 }, elapsed: { .zero }, sleep: { [self] _ in sleeps.withLock { $0 += 1 } })
        }
    }

    static func client(_ sender: ScriptedSender, _ clock: CountingClock = CountingClock(), retry: RetryStrategy = .httpStandard) -> AuthorizedHTTPClient {
        AuthorizedHTTPClient(transport: sender, authorizer: NoAuthorizer(), retry: retry, clock: clock.source)
    }

    @Test func aThrottledCallIsTriedThreeTimesThenAnswered() async throws {
        let sender = ScriptedSender([.answer(429, "{}"), .answer(503, ""), .answer(200, "ok")])
        let clock = CountingClock()
        let (response, _) = try await Self.client(sender, clock).send(Self.request)
        #expect(response.status == 200 && sender.sent.count == 3 && clock.sleeps.withLock { $0 } == 2)
    }

    /// By default a POST that timed out is not sent again; a strategy that opts in sends it.
    @Test func theStrategyDecidesWhetherAPostIsSentAgain() async throws {
        let body = OutgoingBody.bytes(Array("{}".utf8))
        let sender = ScriptedSender([.failure(.timedOut(host: "api.example.com")), .answer(200, "ok")])
        await #expect(throws: RequestError.self) { _ = try await Self.client(sender).send(Self.post, body: body) }
        #expect(sender.sent.count == 1)
        var optIn = RetryStrategy.httpStandard
        optIn.retriesNonIdempotent = true
        let optedIn = ScriptedSender([.failure(.timedOut(host: "api.example.com")), .answer(200, "ok")])
        #expect(try await Self.client(optedIn, retry: optIn).send(Self.post, body: body).response.status == 200 && optedIn.sent.count == 2)
    }

    /// One client's calls share one quota: 50 calls of 3 attempts spend it, so the 51st is
    /// sent once.
    @Test func theCallsOfOneClientShareTheQuota() async throws {
        let sender = ScriptedSender([.answer(503, "")])
        let client = Self.client(sender)
        for _ in 1...50 { _ = try await client.send(Self.request) }
        #expect(sender.sent.count == 150)
        let (last, _) = try await client.send(Self.request)
        #expect(last.status == 503 && sender.sent.count == 151)
    }

    /// Cancelled during a retry's wait: the call ends with `HTTPTransport.cancelled`, whose
    /// cause is a `CancellationError`, and nothing more is sent.
    @Test func cancellationDuringAWaitEndsTheCall() async throws {
        let sender = ScriptedSender([.answer(503, "")])
        let waiting = TimeSource(now: { 1_700_000_000 }, elapsed: { .zero }, sleep: { _ in throw CancellationError() })
        let client = AuthorizedHTTPClient(transport: sender, authorizer: NoAuthorizer(), clock: waiting)
        let error = await #expect(throws: RequestError.self) { try await client.send(Self.request) }
        #expect(error?.code == "HTTPTransport.cancelled" && error?.cause(as: CancellationError.self) != nil && sender.sent.count == 1)
    }
}
