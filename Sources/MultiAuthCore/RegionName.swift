/// The one check for an AWS region name, wherever it comes from (a flag, the environment, a
/// profile, an SSO session, awsconfiguration.json, instance metadata). A region becomes part
/// of hostnames (`sts.REGION.amazonaws.com`), so a value such as `x@127.0.0.1:19002#` would
/// send calls, and the secrets in them, to another host.
public enum RegionName {
    /// True when `region` matches botocore's rule, `^[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?$`:
    /// 1 to 63 letters, digits and hyphens, starting and ending with a letter or digit.
    public static func isValid(_ region: String) -> Bool {
        let bytes = region.utf8
        guard (1...63).contains(bytes.count), let first = bytes.first, let last = bytes.last else { return false }
        return isLetterOrDigit(first) && isLetterOrDigit(last) && bytes.allSatisfy { isLetterOrDigit($0) || $0 == UInt8(ascii: "-") }
    }

    /// `region` itself when it is valid.
    /// - Parameter source: where the value came from (`AWS_REGION`, `--region`, `profile 'dev'`),
    ///   named in the error.
    /// - Throws: ``InvalidRegionError`` otherwise.
    @discardableResult
    public static func validated(_ region: String, source: String) throws(InvalidRegionError) -> String {
        guard isValid(region) else { throw InvalidRegionError(source: source, value: region) }
        return region
    }

    private static func isLetterOrDigit(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        default: false
        }
    }
}

/// A region name that is not one: its message names the source and quotes the value with
/// control characters escaped.
public struct InvalidRegionError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Where the value came from.
    public let source: String
    /// The value as given.
    public let value: String

    /// Creates the error.
    public init(source: String, value: String) {
        self.source = source
        self.value = value
    }

    /// What is wrong, without the source.
    public var problem: String {
        "'\(Redaction.quoted(value, limit: 80))' is not a region name (letters, digits and hyphens, at most 63)"
    }

    public var description: String { "\(source): \(problem)" }
}

extension InvalidRegionError: CodedError {
    /// `Region.invalid`.
    public var code: ErrorCode { "Region.invalid" }
}
