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

    /// The largest usage-plan file read.
    package static let maxBytes = 1 << 20
}
