#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The one clock MultiAuth reads: wall-clock seconds since 1970. Everything that compares
/// against expiry times or signs with a date takes one, so tests drive time instead of
/// sleeping.
public struct TimeSource: Sendable {
    @usableFromInline let read: @Sendable () -> Double

    /// A time source that calls `now` each time.
    public init(_ now: @escaping @Sendable () -> Double) { read = now }

    /// Seconds since 1970.
    @inlinable
    public func now() -> Double { read() }

    /// The system's real-time clock.
    public static let system = TimeSource {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }
}

