public import MultiAuthCore
import MultiAuthCrypto

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A compact-serialized JWS (RFC 7515) split into its parts. Parsing checks the shape only;
/// ``IDTokenValidator`` checks the signature and claims.
public struct JSONWebToken: Sendable {
    /// The protected header.
    public let header: Header
    /// The payload's claims.
    public let claims: JWTClaims
    /// `base64url(header) "." base64url(payload)`: the bytes the signature covers.
    public let signingInput: [UInt8]
    /// The signature bytes.
    public let signature: [UInt8]

    /// The JOSE header fields this library reads.
    public struct Header: Sendable, Decodable, Equatable {
        /// The signature algorithm (`RS256`, `ES256`, ...).
        public let alg: String
        /// The key id, when the issuer has several keys.
        public let kid: String?
    }

    /// Parses `text` (three base64url parts separated by dots).
    /// - Throws: ``InvalidTokenError`` naming the part that is malformed.
    public init(parsing text: String) throws(InvalidTokenError) {
        let parts = text.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw .invalidToken(reason: "a JWT has 3 dot-separated parts, this has \(parts.count)") }
        header = try Self.decodeJSON(Header.self, part: parts[0], name: "header")
        claims = JWTClaims(members: try Self.decodeJSON([String: JSONValue].self, part: parts[1], name: "payload"))
        do { signature = try Base64.decode(Substring(parts[2])) } catch { throw .invalidToken(reason: "the signature is not base64url") }
        signingInput = Array(text.utf8[parts[0].startIndex..<parts[1].endIndex])
    }

    private static func decodeJSON<T: Decodable>(_ type: T.Type, part: Substring.UTF8View.SubSequence, name: String) throws(InvalidTokenError) -> T {
        guard part.count <= 64 * 1024, part.allSatisfy({ $0 != UInt8(ascii: "=") }) else {
            throw .invalidToken(reason: "the \(name) is not base64url")
        }
        let bytes: [UInt8]
        do { bytes = try Base64.decode(Substring(part)) } catch { throw .invalidToken(reason: "the \(name) is not base64url") }
        do { return try JSONDecoding.decode(T.self, from: bytes, what: "the \(name)") } catch {
            throw .invalidToken(reason: error.description)
        }
    }
}

/// A JWT's claims, with accessors for the registered ones.
public struct JWTClaims: Sendable, Equatable, CustomStringConvertible {
    /// Every claim.
    public let members: [String: JSONValue]

    /// `iss`.
    public var issuer: String? { members["iss"]?.stringValue }
    /// `sub`.
    public var subject: String? { members["sub"]?.stringValue }
    /// `exp`, seconds since 1970.
    public var expiresAt: Int64? { members["exp"]?.integerValue }
    /// `iat`, seconds since 1970.
    public var issuedAt: Int64? { members["iat"]?.integerValue }
    /// `nonce`.
    public var nonce: String? { members["nonce"]?.stringValue }
    /// `aud` as a list (it may be one string or an array).
    public var audiences: [String] {
        switch members["aud"] {
        case .string(let value): [value]
        case .array(let values): values.compactMap(\.stringValue)
        default: []
        }
    }
    /// The best display name: `cognito:username`, `username`, `preferred_username`, `email`, then `sub`.
    public var displayName: String? {
        for key in ["cognito:username", "username", "preferred_username", "email", "sub"] {
            if let value = members[key]?.stringValue { return value }
        }
        return nil
    }

    /// The claims as compact JSON, keys sorted.
    public var description: String { JSONValue.object(members).description }
}
