#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// UTC times as AWS writes them: `2026-11-26T16:04:54Z`, or with milliseconds
/// (`2026-11-26T16:04:54.123Z`) for logs. The one formatter of the package, without Foundation.
package enum ISOTime {
    /// `seconds` since 1970 as ISO 8601 UTC, with milliseconds when `milliseconds` is true.
    package static func text(_ seconds: Double, milliseconds: Bool = false) -> String {
        let whole = seconds.rounded(.down)
        var time = time_t(whole)
        var parts = tm()
        gmtime_r(&time, &parts)
        func pad(_ value: Int32, _ width: Int = 2) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        let base = "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1))-\(pad(parts.tm_mday))T\(pad(parts.tm_hour)):\(pad(parts.tm_min)):\(pad(parts.tm_sec))"
        guard milliseconds else { return base + "Z" }
        return base + "." + pad(Int32(min(999, (seconds - whole) * 1000)), 3) + "Z"
    }
}
