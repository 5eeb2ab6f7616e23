import Foundation
import Testing

@testable import MultiAuthCredentials

/// What a hostile SAML response can try against the reader and the signature check: input
/// XML 1.0 and Namespaces in XML 1.0 call not well-formed (each refused, as libxml2 at STS
/// refuses it), the XML signature wrapping shapes XSW1–8 built from a response nanoidp signed
/// (none gives its own assertion or role), and comment and character-reference injection.
struct SAMLHostileInputTests {
    @Test(arguments: [
        ("<a><!--></a>", "comment"), ("<a><!-- a -- b --></a>", "'--'"), ("<a><!-- a ---></a>", "'--'"),
        ("<a>&#0;</a>", "non-character"), ("<a>&#xFFFE;</a>", "non-character"), ("<a>&#+65;</a>", "non-character"), ("<a>&#x;</a>", "non-character"),
        ("<a xmlns:x=\"urn:1\" xmlns:x=\"urn:2\"/>", "declared twice"), ("<a xmlns=\"urn:1\" xmlns=\"urn:1\"/>", "declared twice"),
        ("<a x=\"1\"y=\"2\"/>", "without a space"), ("<a>x ]]> y</a>", "']]>'"), ("<a>\u{1}</a>", "U+1"), (" <?xml version=\"1.0\"?><a/>", "processing instruction"),
        ("<1a/>", "not a name"), ("<a:b:c xmlns:a=\"urn:a\"/>", "not a name"), ("<xmlns:a/>", "prefix"), ("<a xmlns:p=\"\"/>", "no namespace"),
        ("<a xmlns:xml=\"urn:x\"/>", "xml prefix"), ("<a xmlns:xmlns=\"urn:x\"/>", "xmlns"), ("<a -b=\"1\"/>", "malformed attribute"),
        ("<a><?xml version=\"1.0\"?></a>", "processing instruction"), ("<a/><!-- -- -->", "'--'"),
    ])
    func notWellFormedInputIsRefused(document: String, problem: String) {
        #expect {
            _ = try SAMLXML.parse(Array(document.utf8))
        } throws: { error in
            (error as? SAMLXML.Malformed)?.problem.contains(problem) == true
        }
    }

    @Test func invalidUTF8IsRefused() {
        #expect(throws: SAMLXML.Malformed.self) { try SAMLXML.parse([0x3C, 0x61, 0x3E, 0xC0, 0xAE, 0x3C, 0x2F, 0x61, 0x3E]) }
    }

    @Test func wellFormedInputStillReads() throws {
        let document = "\u{FEFF}<?xml version=\"1.0\"?>\n<!-- a - b -->\n<a xmlns=\"urn:a\" b='1'\tc=\"2\"><!-- ok --><![CDATA[x]]]>&#x41;&#65;&lt;<b/></a>"
        let root = try SAMLXML.parse(Array(document.utf8))
        #expect(root.namespace == "urn:a" && root.attributes == ["b": "1", "c": "2"] && root.text == "x]AA<" && root.children.count == 1)
    }

    /// Canonical XML 1.0 (inclusive) declares every namespace in scope at the subtree's top, by
    /// hand from the recommendation's §2.4; exclusive only what is used.
    @Test func inclusiveCanonicalizationCarriesEveryNamespaceInScope() throws {
        let root = try SAMLXML.parse(Array(#"<p:r xmlns:p="urn:p" xmlns:q="urn:q" xmlns="urn:d"><p:s><t/></p:s></p:r>"#.utf8))
        let subtree = try #require(root.children.first)
        #expect(String(decoding: CanonicalXML.inclusiveBytes(of: subtree), as: UTF8.self)
            == #"<p:s xmlns="urn:d" xmlns:p="urn:p" xmlns:q="urn:q"><t></t></p:s>"#)
        #expect(String(decoding: CanonicalXML.bytes(of: subtree), as: UTF8.self) == #"<p:s xmlns:p="urn:p"><t xmlns="urn:d"></t></p:s>"#)
    }

    // MARK: The signed response, rearranged

    static let xml = SAMLTests.xml()
    static let assertionStart = xml.range(of: "<saml2:Assertion ")!.lowerBound
    static let assertionEnd = xml.range(of: "</saml2:Assertion>")!.upperBound
    /// The signed assertion as the IdP wrote it.
    static var signed: String { String(xml[assertionStart..<assertionEnd]) }
    /// The same assertion claiming another role, with a new ID.
    static var evil: String {
        signed.replacingOccurrences(of: "role/SAMLDeveloper", with: "role/Admin").replacingOccurrences(of: "_6c9299ec0e1944fbb5744ebe1035a8a7", with: "_evil")
    }
    static var evilUnsigned: String {
        let start = evil.range(of: "<ds:Signature>")!.lowerBound, end = evil.range(of: "</ds:Signature>")!.upperBound
        return evil.replacingCharacters(in: start..<end, with: "")
    }
    static var signature: String {
        String(signed[signed.range(of: "<ds:Signature>")!.lowerBound..<signed.range(of: "</ds:Signature>")!.upperBound])
    }

    static func response(assertions: String, responseExtra: String = "") -> String {
        String(xml[..<assertionStart]).replacingOccurrences(of: "</saml2p:Status>", with: "</saml2p:Status>" + responseExtra) + assertions
            + String(xml[assertionEnd...])
    }

    /// XSW1–8 (Somorovsky et al., "On Breaking SAML", 2012), on an assertion-signed response.
    static var wrappings: [(String, String)] {
        let objectWithSigned = "<ds:Object>" + signed + "</ds:Object>"
        let evilWithSignatureHoldingOriginal = evilUnsigned.replacingOccurrences(
            of: "</saml2:Assertion>", with: signature.replacingOccurrences(of: "</ds:Signature>", with: objectWithSigned + "</ds:Signature>") + "</saml2:Assertion>")
        return [
            ("XSW1", response(assertions: evilUnsigned, responseExtra: "<ds:Signature>" + objectWithSigned + "</ds:Signature>")),
            ("XSW2", response(assertions: evilUnsigned, responseExtra: signature)),
            ("XSW3", response(assertions: evilUnsigned + signed)),
            ("XSW4", response(assertions: evilUnsigned.replacingOccurrences(of: "</saml2:Assertion>", with: signed + "</saml2:Assertion>"))),
            ("XSW5", response(assertions: evil, responseExtra: "<saml2p:Extensions>" + signed + "</saml2p:Extensions>")),
            ("XSW6", response(assertions: evilWithSignatureHoldingOriginal)),
            ("XSW7", response(assertions: evilUnsigned, responseExtra: "<saml2p:Extensions>" + signed + "</saml2p:Extensions>")),
            ("XSW8", response(assertions: evilWithSignatureHoldingOriginal.replacingOccurrences(of: "_evil", with: "_6c9299ec0e1944fbb5744ebe1035a8a7"))),
        ]
    }

    static func check(_ xml: String) throws -> SAMLResponse {
        try SAMLResponse(encoded: Data(xml.utf8).base64EncodedString(), now: SAMLTests.issuedPlusAMinute, identityProvider: SAMLTests.provider)
    }

    @Test func everyWrappingShapeIsRefused() throws {
        #expect(try Self.check(Self.response(assertions: Self.signed)).roles.count == 1, "the untouched response passes")
        for (name, shape) in Self.wrappings {
            #expect(throws: CredentialsError.self, "\(name)") { _ = try Self.check(shape) }
        }
    }

    /// A comment inside signed text is not part of what is signed (C14N without comments), so
    /// the signature still holds; the text read must be the whole of it, never the part before
    /// the comment. Text added after a comment changes what is signed.
    @Test func commentAndReferenceInjection() throws {
        let commented = Self.xml.replacingOccurrences(of: "role/SAML<", with: "role/SAML<").replacingOccurrences(
            of: "arn:aws:iam::123456789012:role/SAMLDeveloper,", with: "arn:aws:iam::123456789012:role/SAML<!-- -->Developer,")
        let read = try Self.check(commented)
        #expect(read.roles.map(\.roleArn) == ["arn:aws:iam::123456789012:role/SAMLDeveloper"])
        let referenced = Self.xml.replacingOccurrences(of: "role/SAMLDeveloper,", with: "role/SAML&#x44;eveloper,")
        #expect(try Self.check(referenced).roles.map(\.roleArn) == ["arn:aws:iam::123456789012:role/SAMLDeveloper"])
        for changed in [
            Self.xml.replacingOccurrences(of: "role/SAMLDeveloper,", with: "role/SAMLDeveloper<!---->-admin,"),
            Self.xml.replacingOccurrences(of: "role/SAMLDeveloper,", with: "role/SAMLDeveloper&#x2D;admin,"),
        ] {
            #expect(throws: CredentialsError.self) { _ = try Self.check(changed) }
        }
    }
}
