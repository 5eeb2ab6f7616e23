import Yams

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// API Gateway's usage plans as a file gives them (`{"usagePlans": [...]}`, JSON or YAML):
/// per-key throttling (a token bucket per key and route) and quotas (requests per day, week or
/// month), with the keys each plan covers named as the gateway names its API keys.
package struct UsagePlans: Sendable, Decodable {
    /// A plan.
    package struct Plan: Sendable, Decodable {
        /// The plan's name, for logs.
        package let name: String
        /// The plan-wide rate and burst.
        package let throttle: Throttle?
        /// Rates per route (`GET /pets`), replacing the plan's for that route.
        package let methodThrottles: [String: Throttle]?
        /// The quota.
        package let quota: Quota?
        /// The API keys' names.
        package let apiKeys: [String]
    }

    /// A token bucket: `rateLimit` requests a second on average, `burstLimit` at once.
    package struct Throttle: Sendable, Decodable, Equatable {
        /// Requests a second.
        package let rateLimit: Double
        /// The bucket's size.
        package let burstLimit: Int
    }

    /// Requests per period, UTC: `DAY` from midnight, `WEEK` from Monday, `MONTH` from the
    /// first; `offset` requests count as used in the first period.
    package struct Quota: Sendable, Decodable, Equatable {
        /// Requests per period.
        package let limit: Int
        /// `DAY`, `WEEK` or `MONTH`.
        package let period: String
        /// Requests already used in the first period.
        package let offset: Int?
    }

    /// The plans.
    package let usagePlans: [Plan]

    /// The plans in `bytes`, their keys checked against `knownKeys` (the names of the API
    /// keys the gateway accepts).
    /// - Throws: ``APIDefinitionError`` naming what is wrong: an unknown key, a key in two plans,
    ///   a bad period or rate, or a file that is not a usage-plan document.
    package static func load(_ bytes: [UInt8], name: String, knownKeys: Set<String>) throws(APIDefinitionError) -> UsagePlans {
        guard bytes.count <= 1 << 20 else { throw APIDefinitionError(.tooLarge(bytes: bytes.count, limit: 1 << 20)) }
        let plans: UsagePlans
        do {
            let first = bytes.first { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }
            plans = first == UInt8(ascii: "{") ? try JSONDecoder().decode(UsagePlans.self, from: Data(bytes)) : try YAMLDecoder().decode(UsagePlans.self, from: Data(bytes))
        } catch {
            throw APIDefinitionError(.unreadable("\(name): \(String(describing: error).prefix(300))"))
        }
        var seen: [String: String] = [:]
        for plan in plans.usagePlans {
            let place = "\(name): usage plan \(plan.name)"
            for key in plan.apiKeys {
                guard knownKeys.contains(key) else { throw .refused(place, "names API key \(key), which the gateway does not accept") }
                if let other = seen.updateValue(plan.name, forKey: key) { throw .refused(place, "API key \(key) is in plan \(other) too") }
            }
            for throttle in [plan.throttle].compactMap({ $0 }) + (plan.methodThrottles?.values.map { $0 } ?? []) {
                guard throttle.rateLimit > 0, throttle.burstLimit > 0 else { throw .refused(place, "throttle rateLimit and burstLimit must be above 0") }
            }
            if let quota = plan.quota {
                guard ["DAY", "WEEK", "MONTH"].contains(quota.period), quota.limit > 0, (0..<quota.limit).contains(quota.offset ?? 0) else {
                    throw .refused(place, "quota needs a limit above 0, a period of DAY, WEEK or MONTH and an offset from 0 to below the limit")
                }
            }
        }
        return plans
    }
}
