import HTTPTypes
package import Logging
package import MultiAuthAPIDefinition
package import MultiAuthCore
import MultiAuthInboundAuthorization
import MultiAuthNIOBodies
import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Usage plans as the gateway enforces them: a token bucket per API key and route (429 `Too
/// Many Requests`) and a quota per key and period (429 `Limit Exceeded`). A key in no plan is
/// refused (403), as API Gateway refuses a key outside every usage plan. Quota counts are
/// kept in `stateFile` (0600), written within a second of a change and when the gateway
/// stops, so they survive a restart; a state file that cannot be read stops the start rather
/// than being overwritten. Throttling is per gateway and starts full.
package final class UsageLimits: Sendable {
    struct Count: Codable, Equatable {
        var period: Double
        var used: Int
    }

    private struct State {
        var plans: [String: UsagePlans.Plan] = [:]
        /// Buckets by route, then by key.
        var buckets: [String: [String: (tokens: Double, last: Double)]] = [:]
        var counts: [String: Count] = [:]
        var dirty = false
        /// Each period kind's current start and end, worked out again only when `now` passes the end.
        var periods: [String: (start: Double, end: Double)] = [:]
    }

    /// Counts one request of a key in a period against a limit where every gateway of a fleet
    /// counts (PostgreSQL): true when it was within the limit.
    package typealias SharedCount = @Sendable (_ key: String, _ period: Double, _ offset: Int, _ limit: Int) async throws -> Bool

    /// What a request's usage check says: go on, stop, or ask the shared count first.
    enum Admission {
        case pass
        case refuse(InboundRejection)
        case later(@Sendable () async -> InboundRejection?)
    }

    private let state: Mutex<State>
    /// Held while the counts are written, so a last write at a stop waits for one under way.
    private let writing = Mutex(())
    /// The last write failed (logged once until one succeeds).
    private let failing = Mutex(false)
    let stateFile: String?
    let shared: SharedCount?
    let clock: TimeSource
    let logger: Logger

    /// Limits for `plans`, counts read from `stateFile` when it exists; with `shared`, quotas
    /// are counted there instead (exact across gateways; a count that cannot be made refuses
    /// the request, 503), and throttling stays per gateway.
    /// - Throws: ``ReverseProxyError/unreadableUsageState(path:reason:)`` when `stateFile`
    ///   exists and is not usage counts (unreadable, over 16 MiB, not this JSON), unless
    ///   `resetState`: then it is renamed `<stateFile>.unreadable-<seconds since 1970>`, kept
    ///   for whoever wants it, and counting starts from zero. Never overwritten unread.
    package init(
        _ plans: UsagePlans, stateFile: String?, resetState: Bool = false, shared: SharedCount? = nil, clock: TimeSource = .system,
        logger: Logger = .disabled
    ) throws(ReverseProxyError) {
        var initial = State()
        if let stateFile {
            let read = Self.readCounts(stateFile)
            initial.counts = read.counts
            if let reason = read.problem {
                guard resetState else { throw .unreadableUsageState(path: stateFile, reason: reason) }
                let kept = "\(stateFile).unreadable-\(Int(clock.now()))"
                guard rename(stateFile, kept) == 0 else { throw .unreadableUsageState(path: stateFile, reason: "\(reason), and it could not be renamed to \(kept)") }
                logger.warning("usage counts start from zero", metadata: ["file": "\(stateFile)", "kept": "\(kept)", "reason": "\(reason)"])
            }
        }
        state = Mutex(initial)
        self.stateFile = stateFile
        self.shared = shared
        self.clock = clock
        self.logger = logger
        update(plans)
    }

    /// The counts in `path` (none when there is no such file), or why it holds none.
    private static func readCounts(_ path: String) -> (counts: [String: Count], problem: String?) {
        switch BoundedFileRead.contents(atPath: path, limit: 16 << 20) {
        case .failure(let failure):
            if case .unreadable = failure.kind, access(path, F_OK) != 0 { return ([:], nil) }
            return ([:], failure.kind.description)
        case .success(let bytes):
            do { return (try JSONDecoding.decode([String: Count].self, from: bytes, what: "usage counts"), nil) } catch {
                return ([:], "holds no usage counts: \(error)")
            }
        }
    }

    /// New plans (a reload); counts and buckets are kept.
    package func update(_ plans: UsagePlans) {
        var byKey: [String: UsagePlans.Plan] = [:]
        for plan in plans.usagePlans { for key in plan.apiKeys { byKey[key] = plan } }
        state.withLock { $0.plans = byKey }
    }

    /// Counts one request of `key` on `route`, or says why it may not go.
    func admit(key: String, route: String) -> Admission {
        let now = clock.now()
        let shared = shared
        return state.withLock { state -> Admission in
            guard let plan = state.plans[key] else { return .refuse(.forbiddenKey) }
            if let throttle = plan.methodThrottles?[route] ?? plan.throttle,
                !Self.takeToken(from: &state.buckets[route, default: [:]][key], throttle, now: now) {
                return .refuse(Self.tooMany)
            }
            guard let quota = plan.quota else { return .pass }
            let period: Double
            if let known = state.periods[quota.period], now >= known.start, now < known.end {
                period = known.start
            } else {
                period = Self.periodStart(quota.period, now: now)
                state.periods[quota.period] = (period, Self.periodEnd(quota.period, start: period))
            }
            if let shared {
                return .later {
                    do { return try await shared(key, period, quota.offset ?? 0, quota.limit) ? nil : Self.limitExceeded } catch {
                        return InboundRejection(
                            status: .serviceUnavailable, errorType: "ServiceUnavailableException", message: "Service Unavailable",
                            reason: "the shared quota count failed: \(error)")
                    }
                }
            }
            guard Self.count(in: &state.counts[key], period: period, offset: quota.offset ?? 0, limit: quota.limit) else { return .refuse(Self.limitExceeded) }
            state.dirty = true
            return .pass
        }
    }

    /// Refills `bucket` (full when new) for the time since it was last used and takes a
    /// token from it; false when there was none. Changed in place: one look-up a request.
    private static func takeToken(from bucket: inout (tokens: Double, last: Double)?, _ throttle: UsagePlans.Throttle, now: Double) -> Bool {
        var filled = bucket ?? (Double(throttle.burstLimit), now)
        filled.tokens = min(Double(throttle.burstLimit), filled.tokens + max(0, now - filled.last) * throttle.rateLimit)
        filled.last = now
        let taken = filled.tokens >= 1
        if taken { filled.tokens -= 1 }
        bucket = filled
        return taken
    }

    /// Counts one request in `count` (starting at `offset` when new, at zero in a new
    /// period); false, counting nothing, when `limit` is reached.
    private static func count(in count: inout Count?, period: Double, offset: Int, limit: Int) -> Bool {
        var current = count ?? Count(period: period, used: offset)
        if current.period != period { current = Count(period: period, used: 0) }
        guard current.used < limit else { return false }
        current.used += 1
        count = current
        return true
    }

    /// Writes the counts when they changed since the last write. A write that fails is logged
    /// (once, until one succeeds again) and tried again at the next flush.
    package func flush() {
        guard let stateFile else { return }
        writing.withLock { _ in
            let counts: [String: Count]? = state.withLock { state in
                guard state.dirty else { return nil }
                state.dirty = false
                return state.counts
            }
            guard let counts else { return }
            do {
                try AtomicFileWrite.replace(path: stateFile, contents: Array(try JSONEncoder().encode(counts)))
                if failing.withLock({ failed in defer { failed = false }; return failed }) {
                    logger.notice("usage counts written again", metadata: ["file": "\(stateFile)"])
                }
            } catch {
                state.withLock { $0.dirty = true }
                if !failing.withLock({ failed in defer { failed = true }; return failed }) {
                    logger.error("usage counts could not be written; trying again each second", metadata: ["file": "\(stateFile)", "error": "\(error)"])
                }
            }
        }
    }

    /// Flushes every second (off the cooperative pool) until the task is cancelled.
    package func keepWritten() async {
        while !Task.isCancelled {
            try? await Task.sleep(for: .seconds(1))
            await runOnThreadPool { Result<Void, Never>.success(self.flush()) }
        }
    }

    /// The start of the period `now` falls in, UTC: midnight, Monday's midnight, or the first of the month.
    static func periodStart(_ period: String, now: Double) -> Double {
        let day = (now / 86_400).rounded(.down)
        switch period {
        case "WEEK": return (day - (day + 3).truncatingRemainder(dividingBy: 7)) * 86_400
        case "MONTH":
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
            let parts = calendar.dateComponents([.year, .month], from: Date(timeIntervalSince1970: now))
            return calendar.date(from: parts)?.timeIntervalSince1970 ?? day * 86_400
        default: return day * 86_400
        }
    }

    /// The start of the period after the one starting at `start`.
    static func periodEnd(_ period: String, start: Double) -> Double {
        switch period {
        case "WEEK": return start + 7 * 86_400
        case "MONTH": return periodStart("MONTH", now: start + 32 * 86_400)
        default: return start + 86_400
        }
    }

    static let tooMany = InboundRejection(status: .tooManyRequests, errorType: "TooManyRequestsException", message: "Too Many Requests", reason: "throttled")
    static let limitExceeded = InboundRejection(status: .tooManyRequests, errorType: "LimitExceededException", message: "Limit Exceeded", reason: "quota used up")
}
