import MultiAuthCrypto
public import MultiAuthCore
import MultiAuthHTTP

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// A service-provider-initiated SAML 2.0 AuthnRequest as AWS's sign-in sends one (Issuer
/// `urn:amazon:webservices`), asking the identity provider to post its response to
/// `assertionConsumerServiceURL` (HTTP-POST binding), sent over the HTTP-Redirect binding.
public struct SAMLAuthnRequest: Sendable {
    /// The issuer AWS's own requests carry, which identity providers know AWS by.
    public static let awsIssuer = "urn:amazon:webservices"

    /// The request's `ID`, which the response's `InResponseTo` names.
    public let id: String
    /// The request's XML.
    public let xml: String
    let idpURL: String

    /// A request to `idpURL` (the identity provider's SSO endpoint) at `now`.
    /// - Throws: `Credentials.invalidSetting` when `idpURL` is not an http(s) URL.
    public init(idpURL: String, assertionConsumerServiceURL: String, now: Date = Date(timeIntervalSince1970: TimeSource.system.now())) throws(CredentialsError) {
        guard let scheme = idpURL.split(separator: ":", maxSplits: 1).first?.lowercased(), ["https", "http"].contains(scheme),
            idpURL.allSatisfy({ $0.isASCII && !$0.isWhitespace && $0 != "#" })
        else { throw .invalidSetting(source: "the identity provider URL", problem: "\(Redaction.url(idpURL)) is not an http(s) URL") }
        id = "_" + UUID().uuidString.replacing("-", with: "").lowercased()
        self.idpURL = idpURL
        xml = """
            <samlp:AuthnRequest xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" \
            ID="\(id)" Version="2.0" IssueInstant="\(now.formatted(.iso8601))" Destination="\(Self.escaped(idpURL))" \
            ProtocolBinding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" AssertionConsumerServiceURL="\(Self.escaped(assertionConsumerServiceURL))">\
            <saml:Issuer>\(Self.awsIssuer)</saml:Issuer><samlp:NameIDPolicy AllowCreate="true"/></samlp:AuthnRequest>
            """
    }

    /// The URL that carries the request to the identity provider (HTTP-Redirect binding:
    /// DEFLATE, base64, then the query string), with `relayState` when given.
    public func redirectURL(relayState: String? = nil) -> String {
        var pairs = [("SAMLRequest", Base64.encode(Self.storedDeflate(Array(xml.utf8))))]
        if let relayState { pairs.append(("RelayState", relayState)) }
        let query = String(decoding: FormURLEncoding.encode(pairs), as: UTF8.self)
        return idpURL + (idpURL.contains("?") ? "&" : "?") + query
    }

    /// Raw DEFLATE (RFC 1951) made of stored blocks (§3.2.4), which every inflater reads: the
    /// request is well under a kilobyte, so compressing it would save little and bring zlib in.
    static func storedDeflate(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        var start = 0
        repeat {
            let count = min(65_535, bytes.count - start)
            let final: UInt8 = start + count == bytes.count ? 1 : 0
            let length = UInt16(count)
            out += [final, UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8(~length >> 8)]
            out += bytes[start..<(start + count)]
            start += count
        } while start < bytes.count
        return out
    }

    static func escaped(_ text: String) -> String {
        text.replacing("&", with: "&amp;").replacing("<", with: "&lt;").replacing("\"", with: "&quot;")
    }
}
