import MultiAuthCore
import Synchronization

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// The signing time in SigV4's two forms: `YYYYMMDDTHHMMSSZ` and the scope date `YYYYMMDD`.
public struct SigningDate: Sendable, Equatable, CustomStringConvertible {
    /// The full timestamp, `YYYYMMDDTHHMMSSZ` (16 ASCII bytes).
    public let amzDate: String
    /// Seconds since 1970-01-01T00:00:00Z.
    public let secondsSince1970: Int64

    /// The scope date `YYYYMMDD`: the first eight bytes of ``amzDate``, made when asked for
    /// (a small string, no allocation), so copying a date copies one string, not two.
    public var scopeDate: String { String(decoding: amzDate.utf8.prefix(8), as: UTF8.self) }

    public var description: String { amzDate }

    /// The signing time for `date`, truncated to whole seconds (UTC).
    public init(_ date: Date) {
        self.init(secondsSince1970: Int64(date.timeIntervalSince1970.rounded(.down)))
    }

    /// The current time. A busy signer asks many times a second, so the formatted value of
    /// the current second is kept and reused until the second changes.
    public static func now() -> SigningDate {
        let seconds = Int64(TimeSource.system.now().rounded(.down))
        if let cached = lastNow.withLock({ $0 }), cached.secondsSince1970 == seconds { return cached }
        let fresh = SigningDate(secondsSince1970: seconds)
        lastNow.withLock { $0 = fresh }
        return fresh
    }

    private static let lastNow = Mutex<SigningDate?>(nil)

    /// The signing time for a Unix timestamp.
    public init(secondsSince1970 seconds: Int64) {
        secondsSince1970 = seconds
        amzDate = Self.format(seconds)
    }

    /// Parses `YYYYMMDDTHHMMSSZ`, or ISO 8601 `YYYY-MM-DDTHH:MM:SSZ` as in aws-c-auth's `context.json`.
    /// - Throws: ``SigningError/invalidDate(_:)`` for anything else or an impossible date.
    public init(parsing text: String) throws(SigningError) {
        let compact = text.utf8.count == 20 ? Self.compactISO8601(text) : text
        guard let seconds = compact.withUTF8InPlace(Self.parseCompact) else { throw .invalidDate(text) }
        secondsSince1970 = seconds
        // The validated compact text is already the canonical form: keep it rather than format again.
        amzDate = compact
    }

    /// Writes the scope date, the first eight bytes of ``amzDate``.
    func writeScopeDate(to output: inout ByteWriter) {
        amzDate.withUTF8InPlace { output.write(UnsafeBufferPointer(rebasing: $0.prefix(8))) }
    }

    /// Seconds since 1970 of a valid `YYYYMMDDTHHMMSSZ`; nil otherwise.
    private static func parseCompact(_ bytes: UnsafeBufferPointer<UInt8>) -> Int64? {
        guard bytes.count == 16, bytes[8] == UInt8(ascii: "T"), bytes[15] == UInt8(ascii: "Z"),
            let year = number(bytes[0..<4]), let month = number(bytes[4..<6]),
            let day = number(bytes[6..<8]), let hour = number(bytes[9..<11]),
            let minute = number(bytes[11..<13]), let second = number(bytes[13..<15]),
            (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day),
            hour < 24, minute < 60, second < 60
        else { return nil }
        let days = CivilCalendar.daysSince1970(year: year, month: month, day: day)
        let seconds = days * 86_400 + Int64(hour * 3600 + minute * 60 + second)
        return seconds
    }

    private static func compactISO8601(_ text: String) -> String {
        let bytes = Array(text.utf8)
        guard bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
            bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":")
        else { return text }
        return String(decoding: bytes.enumerated().filter { ![4, 7, 13, 16].contains($0.offset) }.map(\.element), as: UTF8.self)
    }

    private static func number(_ digits: Slice<UnsafeBufferPointer<UInt8>>) -> Int? {
        var value = 0
        for digit in digits {
            guard digit >= UInt8(ascii: "0"), digit <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int(digit - UInt8(ascii: "0"))
        }
        return value
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    private static func format(_ seconds: Int64) -> String {
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = Int(seconds - days * 86_400)
        let (year, month, day) = CivilCalendar.civil(fromDaysSince1970: days)
        let fields = [(year, 4), (month, 2), (day, 2), (-1, 1), (secondOfDay / 3600, 2),
                      (secondOfDay / 60 % 60, 2), (secondOfDay % 60, 2), (-2, 1)]
        return String(unsafeUninitializedCapacity: 16) { buffer in
            var index = 0
            for (value, width) in fields {
                switch value {
                case -1: buffer[index] = UInt8(ascii: "T")
                case -2: buffer[index] = UInt8(ascii: "Z")
                default:
                    var rest = value
                    for position in stride(from: width - 1, through: 0, by: -1) {
                        buffer[index + position] = UInt8(ascii: "0") + UInt8(rest % 10)
                        rest /= 10
                    }
                }
                index += width
            }
            return 16
        }
    }
}
