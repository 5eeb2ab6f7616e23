import Foundation
import HTTPTypes
import MultiAuthCore
import MultiAuthCrypto
import MultiAuthSigV4
import Testing

@Suite(.timeLimit(.minutes(5))) struct SignerTests {
    let signer = SigV4Signer(credentials: exampleCredentials, region: "us-east-1", service: "service")

    /// A result reads its string to sign and scope from its signer's fixed bytes, which it
    /// keeps alive: read here after the signer is gone, with and without a key cache. The
    /// expected values are the aws-c-auth suite's get-vanilla files.
    @Test(arguments: [true, false])
    func aResultOutlivesItsSignerWithTheVectorsValues(keyCache: Bool) throws {
        func sign() throws -> SigningResult {
            let signer = SigV4Signer(
                credentials: exampleCredentials, region: "us-east-1", service: "service",
                keyCache: keyCache ? SigningKeyCache() : nil)
            let request = try HTTPRequest(method: .get, wireURL: "https://example.amazonaws.com/")
            return try signer.signHeaders(request, payload: .empty, date: exampleDate)
        }
        let result = try sign()
        #expect(result.credentialScope == "20150830/us-east-1/service/aws4_request")
        #expect(result.stringToSign == """
            AWS4-HMAC-SHA256
            20150830T123600Z
            20150830/us-east-1/service/aws4_request
            bb579772317eb040ac9ed261061d46c1f17a8133879d6129b6e1c25292927e63
            """)
        #expect(result.signature == "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31")
    }

    @Test func sessionTokenIsSignedByDefaultAndAppendedAfterWhenOmitted() throws {
        var credentials = exampleCredentials
        credentials.sessionToken = "TOKEN"
        let request = try SignableRequest(method: "GET", url: "https://example.com/")
        let signed = try SigV4Signer(credentials: credentials, region: "us-east-1", service: "service")
            .signHeaders(request, date: exampleDate)
        #expect(signed.signedHeaders == "host;x-amz-date;x-amz-security-token")
        var options = SigningOptions.defaults(forService: "service")
        options.omitsSessionToken = true
        let omitted = try SigV4Signer(credentials: credentials, region: "us-east-1", service: "service", options: options)
            .signHeaders(request, date: exampleDate)
        #expect(omitted.signedHeaders == "host;x-amz-date")
        #expect(omitted.signable.headers.first(named: "x-amz-security-token") == "TOKEN")
    }

    @Test func existingDateAndAuthorizationHeadersAreReplaced() throws {
        let request = try SignableRequest(
            method: "GET", url: "https://example.com/",
            headers: [("X-Amz-Date", "19990101T000000Z"), ("Authorization", "stale")])
        let signed = try signer.signHeaders(request, date: exampleDate)
        let headers = signed.signable.headers
        #expect(headers.fields.filter { $0.name.lowercased() == "x-amz-date" }.map(\.value) == ["20150830T123600Z"])
        #expect(headers.fields.filter { $0.name.lowercased() == "authorization" }.count == 1)
    }

    @Test func aCallerSuppliedContentSHA256IsThePayloadHash() throws {
        let hash = String(repeating: "ab", count: 32)
        let request = try SignableRequest(
            method: "PUT", url: "https://example.com/", headers: [("X-Amz-Content-SHA256", hash)], payload: .bytes([1, 2]))
        let signed = try signer.signHeaders(request, date: exampleDate)
        #expect(signed.canonicalRequest.hasSuffix("\n" + hash))
        #expect(signed.signedHeaders == "host;x-amz-content-sha256;x-amz-date")
    }

    @Test func aMalformedCallerSuppliedHashIsRejected() throws {
        let request = try SignableRequest(method: "PUT", url: "https://example.com/", headers: [("x-amz-content-sha256", "nope")])
        #expect(throws: SigningError.invalidPayloadHash("nope")) { try signer.signHeaders(request, date: exampleDate) }
    }

    /// 64 bytes are not enough: each must be a lowercase hex digit (SigV4's hex encoding).
    @Test func sixtyFourBytesThatAreNotLowercaseHexAreRejected() throws {
        for hash in [String(repeating: "AB", count: 32), String(repeating: "a", count: 63) + "g", String(repeating: "a", count: 62) + "é"] {
            #expect(hash.utf8.count == 64)
            let request = try SignableRequest(method: "PUT", url: "https://example.com/", headers: [("x-amz-content-sha256", hash)])
            #expect(throws: SigningError.invalidPayloadHash(hash)) { try signer.signHeaders(request, date: exampleDate) }
        }
    }

    @Test func payloadHashes() throws {
        let body = Array("Param1=value1".utf8)
        for (payload, hash) in [
            (Payload.empty, PayloadHash.emptySHA256), (.bytes(body), SHA256Hasher.hash(body).hex), (.unsigned, "UNSIGNED-PAYLOAD"),
        ] {
            let request = try SignableRequest(method: "POST", url: "https://example.com/", payload: payload)
            #expect(try signer.signHeaders(request, date: exampleDate).canonicalRequest.hasSuffix("\n" + hash))
        }
    }

    @Test func s3HeaderSigningAddsASignedContentHashHeader() throws {
        let s3 = SigV4Signer(credentials: exampleCredentials, region: "us-east-1", service: "s3")
        let signed = try s3.signHeaders(try SignableRequest(method: "GET", url: "https://b.s3.amazonaws.com/k"), date: exampleDate)
        #expect(signed.signedHeaders == "host;x-amz-content-sha256;x-amz-date")
        #expect(signed.signable.headers.first(named: "x-amz-content-sha256") == PayloadHash.emptySHA256)
    }

    @Test(arguments: [0, -1, 604_801])
    func presignRejectsExpiryOutOfRange(_ expires: Int) throws {
        let request = try SignableRequest(method: "GET", url: "https://example.com/")
        #expect(throws: SigningError.expiresOutOfRange(expires)) {
            try signer.presign(request, expires: expires, date: exampleDate)
        }
    }

    @Test func presignKeepsTheCallerQueryByteForByte() throws {
        let request = try SignableRequest(method: "GET", url: "https://example.com/p?b=%2f&a=1")
        let signed = try signer.presign(request, expires: 1, date: exampleDate)
        #expect(signed.signedURL?.hasPrefix("https://example.com/p?b=%2f&a=1&X-Amz-Algorithm=AWS4-HMAC-SHA256&") == true)
        #expect(signed.signedURL?.contains("&X-Amz-Expires=1&") == true)
        #expect(signed.signedURL?.hasSuffix("&X-Amz-Signature=" + signed.signature) == true)
        #expect(signed.authorization == nil)
    }

    @Test func missingCredentialsAreReported() throws {
        let empty = SigV4Signer(
            credentials: AWSCredentials(accessKeyId: "", secretAccessKey: "x"), region: "us-east-1", service: "s")
        let request = try SignableRequest(method: "GET", url: "https://example.com/")
        #expect(throws: SigningError.missingCredentials("access key id is empty")) {
            try empty.signHeaders(request, date: exampleDate)
        }
    }

    @Test func aRequestWithoutHostOrAuthorityCannotBeSigned() throws {
        let request = try SignableRequest(method: "GET", authority: nil, path: "/", query: "", headers: [])
        #expect(throws: SigningError.missingHost) { try signer.signHeaders(request, date: exampleDate) }
    }

    @Test func credentialsNeverPrintTheirSecrets() {
        let credentials = AWSCredentials(accessKeyId: "AKID", secretAccessKey: "SECRET-VALUE", sessionToken: "TOKEN-VALUE")
        for text in ["\(credentials)", String(reflecting: credentials), "\([credentials])"] {
            #expect(!text.contains("SECRET-VALUE") && !text.contains("TOKEN-VALUE"))
            #expect(text.contains("AKID"))
        }
    }

    @Test func fileBodiesHashInChunksToTheSameDigest() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("multiauth-body-\(UUID().uuidString)").path
        let body = try SecureRandom.bytes(count: 700_001)
        #expect(FileManager.default.createFile(atPath: path, contents: Data(body)))
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(try await PayloadHash.sha256(ofFileAt: path) == SHA256Hasher.hash(body).hex)
    }

    @Test func anUnreadableBodyFileIsATypedError() async {
        await #expect(throws: SigningError.unreadableBody(path: "/nonexistent/body", reason: "no such file")) {
            try await PayloadHash.sha256(ofFileAt: "/nonexistent/body")
        }
    }
}
