import HTTPTypes
import MultiAuthCore
import MultiAuthCrypto
import MultiAuthSigV4
import Testing

/// Roles Anywhere's X.509 signing against hand-derived facts: the canonical request written
/// out by SigV4's rules, `{}`'s well-known SHA-256, the serial 0x0123456789ABCDEF in decimal,
/// and the certificate's fixed validity. The material is a throwaway key and a self-signed
/// certificate made for these tests with Python's `cryptography`, valid 2015-08-01 to 2035-08-01.
@Suite struct X509SignerTests {
    static let certificate = """
        -----BEGIN CERTIFICATE-----
        MIIBMDCB1qADAgECAggBI0VniavN7zAKBggqhkjOPQQDAjAeMRwwGgYDVQQDDBNt
        dWx0aWF1dGggdW5pdCB0ZXN0MB4XDTE1MDgwMTAwMDAwMFoXDTM1MDgwMTAwMDAw
        MFowHjEcMBoGA1UEAwwTbXVsdGlhdXRoIHVuaXQgdGVzdDBZMBMGByqGSM49AgEG
        CCqGSM49AwEHA0IABOn/EXR1JNGGsJa0+g/WpWeeRR7mRPuKmozTCx4TZTv6Ijbu
        v4rWgfm6NqVqPCjdrcOQing1UNK8wWmm2CMvaecwCgYIKoZIzj0EAwIDSQAwRgIh
        APX0iwBG6CMsPM1vxkaKtnWOX3a6G8kT6ICU/YYjjCpXAiEAuGoRPEXgoxgI4WJT
        Qvarojie8KkPGpsMHJ85KBuDQjc=
        -----END CERTIFICATE-----

        """
    static let key = """
        -----BEGIN EC PRIVATE KEY-----
        MHcCAQEEIDIORvvZCYN7dItCESCSS3I3cpCNaH8wqkrfYZJHx9cxoAoGCCqGSM49
        AwEHoUQDQgAE6f8RdHUk0YawlrT6D9alZ55FHuZE+4qajNMLHhNlO/oiNu6/itaB
        +bo2pWo8KN2tw5CKeDVQ0rzBaabYIy9p5w==
        -----END EC PRIVATE KEY-----

        """
    /// The same key, PKCS#8 encrypted with `test-passphrase`.
    static let encryptedKey = """
        -----BEGIN ENCRYPTED PRIVATE KEY-----
        MIH0MF8GCSqGSIb3DQEFDTBSMDEGCSqGSIb3DQEFDDAkBBCgs6y/Vxa1Cairp0oW
        r+CWAgIIADAMBggqhkiG9w0CCQUAMB0GCWCGSAFlAwQBKgQQSaizhG9LY4LAts0g
        Sf6H6QSBkGPpdpfGTJdR5GhQ8i2mpi9mrYRfro/MZAsfdYI9howUXPUBrBl1EQl2
        qDoTs4OWI0DMVlTg0ubrdDLGDwowDHgzlkwG3l5pAuh5YzKTMqlG3qPlyys4pJmv
        9VIkSihPovY1Fh7VmPO4fn8gBexxED7UfNK7uyDwoPwPIbAY/ZzD8g0ZDN6uaSQV
        6ynLBW7ICA==
        -----END ENCRYPTED PRIVATE KEY-----

        """
    /// Another key: not the certificate's.
    static let otherKey = """
        -----BEGIN PRIVATE KEY-----
        MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgpVejWxfzlxV8RQkr
        G75fTx65AFvxYnzQYvxv3ykXkR2hRANCAARoQ6+pJMUJxI+s1cPXJ1ZyGqTPIC+4
        pi5hPdbCxpilAyR9q7a42zkfoUstMMDSHBi4l4sA0UdbzlLfrK6x16ni
        -----END PRIVATE KEY-----

        """
    /// Key and certificate in PKCS#12 under `test-passphrase`.
    static let bundle = "MIID7wIBAzCCA6UGCSqGSIb3DQEHAaCCA5YEggOSMIIDjjCCAioGCSqGSIb3DQEHBqCCAhswggIXAgEAMIICEAYJKoZIhvcNAQcBMF8GCSqGSIb3DQEFDTBSMDEGCSqGSIb3DQEFDDAkBBAfpWMfYmAjuPVShLPSfvzqAgJOIDAMBggqhkiG9w0CCQUAMB0GCWCGSAFlAwQBKgQQrZWkgCJ0udMg8A9oLBl4o4CCAaBd5R9Op3o2n4/uzO2xrUw1WHtgMcJolZBDOODEmUCHC8ucJtAFPQ6rTN3/euV6ywE6AmhWPm0yDdFCqdhdLHQsGx5fXYjQr+KN+HyG4vECzjVH9YCnJbyrwlmhsXYvfMDcn9wqzCWpUpFExVktWYTdiSH5Am8dAN3dgDRzLsIeI9eS1Hai8jMa1QikCujmEL4nGXFsx96skUynsUSllCj7aCz1c9xoLmUscjR3baiXkKFqCMPYVDNPzocL0pmSNXAXNu2lSv58PLvHWIpNPB7ogZawRXOELN3mFT9DyZHqaOScc7paG0LIsteKbJI1QRo4+X2+eNaf2MABfB3eEwrRlT07OZ4bATskYXLlwrZJV+AMW8GSuhRA3h749EdKcF2M4N/VuT8vaZDI9Hiinbu9SSY39A3HAeXGoq4ev9GqdnY7Rty48XvacaJGQ6T2/usTYFjcu42CgSqqL1IOK/MpRhbtGO2VNpgB/ObANguFNmSRYrIL5yFTvi9UBX9GC8iMne9tNZ7BBCSlkVaGvUWtyBkLzuMrhKdd8fgyXWeDsTCCAVwGCSqGSIb3DQEHAaCCAU0EggFJMIIBRTCCAUEGCyqGSIb3DQEMCgECoIH3MIH0MF8GCSqGSIb3DQEFDTBSMDEGCSqGSIb3DQEFDDAkBBD3tQdf0Ac94fKffpBQYfBlAgJOIDAMBggqhkiG9w0CCQUAMB0GCWCGSAFlAwQBKgQQCjeVdAnz9H912ry5cLIc1ASBkJ01H0yEGGHzEy3dQHF5MWQIj04sl8QkmOBntco6D0omxLRRa0nfVfcEM3F32EHWF44KurijTr9wH+p7dph4iTTsD4tBhZu+a0O0Ycuvvu0YdoCSDEFLnaZx9UAmVlC8XdO4fuF/O1ZZZa+tWZfQmPFydhf4ZNVmG6SKnkh2oisbdQuL5EeuuZrS3IBCwtAbNTE4MBEGCSqGSIb3DQEJFDEEHgIAdDAjBgkqhkiG9w0BCRUxFgQUVhntgOm+/bwVmlVpBd7kx0Wd8eQwQTAxMA0GCWCGSAFlAwQCAQUABCBiwnkm0pPisAoEVzEZEHFsSGCyvV/ZknFYBIkpbAqx7QQIEeUCR5ziWasCAggA"

    /// The certificate's DER in base64: its PEM body joined.
    static var certificateBase64: String {
        certificate.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
    }

    static func identity() throws -> X509SigningIdentity {
        try .pem(certificate: Array(certificate.utf8), privateKey: Array(key.utf8))
    }

    @Test func theSerialIsInDecimal() throws {
        #expect(try Self.identity().serialNumber == "81985529216486895")  // 0x0123456789ABCDEF
    }

    /// The canonical request and string to sign as SigV4's rules give them by hand, the
    /// algorithm name and the serial in the Authorization, and a signature that verifies under
    /// the certificate's public key.
    @Test func theSignatureCoversSigV4sStringToSignUnderTheX509Name() async throws {
        let request = try HTTPRequest(
            method: .post, wireURL: "https://rolesanywhere.us-east-1.amazonaws.com/sessions", headerFields: [.contentType: "application/json"])
        let signer = X509Signer(identity: try Self.identity(), region: "us-east-1")
        let signed = try await signer.signHeaders(request, payload: .bytes(Array("{}".utf8)), date: try SigningDate(parsing: "20150830T123600Z"))
        #expect(signed.headerFields[HTTPField.Name("X-Amz-X509")!] == Self.certificateBase64)
        #expect(signed.headerFields[HTTPField.Name("X-Amz-X509-Chain")!] == nil)
        let canonical = """
            POST
            /sessions

            content-type:application/json
            host:rolesanywhere.us-east-1.amazonaws.com
            x-amz-date:20150830T123600Z
            x-amz-x509:\(Self.certificateBase64)

            content-type;host;x-amz-date;x-amz-x509
            44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a
            """
        let stringToSign = "AWS4-X509-ECDSA-SHA256\n20150830T123600Z\n20150830/us-east-1/rolesanywhere/aws4_request\n"
            + SHA256Hasher.hash(Array(canonical.utf8)).hex
        let authorization = try #require(signed.headerFields[.authorization])
        let prefix = "AWS4-X509-ECDSA-SHA256 Credential=81985529216486895/20150830/us-east-1/rolesanywhere/aws4_request, "
            + "SignedHeaders=content-type;host;x-amz-date;x-amz-x509, Signature="
        #expect(authorization.hasPrefix(prefix), "\(authorization)")
        let signature = try Hex.decode(String(authorization.dropFirst(prefix.count)))
        let certificate = try #require(try X509Certificate.pem(Array(Self.certificate.utf8)).first)
        #expect(certificate.verifies(signature: signature, of: Array(stringToSign.utf8)))
        #expect(!certificate.verifies(signature: signature, of: Array((stringToSign + "x").utf8)))
    }

    @Test func aCertificateOutsideItsValidityIsRefused() async throws {
        let signer = X509Signer(identity: try Self.identity(), region: "us-east-1")
        let request = try HTTPRequest(method: .post, wireURL: "https://rolesanywhere.us-east-1.amazonaws.com/sessions")
        for (date, code) in [("20150731T235959Z", "X509Identity.notYetValid"), ("20350801T000001Z", "X509Identity.expired")] {
            do {
                _ = try await signer.signHeaders(request, payload: .empty, date: try SigningDate(parsing: date))
                Issue.record("signed at \(date)")
            } catch { #expect((error.underlying as? X509IdentityError)?.code.rawValue == code, "\(error)") }
        }
    }

    @Test func keyFormsAndTheirFaults() throws {
        let certificate = Array(Self.certificate.utf8)
        func code(_ body: () throws(X509IdentityError) -> X509SigningIdentity) -> String {
            do { _ = try body(); return "ok" } catch { return error.code.rawValue }
        }
        #expect(code { () throws(X509IdentityError) in try .pem(certificate: certificate, privateKey: Array(Self.encryptedKey.utf8), passphrase: Array("test-passphrase".utf8)) } == "ok")
        #expect(code { () throws(X509IdentityError) in try .pem(certificate: certificate, privateKey: Array(Self.encryptedKey.utf8)) } == "X509Identity.passphraseRequired")
        #expect(code { () throws(X509IdentityError) in try .pem(certificate: certificate, privateKey: Array(Self.encryptedKey.utf8), passphrase: Array("wrong".utf8)) } == "X509Identity.wrongPassphrase")
        #expect(code { () throws(X509IdentityError) in try .pem(certificate: certificate, privateKey: Array(Self.otherKey.utf8)) } == "X509Identity.keyMismatch")
        #expect(code { () throws(X509IdentityError) in try .pem(certificate: certificate, privateKey: certificate) } == "X509Identity.malformedKey")
        #expect(code { () throws(X509IdentityError) in try .pem(certificate: Array(Self.key.utf8), privateKey: Array(Self.key.utf8)) } == "X509Identity.malformedCertificate")
        let bundle = try Base64.decode(Self.bundle)
        #expect(try X509SigningIdentity.pkcs12(bundle, passphrase: Array("test-passphrase".utf8)).serialNumber == "81985529216486895")
        #expect(code { () throws(X509IdentityError) in try .pkcs12(bundle, passphrase: Array("wrong".utf8)) } == "X509Identity.wrongPassphrase")
    }
}
