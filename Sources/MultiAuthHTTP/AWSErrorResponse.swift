import MultiAuthCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The one reader of AWS error responses, in every protocol's form: the code from
/// `x-amzn-ErrorType`, a JSON `__type`, `code` or OAuth-style `error` (with any `namespace#`
/// prefix and `:` suffix removed), or an XML `<Code>`; the message from JSON
/// `message`/`Message`/`error_description` or XML `<Message>`, at most 300 characters.
public struct AWSErrorResponse: Sendable, Equatable {
    /// The error code (`ThrottlingException`, `NotAuthorizedException`, ...), if the body names one.
    public let code: String?
    /// The error message, if any.
    public let message: String?
    /// The body's OAuth `error` field, when it has one (it is also the code when nothing else names one).
    public let reason: String?

    /// Reads `response`.
    public init(_ response: ReceivedResponse) {
        let json = try? JSONDecoding.decode(JSONErrorBody.self, from: response.body.prefix(64 * 1024), what: "an error body")
        let xml = json == nil ? String(decoding: response.body.prefix(64 * 1024), as: UTF8.self) : ""
        let raw = response.header("x-amzn-ErrorType") ?? json?.__type ?? json?.code ?? json?.error ?? XMLText.value(of: "Code", in: xml)
        code = raw.map(Self.bareCode)
        reason = json?.error
        message = (json?.message ?? json?.Message ?? json?.error_description ?? XMLText.value(of: "Message", in: xml)).map { String($0.prefix(300)) }
    }

    /// `aws.protocoltests#ThrottlingException:http://…` → `ThrottlingException`.
    static func bareCode(_ raw: String) -> String {
        let afterHash = raw.split(separator: "#", omittingEmptySubsequences: false).last ?? Substring(raw)
        return String(afterHash.split(separator: ":", omittingEmptySubsequences: false).first ?? afterHash)
    }

    private struct JSONErrorBody: Decodable {
        let __type: String?
        let code: String?
        let message: String?
        let Message: String?
        let error: String?
        let error_description: String?
    }
}
