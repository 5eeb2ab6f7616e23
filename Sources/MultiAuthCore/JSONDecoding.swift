#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A JSON text that is not what was expected: what it was, and where decoding stopped. It
/// never holds a value from the text (which may be a secret), only member names.
public struct JSONDecodingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What was read, as "the container endpoint's answer".
    public let what: String
    /// Where decoding stopped and why, as `no "AccessKeyId"` or `"Expiration" is not a string`.
    public let problem: String

    /// "WHAT is not the JSON expected: PROBLEM".
    public var description: String { "\(what) is not the JSON expected: \(problem)" }
}

extension JSONDecodingError: CodedError {
    /// `JSON.notAsExpected`.
    public var code: ErrorCode { "JSON.notAsExpected" }
}

/// The one way JSON is decoded here.
package enum JSONDecoding {
    /// `bytes` decoded as `type` (with `snakeCaseKeys`, `a_b` members fill `aB` properties);
    /// `what` names them for the error.
    package static func decode<T: Decodable>(
        _ type: T.Type, from bytes: some Sequence<UInt8>, what: @autoclosure () -> String, snakeCaseKeys: Bool = false
    ) throws(JSONDecodingError) -> T {
        let decoder = JSONDecoder()
        if snakeCaseKeys { decoder.keyDecodingStrategy = .convertFromSnakeCase }
        do {
            return try decoder.decode(type, from: Data(bytes))
        } catch let error as DecodingError {
            throw JSONDecodingError(what: what(), problem: problem(error))
        } catch {
            throw JSONDecodingError(what: what(), problem: "not valid JSON")
        }
    }

    /// `text` decoded as `type`.
    package static func decode<T: Decodable>(_ type: T.Type, from text: String, what: @autoclosure () -> String) throws(JSONDecodingError) -> T {
        try decode(type, from: text.utf8, what: what())
    }

    /// The decoding error in member names only.
    static func problem(_ error: DecodingError) -> String {
        switch error {
        case .keyNotFound(let key, let context): "no \(quoted(context.codingPath + [key]))"
        case .valueNotFound(_, let context): "\(quoted(context.codingPath)) is null"
        case .typeMismatch(let type, let context): "\(quoted(context.codingPath)) is not \(kind(type))"
        case .dataCorrupted(let context): context.codingPath.isEmpty ? "not valid JSON" : "\(quoted(context.codingPath)) is not valid"
        @unknown default: "not valid JSON"
        }
    }

    private static func quoted(_ path: [any CodingKey]) -> String {
        guard !path.isEmpty else { return "the top level" }
        let place = path.reduce(into: "") { text, key in
            if let index = key.intValue { text += "[\(index)]" } else { text += (text.isEmpty ? "" : ".") + key.stringValue }
        }
        return "\"" + place + "\""
    }

    private static func kind(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Bool.Type: "true or false"
        case is Int.Type, is Int64.Type, is Double.Type, is UInt64.Type, is Int32.Type: "a number"
        case is [Any].Type: "an array"
        default: type == [String: Any].self ? "an object" : "of the expected kind"
        }
    }
}
