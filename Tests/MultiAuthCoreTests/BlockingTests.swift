import Dispatch
import MultiAuthCore
import Synchronization
import Testing

/// `runBlocking` must not starve: with many of its calls blocked (hung servers, locks held
/// elsewhere), the next call still gets a thread. On the global concurrent queue it waited for
/// one of them to finish (libdispatch keeps about one thread per core there).
@Suite(.timeLimit(.minutes(5))) struct BlockingTests {
    final class Started: Sendable {
        let count = Atomic<Int>(0)
    }

    @Test func callsBlockedByTheDozenDoNotStarveTheNext() async throws {
        let gate = DispatchSemaphore(value: 0)
        let blocked = 32
        let started = Started()
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<blocked {
                group.addTask {
                    await runBlocking { () -> Result<Void, Never> in
                        started.count.add(1, ordering: .relaxed)
                        gate.wait()
                        return .success(())
                    }
                }
            }
            // Every blocked call gets a thread of its own (waited for, at most 20 s: on the
            // global queue only about one per core ever started), and one more call still runs
            // while they all hold theirs.
            for _ in 0..<2_000 where started.count.load(ordering: .relaxed) < blocked { try? await Task.sleep(for: .milliseconds(10)) }
            #expect(started.count.load(ordering: .relaxed) == blocked)
            if started.count.load(ordering: .relaxed) == blocked {
                #expect(await runBlocking { () -> Result<Int, Never> in .success(42) } == 42)
            }
            for _ in 0..<blocked { gate.signal() }
        }
    }

    /// Under a flood of blocked calls the pool's threads stay at its limit; the calls past it
    /// wait their turn and all finish once the blocked ones are released.
    @Test func threadsStayBoundedUnderAFlood() async throws {
        let pool = BlockingPool(limit: 8)
        let gate = DispatchSemaphore(value: 0)
        let started = Started()
        let finished = Started()
        for _ in 0..<100 {
            pool.submit {
                started.count.add(1, ordering: .relaxed)
                gate.wait()
                finished.count.add(1, ordering: .relaxed)
            }
        }
        for _ in 0..<2_000 where started.count.load(ordering: .relaxed) < 8 { try await Task.sleep(for: .milliseconds(10)) }
        #expect(started.count.load(ordering: .relaxed) == 8)
        #expect(pool.threadCount == 8)
        for _ in 0..<100 { gate.signal() }
        for _ in 0..<2_000 where finished.count.load(ordering: .relaxed) < 100 { try await Task.sleep(for: .milliseconds(10)) }
        #expect(finished.count.load(ordering: .relaxed) == 100)
        #expect(pool.threadCount == 8)
    }
}
