import MultiAuthPKCS11
import MultiAuthSigV4
import Testing

/// PKCS#11 URIs as RFC 7512 writes them (its section 7 examples), and the errors for what it
/// does not allow. No token is needed: SoftHSM is used by the integration tests.
@Suite struct PKCS11URITests {
    @Test func theRFCsExamplesParse() throws {
        let uri = try PKCS11URI(
            "pkcs11:token=The%20Software%20PKCS%2311%20Softtoken;manufacturer=Snake%20Oil,%20Inc.;model=1.0;object=my-certificate;type=cert;id=%69%95%3E%5C%F4%BD%EC%91;serial=?pin-source=file:/etc/token_pin")
        #expect(uri.text("token") == "The Software PKCS#11 Softtoken")
        #expect(uri.text("manufacturer") == "Snake Oil, Inc.")
        #expect(uri.text("model") == "1.0" && uri.text("object") == "my-certificate" && uri.text("type") == "cert")
        #expect(uri.path["id"] == [0x69, 0x95, 0x3E, 0x5C, 0xF4, 0xBD, 0xEC, 0x91])
        #expect(uri.text("serial") == "")
        #expect(uri.queryText("pin-source") == "file:/etc/token_pin")

        let withPIN = try PKCS11URI("pkcs11:object=my-sign-key;type=private?module-name=mypkcs11&pin-value=1234")
        #expect(withPIN.text("object") == "my-sign-key" && withPIN.queryText("module-name") == "mypkcs11" && withPIN.queryText("pin-value") == "1234")
        #expect(try PKCS11URI("pkcs11:").path.isEmpty)
    }

    /// What errors and logs show of a URI: the selecting attributes, never the query's PIN.
    @Test func theDescriptionLeavesThePINOut() throws {
        let uri = try PKCS11URI("pkcs11:token=host;id=%01?pin-value=1234")
        #expect(uri.description == "pkcs11:id=%01;token=host")
    }

    /// A malformed part is named by its attribute name or position, never echoed: each of
    /// these holds the PIN `S3cretPIN` where a parser cannot take it for one.
    @Test(arguments: [
        ("pkcs11:token=t?pin-value:S3cretPIN", "query's attribute 1 has no name=value form"),
        ("pkcs11:token=t?module-name=m&S3cretPIN", "query's attribute 2 has no name=value form"),
        ("pkcs11:token=t;S3cretPIN", "path's attribute 2 has no name=value form"),
        ("pkcs11:token=t?pin-value=S3cretPIN%zz", "query's attribute 'pin-value' has a '%'"),
        ("pkcs11S3cretPIN", "is not a pkcs11: URI"),
    ])
    func aMalformedPartIsNamedNeverEchoed(text: String, message: String) {
        #expect {
            try PKCS11URI(text)
        } throws: { error in
            "\(error)".contains(message) && !"\(error)".contains("S3cretPIN")
        }
    }

    @Test func aPINPutInThePathIsNotDescribed() throws {
        #expect(try PKCS11URI("pkcs11:token=t;pin-value=S3cretPIN").description == "pkcs11:pin-value=<redacted>;token=t")
    }

    @Test func malformedURIsAreRefused() {
        for text in ["file:/etc/key.pem", "pkcs11:token", "pkcs11:id=%0", "pkcs11:id=%zz"] {
            #expect(throws: X509IdentityError.self, "\(text)") { try PKCS11URI(text) }
        }
    }
}
