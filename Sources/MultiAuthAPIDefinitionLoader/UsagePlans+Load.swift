package import MultiAuthAPIDefinition
import Yams

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension UsagePlans {
    /// The plans in `bytes`, their keys checked against `knownKeys` (the names of the API
    /// keys the gateway accepts).
    /// - Throws: ``APIDefinitionError`` naming what is wrong: an unknown key, a key in two plans,
    ///   a bad period or rate, or a file that is not a usage-plan document.
    package static func load(_ bytes: [UInt8], name: String, knownKeys: Set<String>) throws(APIDefinitionError) -> UsagePlans {
        guard bytes.count <= maxBytes else { throw APIDefinitionError(.tooLarge(bytes: bytes.count, limit: maxBytes)) }
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
