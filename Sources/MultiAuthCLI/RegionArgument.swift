import ArgumentParser
import MultiAuthCore

/// Parses a `--region` value: a region name (``RegionName``), or a usage error that names the
/// flag and quotes the value with control characters escaped.
package func regionArgument(_ value: String) throws -> String {
    guard RegionName.isValid(value) else { throw ValidationError(InvalidRegionError(source: "--region", value: value).problem) }
    return value
}
