import ArgumentParser

/// Strict checks for numeric flags: finite, inside a stated range, or a usage error (exit 2)
/// that names the flag and the range.
enum NumberArguments {
    static func seconds(_ value: Double, _ flag: String, in range: ClosedRange<Double>) throws {
        guard value.isFinite, range.contains(value) else {
            throw ValidationError("\(flag) must be a number of seconds from \(format(range.lowerBound)) to \(format(range.upperBound))")
        }
    }

    static func count(_ value: Int, _ flag: String, in range: ClosedRange<Int>) throws {
        guard range.contains(value) else { throw ValidationError("\(flag) must be from \(range.lowerBound) to \(range.upperBound)") }
    }

    private static func format(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }
}
