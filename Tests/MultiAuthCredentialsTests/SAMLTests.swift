import Foundation
import Testing

@testable import MultiAuthCredentials

/// The SAML checks on a response nanoidp signed (Fixtures/README.md: xmlsec1 accepts its
/// signature), at instants around its own, and exclusive canonicalization on cases derived by
/// hand from the W3C recommendation.
struct SAMLTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")
    static let response = try! String(contentsOf: fixtures.appendingPathComponent("nanoidp-response.b64"), encoding: .utf8)
    static let provider = try! SAMLIdentityProvider(metadata: Array(Data(contentsOf: fixtures.appendingPathComponent("nanoidp-metadata.xml"))))
    /// One minute after the assertion was issued (2026-11-28T15:40:55Z).
    static let issuedPlusAMinute = Date(timeIntervalSince1970: 1_795_880_515)

    static func xml() -> String { String(decoding: Data(base64Encoded: response.trimmingCharacters(in: .whitespacesAndNewlines))!, as: UTF8.self) }

    @Test func theIdPsSignedResponsePassesEveryCheck() throws {
        let checked = try SAMLResponse(
            encoded: Self.response, now: Self.issuedPlusAMinute, identityProvider: Self.provider, requestID: "_730b9c7bb0a04766b48ac1105a54b70c")
        #expect(checked.assertionID == "_6c9299ec0e1944fbb5744ebe1035a8a7")
        #expect(checked.roles == [SAMLRole(roleArn: "arn:aws:iam::123456789012:role/SAMLDeveloper", principalArn: "arn:aws:iam::123456789012:saml-provider/nanoidp")])
        #expect(checked.expiresAt == Date(timeIntervalSince1970: 1_795_880_755))  // 15:45:55Z
        #expect(!"\(checked)".contains(String(Self.response.prefix(20))))
        #expect(Self.provider.entityID == "http://127.0.0.1:47993/saml" && Self.provider.singleSignOnURL == "http://127.0.0.1:47993/saml/sso")
    }

    @Test func outsideItsValidityOrForAnotherRequestItIsRefused() {
        let cases: [(Date, String?, String)] = [
            (Self.issuedPlusAMinute.addingTimeInterval(3_600), nil, "expired"),
            (Self.issuedPlusAMinute.addingTimeInterval(-3_600), nil, "not valid before"),
            (Self.issuedPlusAMinute, "_another", "answers another sign-in"),
        ]
        for (now, request, problem) in cases {
            #expect { try SAMLResponse(encoded: Self.response, now: now, identityProvider: Self.provider, requestID: request) } throws: {
                "\($0)".contains(problem)
            }
        }
    }

    @Test func aChangedByteOrAnotherCertificateFailsTheSignature() throws {
        let changed = Data(Self.xml().replacingOccurrences(of: "role/SAMLDeveloper", with: "role/SAMLDevelopex").utf8).base64EncodedString()
        #expect { try SAMLResponse(encoded: changed, now: Self.issuedPlusAMinute, identityProvider: Self.provider) } throws: {
            "\($0)".contains("changed after it was signed")
        }
        let otherEntity = try SAMLIdentityProvider(metadata: Array(
            try String(contentsOf: Self.fixtures.appendingPathComponent("nanoidp-metadata.xml"), encoding: .utf8)
                .replacingOccurrences(of: "entityID=\"http://127.0.0.1:47993/saml\"", with: "entityID=\"https://idp.example\"").utf8))
        #expect { try SAMLResponse(encoded: Self.response, now: Self.issuedPlusAMinute, identityProvider: otherEntity) } throws: {
            "\($0)".contains("issued by http://127.0.0.1:47993/saml, not https://idp.example")
        }
    }

    @Test func roleChoice() throws {
        let checked = try SAMLResponse(encoded: Self.response, now: Self.issuedPlusAMinute)
        #expect(try checked.role(nil, principalArn: nil).roleArn.hasSuffix("role/SAMLDeveloper"))
        #expect { try checked.role("arn:aws:iam::123456789012:role/Other", principalArn: nil) } throws: { "\($0)".contains("does not offer role") }
    }

    /// Namespaces only where used, sorted declarations and attributes (no namespace first),
    /// empty elements as two tags, and the text and attribute escapes (exc-c14n §3, C14N §2.3).
    @Test(arguments: [
        (#"<a:root xmlns:a="urn:a" xmlns:b="urn:b" xmlns:c="urn:c" z="1" b:y="2" a="3"><child/><a:x>&lt;&gt;&amp;"</a:x></a:root>"#,
         #"<a:root xmlns:a="urn:a" xmlns:b="urn:b" a="3" z="1" b:y="2"><child></child><a:x>&lt;&gt;&amp;"</a:x></a:root>"#),
        (#"<root xmlns="urn:d"><inner xmlns=""/><other/></root>"#, #"<root xmlns="urn:d"><inner xmlns=""></inner><other></other></root>"#),
        ("<e a=\"x&#9;y&#10;z\" b=\"p\nq\" c='&quot;&lt;'>t&#13;\r\nu</e>", "<e a=\"x&#x9;y&#xA;z\" b=\"p q\" c=\"&quot;&lt;\">t&#xD;\nu</e>"),
        (#"<?xml version="1.0"?><!-- c --><e><!-- dropped --><![CDATA[<&>]]></e>"#, #"<e>&lt;&amp;&gt;</e>"#),
    ])
    func exclusiveCanonicalForm(input: String, expected: String) throws {
        let element = try SAMLXML.parse(Array(input.utf8))
        #expect(String(decoding: CanonicalXML.bytes(of: element), as: UTF8.self) == expected)
    }

    /// A subtree declares the namespaces it uses itself and none of its ancestors' others;
    /// an InclusiveNamespaces prefix in scope is declared even when unused.
    @Test func aSubtreeCarriesOnlyTheNamespacesItUses() throws {
        let root = try SAMLXML.parse(Array(#"<p:r xmlns:p="urn:p" xmlns:q="urn:q" xmlns:xs="urn:xs"><p:s q:t="1"><p:u/></p:s></p:r>"#.utf8))
        let subtree = try #require(root.children.first)
        #expect(String(decoding: CanonicalXML.bytes(of: subtree), as: UTF8.self)
            == #"<p:s xmlns:p="urn:p" xmlns:q="urn:q" q:t="1"><p:u></p:u></p:s>"#)
        #expect(String(decoding: CanonicalXML.bytes(of: subtree, inclusivePrefixes: ["xs"]), as: UTF8.self)
            == #"<p:s xmlns:p="urn:p" xmlns:q="urn:q" xmlns:xs="urn:xs" q:t="1"><p:u></p:u></p:s>"#)
    }

    @Test(arguments: [
        #"<!DOCTYPE x [<!ENTITY e "boom">]><x>&e;</x>"#, "<a><b></a></b>", "<a>&e;</a>", "<p:a/>", "<a/><b/>", #"<a x="1" x="2"/>"#,
        String(repeating: "<a>", count: 70) + String(repeating: "</a>", count: 70),
    ])
    func malformedOrDangerousXMLIsRefused(input: String) {
        #expect(throws: SAMLXML.Malformed.self) { try SAMLXML.parse(Array(input.utf8)) }
    }

    /// RFC 1951 §3.2.4: a final stored block is 0x01, LEN and its one's complement (little-endian), then the bytes.
    @Test func authnRequestsAreStoredDeflateBlocks() throws {
        #expect(SAMLAuthnRequest.storedDeflate([0x41, 0x42]) == [0x01, 0x02, 0x00, 0xFD, 0xFF, 0x41, 0x42])
        let long = SAMLAuthnRequest.storedDeflate([UInt8](repeating: 7, count: 70_000))
        #expect(long.prefix(5) == [0x00, 0xFF, 0xFF, 0x00, 0x00] && long[65_540] == 0x01 && long.count == 70_000 + 10)
        let request = try SAMLAuthnRequest(idpURL: "https://idp.example/sso?tenant=1", assertionConsumerServiceURL: "http://127.0.0.1:9/saml/x")
        #expect(request.redirectURL(relayState: "r").hasPrefix("https://idp.example/sso?tenant=1&SAMLRequest="))
        #expect(request.xml.contains(#"AssertionConsumerServiceURL="http://127.0.0.1:9/saml/x""#) && request.xml.contains("<saml:Issuer>urn:amazon:webservices</saml:Issuer>"))
        #expect(throws: CredentialsError.self) { try SAMLAuthnRequest(idpURL: "file:///etc/passwd", assertionConsumerServiceURL: "http://127.0.0.1:9/") }
    }
}
