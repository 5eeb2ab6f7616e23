import MultiAuthAuthorization
import MultiAuthCore
import MultiAuthRealtime
import Synchronization
import Testing

/// The engine on frames a well-behaved peer never sends, with waits counted on a stepping clock.
@Suite(.timeLimit(.minutes(5))) struct ConnectionTests {
    static let dialect = AppSyncGraphQLDialect(apiURL: "http://127.0.0.1:9/graphql", mode: .apiKey, authorizer: NoAuthorizer())
    static let ack = #"{"type":"connection_ack","payload":{"connectionTimeoutMs":1000}}"#

    static func id(of frame: String) -> String? {
        guard case .object(let members)? = try? JSONValue.decode(frame), members["type"]?.stringValue == "start" else { return nil }
        return members["id"]?.stringValue
    }

    static func connection(_ server: ScriptedServer, _ clock: ManualClock) -> RealtimeConnection {
        RealtimeConnection(dialect: dialect, connector: server, clock: clock.clock, random: { 0 })
    }

    static func outcome(_ stream: AsyncThrowingStream<JSONValue, any Error>) async -> Result<[JSONValue], any Error> {
        var values: [JSONValue] = []
        do {
            for try await value in stream { values.append(value) }
            return .success(values)
        } catch { return .failure(error) }
    }

    @Test func aServerThatNeverAcknowledgesIsRetriedWithBackoffThenGivenUpOn() async throws {
        let server = ScriptedServer { _ in [] }
        let clock = ManualClock()
        let stream = await Self.connection(server, clock).subscribe("{}")
        let outcome = Task { await Self.outcome(stream) }
        let finished = Mutex(false)
        Task { _ = await outcome.value; finished.withLock { $0 = true } }
        try await clock.drive(step: .milliseconds(500)) { finished.withLock { $0 } }
        guard case .failure(let error) = await outcome.value, case .gaveUp(_, let attempts, let reason)? = (error as? RealtimeError)?.kind else {
            Issue.record("expected gaveUp")
            return
        }
        #expect(attempts == 10)
        #expect(reason.contains("no connection_ack within 15.0 s"))
        #expect(server.connections.withLock { $0 } == 10)
        // Nine waits between the ten connections, from 50 ms (random 0: half of each step), capped at 2.5 s.
        let backoffs = clock.slept.filter { $0 <= .seconds(5) }  // the rest are the 15 s acknowledgement watches
        #expect(backoffs == [.milliseconds(50), .milliseconds(100), .milliseconds(200), .milliseconds(400), .milliseconds(800),
                             .milliseconds(1600), .milliseconds(2500), .milliseconds(2500), .milliseconds(2500)])
    }

    /// A burst beyond the buffer of a subscriber that does not read: the subscriber gets every
    /// kept message in order, then one error naming the limit, and the server is told to stop.
    /// Before, the oldest messages were dropped one by one, a warning each, and the stream went on.
    @Test func aSubscriberTooFarBehindGetsWhatWasKeptThenOneError() async throws {
        let server = ScriptedServer { frame in
            if frame.contains("connection_init") { return [Self.ack] }
            guard let id = Self.id(of: frame) else { return [] }
            return [#"{"type":"start_ack","id":"\#(id)"}"#] + (1...20).map { #"{"type":"data","id":"\#(id)","payload":{"data":{"n":\#($0)}}}"# }
        }
        let connection = RealtimeConnection(
            dialect: Self.dialect, connector: server, settings: .init(bufferLimit: 5), clock: ManualClock().clock, random: { 0 })
        let stream = await connection.subscribe("{}")
        // Nothing is read until the engine has met the overflow and told the server to stop.
        for _ in 0..<2_000 where !server.sent.withLock({ $0.contains { $0.contains(#""stop""#) } }) {
            try await Task.sleep(for: .milliseconds(10))
        }
        var values: [Int64] = []
        do {
            for try await value in stream {
                guard case .object(let payload) = value, case .object(let data)? = payload["data"] else { continue }
                values.append(data["n"]?.integerValue ?? 0)
            }
            Issue.record("the stream ended without an error")
        } catch let error as RealtimeError {
            guard case .subscriberBehind(_, let limit) = error.kind else { throw error }
            #expect(limit == 5)
        }
        #expect(values == [1, 2, 3, 4, 5])
        #expect(server.sent.withLock { $0.contains { $0.contains(#""stop""#) } })
    }

    @Test func malformedAndUnknownFramesAreIgnoredAndDataStillArrives() async throws {
        let server = ScriptedServer { frame in
            if frame.contains("connection_init") { return [Self.ack, "{", "\u{1}", #"{"type":"mystery"}"#, "[1,2]"] }
            if let id = Self.id(of: frame) {
                return [#"{"type":"start_ack","id":"\#(id)"}"#, #"{"type":"data","id":"unknown-id","payload":{}}"#,
                        #"{"type":"data","id":"\#(id)","payload":{"data":{"n":1}}}"#, #"{"type":"complete","id":"\#(id)"}"#]
            }
            return []
        }
        let stream = await Self.connection(server, ManualClock()).subscribe("{}")
        let values = try await Self.outcome(stream).get()
        #expect(values == [.object(["data": .object(["n": .number(1)])])])
        #expect(server.connections.withLock { $0 } == 1)
    }

    @Test func aRefusedSubscriptionEndsWithTheServersErrorsAndIsNotStartedAgain() async throws {
        let server = ScriptedServer { frame in
            if frame.contains("connection_init") { return [Self.ack] }
            if let id = Self.id(of: frame) { return [#"{"type":"error","id":"\#(id)","payload":{"errors":[{"errorType":"UnauthorizedException","message":"Permission denied"}]}}"#] }
            return []
        }
        let stream = await Self.connection(server, ManualClock()).subscribe("{}")
        guard case .failure(let error) = await Self.outcome(stream), case .subscriptionRefused(_, let errors)? = (error as? RealtimeError)?.kind else {
            Issue.record("expected subscriptionRefused")
            return
        }
        #expect(errors == [RealtimeServerError(errorType: "UnauthorizedException", message: "Permission denied")])
        #expect(server.sent.withLock { $0 }.filter { $0.contains(#""type":"start""#) }.count == 1)
        #expect("\(error)".contains("refused the subscription: UnauthorizedException: Permission denied"))
    }

    @Test func anUnauthorizedConnectionErrorEndsEverySubscriptionAtOnce() async throws {
        let server = ScriptedServer { frame in
            frame.contains("connection_init")
                ? [#"{"type":"connection_error","payload":{"errors":[{"errorType":"UnauthorizedException","message":"You are not authorized to make this call.","errorCode":401}]}}"#]
                : []
        }
        let connection = Self.connection(server, ManualClock())
        // Both subscriptions are made before the refusal arrives, so they share one socket.
        server.hold()
        let streams = [await connection.subscribe("{}"), await connection.subscribe("{}")]
        server.release()
        for stream in streams {
            guard case .failure(let error) = await Self.outcome(stream), case .connectionRefused? = (error as? RealtimeError)?.kind else {
                Issue.record("expected connectionRefused")
                return
            }
        }
        #expect(server.connections.withLock { $0 } == 1)
        #expect(await connection.subscriptionCount == 0)
    }

    @Test func aConnectionSilentPastItsKeepAliveIsReplacedAndTheSubscriptionStartedAgain() async throws {
        let starts = Mutex(0)
        let server = ScriptedServer { frame in
            if frame.contains("connection_init") { return [Self.ack] }
            if let id = Self.id(of: frame) {
                let number = starts.withLock { $0 += 1; return $0 }
                // The first socket acknowledges, then goes silent; the second delivers.
                return number == 1 ? [#"{"type":"start_ack","id":"\#(id)"}"#] : [#"{"type":"data","id":"\#(id)","payload":{"data":{"second":true}}}"#]
            }
            return []
        }
        let clock = ManualClock()
        let stream = await Self.connection(server, clock).subscribe("{}")
        let first = Task { () -> JSONValue? in
            for try await value in stream { return value }
            return nil
        }
        let received = Mutex(false)
        Task { _ = try? await first.value; received.withLock { $0 = true } }
        // Within the 1 s keep-alive nothing happens; past it the socket is replaced.
        try await clock.drive(step: .milliseconds(100), limit: 9) { false }
        #expect(server.connections.withLock { $0 } == 1)
        try await clock.drive(step: .milliseconds(100)) { received.withLock { $0 } }
        #expect(try await first.value == .object(["data": .object(["second": .bool(true)])]))
        #expect(server.connections.withLock { $0 } == 2)
    }

    @Test func aServerThatAcknowledgesAndDropsAtOnceStillBacksOffAndIsGivenUpOn() async throws {
        let longAck = #"{"type":"connection_ack","payload":{"connectionTimeoutMs":60000}}"#  // watches far longer than any backoff
        let server = ScriptedServer { frame in frame.contains("connection_init") ? [longAck, ScriptedServer.close] : [] }
        let clock = ManualClock()
        let stream = await Self.connection(server, clock).subscribe("{}")
        let outcome = Task { await Self.outcome(stream) }
        let finished = Mutex(false)
        Task { _ = await outcome.value; finished.withLock { $0 = true } }
        try await clock.drive(step: .milliseconds(100)) { finished.withLock { $0 } }
        guard case .failure(let error) = await outcome.value, case .gaveUp(_, let attempts, _)? = (error as? RealtimeError)?.kind else {
            Issue.record("expected gaveUp")
            return
        }
        #expect(attempts == 10)
        #expect(clock.slept.filter { $0 <= .seconds(5) }.prefix(4) == [.milliseconds(50), .milliseconds(100), .milliseconds(200), .milliseconds(400)])
    }
}
