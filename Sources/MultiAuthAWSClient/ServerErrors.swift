import MultiAuthCore
package import MultiAuthHTTP
import MultiAuthSigV4

#if canImport(FoundationEssentials)
package import FoundationEssentials
#else
package import Foundation
#endif

/// Reading AWS error responses: the error code and clock skew.
package enum ServerErrors {
    package static let skewCodes: Set<String> = ["RequestTimeTooSkewed", "RequestExpired", "RequestInTheFuture"]

    /// The error code, read by the one AWS error decoder.
    package static func code(_ response: ReceivedResponse) -> String? { AWSErrorResponse(response).code }

    /// The server-minus-local offset when the response rejects the signing time.
    package static func skewOffset(_ response: ReceivedResponse, now: Double) -> Double? {
        guard response.status == 403 || response.status == 400 || response.status == 401 else { return nil }
        let text = String(decoding: response.body.prefix(4096), as: UTF8.self)
        let code = code(response) ?? ""
        let isSkew = skewCodes.contains(code)
            || (["InvalidSignatureException", "SignatureDoesNotMatch"].contains(code)
                && (text.contains("Signature expired") || text.contains("not yet current")))
        guard isSkew, let dateText = response.header("Date"), let serverDate = HTTPDate.parse(dateText) else { return nil }
        return serverDate.timeIntervalSince1970 - now
    }
}

/// The IMF-fixdate of RFC 9110 (`Sun, 06 Nov 1994 08:49:37 GMT`).
package enum HTTPDate {
    package static func parse(_ text: String) -> Date? {
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        let parts = text.split(separator: " ")
        guard parts.count == 6, let day = Int(parts[1]), let month = months.firstIndex(of: String(parts[2])),
            let year = Int(parts[3])
        else { return nil }
        let time = parts[4].split(separator: ":").compactMap { Int($0) }
        guard time.count == 3 else { return nil }
        let stamp = String(format4(year)) + two(month + 1) + two(day) + "T" + two(time[0]) + two(time[1]) + two(time[2]) + "Z"
        guard let date = try? SigningDate(parsing: stamp) else { return nil }
        return Date(timeIntervalSince1970: Double(date.secondsSince1970))
    }

    private static func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
    private static func format4(_ value: Int) -> String { String(repeating: "0", count: max(0, 4 - String(value).count)) + String(value) }
}

