import HTTPTypes
import MultiAuthAuthorization
import MultiAuthCore
import MultiAuthHTTP
import MultiAuthTesting
import Synchronization
import Testing

/// `AuthorizedHTTPClient`'s retries against a scripted server: botocore's standard-mode
/// quota (500 to start, 5 a retry, 10 after a timeout, 1 back for a success) and the waits,
/// on a clock that records them instead of sleeping.
struct RetryQuotaTests {
    static let request = HTTPRequest(method: .get, scheme: "https", authority: "api.example.com", path: "/items")

    /// A clock whose sleeps return at once and are counted.
    final class CountingClock: Sendable {
        let sleeps = Mutex(0)
        var source: TimeSource {
            TimeSource(now: { 1_700_000_000 }, elapsed: { .zero }, sleep: { [self] _ in sleeps.withLock { $0 += 1 } })
        }
    }

    static func client(_ sender: ScriptedSender, _ clock: CountingClock) -> AuthorizedHTTPClient {
        AuthorizedHTTPClient(transport: sender, authorizer: NoAuthorizer(), retry: Backoff(maxAttempts: 3), clock: clock.source)
    }

    /// RFC 9110 §9.2.2: a POST that timed out or was reset may have run, so it is not sent
    /// again unless the caller says so; one whose connection was never made is.
    @Test func aPostIsNotSentAgainAfterATimeoutOrAReset() async throws {
        let post = HTTPRequest(method: .post, scheme: "https", authority: "api.example.com", path: "/graphql")
        for failure in [HTTPTransportError.timedOut(host: "api.example.com"), .connectionReset(host: "api.example.com", reason: "reset")] {
            let sender = ScriptedSender([.failure(failure), .answer(200, "ok")])
            await #expect(throws: RequestError.self) { _ = try await Self.client(sender, CountingClock()).send(post, body: .bytes(Array("{}".utf8))) }
            #expect(sender.sent.count == 1, "\(failure)")
            let optedIn = ScriptedSender([.failure(failure), .answer(200, "ok")])
            let client = AuthorizedHTTPClient(
                transport: optedIn, authorizer: NoAuthorizer(), retry: Backoff(maxAttempts: 3), clock: CountingClock().source, retriesNonIdempotent: true)
            #expect(try await client.send(post, body: .bytes(Array("{}".utf8))).response.status == 200 && optedIn.sent.count == 2)
        }
        let refused = ScriptedSender([.failure(.connectionFailed(host: "api.example.com", reason: "refused")), .answer(200, "ok")])
        #expect(try await Self.client(refused, CountingClock()).send(post, body: .bytes(Array("{}".utf8))).response.status == 200 && refused.sent.count == 2)
        let get = ScriptedSender([.failure(.timedOut(host: "api.example.com")), .answer(200, "ok")])
        #expect(try await Self.client(get, CountingClock()).send(Self.request).response.status == 200 && get.sent.count == 2)
    }

    @Test func aThrottledCallIsTriedThreeTimesThenAnswered() async throws {
        let sender = ScriptedSender([.answer(429, "{}"), .answer(503, ""), .answer(200, "ok")])
        let clock = CountingClock()
        let (response, _) = try await Self.client(sender, clock).send(Self.request)
        #expect(response.status == 200 && sender.sent.count == 3 && clock.sleeps.withLock { $0 } == 2)
    }

    /// 500 ÷ 5 = 100 retries: 50 calls of 3 attempts spend the quota, so the 51st is sent once.
    @Test func aSpentQuotaStopsRetrying() async throws {
        let sender = ScriptedSender([.answer(503, "")])
        let client = Self.client(sender, CountingClock())
        for _ in 1...50 { _ = try await client.send(Self.request) }
        #expect(sender.sent.count == 150)
        let (last, _) = try await client.send(Self.request)
        #expect(last.status == 503 && sender.sent.count == 151)
    }

    /// A success gives back what its retry took (5), which buys the next failing call one retry.
    @Test func aSuccessRefillsTheQuota() async throws {
        let sender = ScriptedSender(Array(repeating: .answer(503, ""), count: 150) + [.answer(503, ""), .answer(200, "ok")] + [.answer(503, "")])
        let client = Self.client(sender, CountingClock())
        for _ in 1...50 { _ = try await client.send(Self.request) }
        _ = try await client.send(Self.request)  // quota spent: one attempt (503), nothing given back
        #expect(sender.sent.count == 151)
        let (ok, _) = try await client.send(Self.request)  // a 200 at once: gives back 1
        #expect(ok.status == 200 && sender.sent.count == 152)
        _ = try await client.send(Self.request)  // 1 left: less than a retry's 5, so one attempt
        #expect(sender.sent.count == 153)
    }

    /// A retry after a timeout takes 10: 50 timed-out retries spend the quota.
    @Test func timeoutsCostDouble() async throws {
        let sender = ScriptedSender([.failure(.timedOut(host: "api.example.com"))])
        let client = Self.client(sender, CountingClock())
        for _ in 1...25 {
            await #expect(throws: RequestError.self) { try await client.send(Self.request) }
        }
        #expect(sender.sent.count == 75)
        await #expect(throws: RequestError.self) { try await client.send(Self.request) }
        #expect(sender.sent.count == 76)
    }
}
