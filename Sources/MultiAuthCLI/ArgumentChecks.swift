import ArgumentParser
import MultiAuthCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Strict checks for flags: numbers finite and inside a stated range, text safe for the wire,
/// or a usage error (exit 2) that names the flag and the rule.
package enum ArgumentChecks {
    package static func seconds(_ value: Double, _ flag: String, in range: ClosedRange<Double>) throws {
        guard value.isFinite, range.contains(value) else {
            throw ValidationError("\(flag) must be a number of seconds from \(format(range.lowerBound)) to \(format(range.upperBound))")
        }
    }

    package static func count(_ value: Int, _ flag: String, in range: ClosedRange<Int>) throws {
        guard range.contains(value) else { throw ValidationError("\(flag) must be from \(range.lowerBound) to \(range.upperBound)") }
    }

    /// A value that goes on the wire as typed (a region, a service name): no control character.
    package static func wireText(_ value: String?, _ flag: String) throws {
        guard let value, !WireText.isSafe(value) else { return }
        throw ValidationError("\(flag) contains a line break or a control character")
    }

    /// A file the process can read, when given.
    package static func readableFile(_ path: String?, _ flag: String) throws {
        guard let path, access(path, R_OK) != 0 else { return }
        throw ValidationError("\(flag) '\(path)' cannot be read: \(String(cString: strerror(errno)))")
    }

    private static func format(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }
}
