import MultiAuthCore
import Synchronization
import Testing

/// The refresh engine under an injected clock: no test here sleeps.
@Suite(.timeLimit(.minutes(5))) struct ExpiringValueCacheTests {
    /// A clock the test sets.
    final class ManualClock: Sendable {
        private let seconds = Mutex<Double>(1_000)
        func set(_ value: Double) { seconds.withLock { $0 = value } }
        var source: TimeSource { TimeSource { self.seconds.withLock { $0 } } }
    }

    struct Down: Error, Equatable { let transient: Bool }

    /// Numbers its values; fails while `failing` is set; can hold refreshes until released.
    final class Source: Sendable {
        let calls = Mutex(0)
        let failing = Mutex<Down?>(nil)
        let gate = Gate()

        func next(lifetime: Double, now: Double) async throws(Down) -> Expiring<Int> {
            let number = calls.withLock { value in
                value += 1
                return value
            }
            await gate.pass()
            if let failure = failing.withLock({ $0 }) { throw failure }
            return Expiring(number, expiresAt: now + lifetime)
        }
    }

    /// Holds callers until opened (open by default).
    final class Gate: Sendable {
        private let state = Mutex<(open: Bool, waiting: [CheckedContinuation<Void, Never>], arrived: Int)>((true, [], 0))
        func close() { state.withLock { $0.open = false } }
        func open() {
            let waiting = state.withLock { state in
                state.open = true
                defer { state.waiting = [] }
                return state.waiting
            }
            for continuation in waiting { continuation.resume() }
        }
        var arrived: Int { state.withLock { $0.arrived } }
        func pass() async {
            await withCheckedContinuation { continuation in
                let proceed = state.withLock { state in
                    state.arrived += 1
                    if state.open { return true }
                    state.waiting.append(continuation)
                    return false
                }
                if proceed { continuation.resume() }
            }
        }
    }

    func makeCache(_ source: Source, _ clock: ManualClock, lifetime: Double = 3_600) -> ExpiringValueCache<Int, Down> {
        ExpiringValueCache(advisoryWindow: .seconds(900), mandatoryWindow: .seconds(600), clock: clock.source, keepsCurrent: { $0.transient }) {
            (_: Expiring<Int>?) async throws(Down) -> Expiring<Int> in
            try await source.next(lifetime: lifetime, now: clock.source.now())
        }
    }

    @Test func twoHundredConcurrentCallersCauseOneRefresh() async throws {
        let source = Source()
        let clock = ManualClock()
        let cache = makeCache(source, clock)
        source.gate.close()
        let values = await withTaskGroup(of: Int?.self) { group in
            for _ in 0..<200 { group.addTask { try? await cache.value() } }
            // Release the one refresh only once it is running; late callers find the value cached.
            while source.gate.arrived == 0 { await Task.yield() }
            source.gate.open()
            return await group.reduce(into: [Int?]()) { $0.append($1) }
        }
        #expect(values.count == 200 && values.allSatisfy { $0 == 1 })
        #expect(source.calls.withLock { $0 } == 1)
        #expect(cache.refreshCount == 1)
    }

    @Test func theWindowsDecideWhoWaits() async throws {
        let source = Source()
        let clock = ManualClock()
        let cache = makeCache(source, clock)
        #expect(try await cache.value() == 1)  // nothing cached: waits for the first value (expires at 4,600)
        clock.set(3_600)  // 1,000 s left: fresh
        #expect(try await cache.value() == 1)
        #expect(source.calls.withLock { $0 } == 1)
        clock.set(3_800)  // 800 s left: advisory window, the cached value at once
        source.gate.close()
        #expect(try await cache.value() == 1)
        while source.gate.arrived < 2 { await Task.yield() }  // the background refresh started
        source.gate.open()
        clock.set(4_100)  // 500 s left of the old value, but the refresh replaced it
        #expect(try await cache.value() == 2)
    }

    @Test func aTransientFailureWhileStillValidDoesNotFailCallers() async throws {
        let source = Source()
        let clock = ManualClock()
        let cache = makeCache(source, clock)
        #expect(try await cache.value() == 1)  // expires at 4,600
        clock.set(4_300)  // mandatory window: callers wait for the refresh
        source.failing.withLock { $0 = Down(transient: true) }
        #expect(try await cache.value() == 1)  // the refresh failed; the value is still valid
        source.failing.withLock { $0 = Down(transient: false) }
        await #expect(throws: Down(transient: false)) { try await cache.value() }  // not transient: the failure
        clock.set(4_600)  // expired
        source.failing.withLock { $0 = Down(transient: true) }
        await #expect(throws: Down(transient: true)) { try await cache.value() }
        source.failing.withLock { $0 = nil }
        #expect(try await cache.value() == 5)
    }

    @Test func aValueSavedAfterRefreshStaysCachedWhenTheSaveFails() async throws {
        let clock = ManualClock()
        let saves = Mutex(0)
        let cache = ExpiringValueCache<String, Down>(
            initial: Expiring("old", expiresAt: 1_010), advisoryWindow: .seconds(120), mandatoryWindow: .seconds(120), clock: clock.source,
            keepsCurrent: { _ in false },
            afterRefresh: { _ async throws(Down) in
                saves.withLock { $0 += 1 }
                throw Down(transient: false)
            }
        ) { (_: Expiring<String>?) async throws(Down) -> Expiring<String> in Expiring("rotated", expiresAt: 5_000) }
        await #expect(throws: Down(transient: false)) { try await cache.value() }
        #expect(cache.held?.value == "rotated")  // never lost to the failed save
        #expect(try await cache.value() == "rotated")
        #expect(saves.withLock { $0 } == 1 && cache.refreshCount == 1)
    }

    @Test func aValueWithoutExpiryIsNeverRefreshed() async throws {
        let clock = ManualClock()
        let cache = ExpiringValueCache<Int, Down>(initial: Expiring(7, expiresAt: nil), advisoryWindow: .seconds(900), mandatoryWindow: .seconds(600), clock: clock.source) {
            (_: Expiring<Int>?) async throws(Down) -> Expiring<Int> in Expiring(8, expiresAt: nil)
        }
        clock.set(1e12)
        #expect(try await cache.value() == 7)
        #expect(cache.refreshCount == 0)
    }
}
