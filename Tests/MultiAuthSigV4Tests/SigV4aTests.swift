import MultiAuthCrypto
import MultiAuthSigV4
import Testing

/// SigV4a: key derivation against the published public key, signatures that verify, and
/// region-set validation. ECDSA is randomized, so signature bytes are never compared.
@Suite(.timeLimit(.minutes(5))) struct SigV4aTests {
    /// The public key of aws-c-auth's v4a suite (`public-key.json`) for the documentation's key pair.
    static let suiteX = "b6618f6a65740a99e650b33b6b4b5bd0d43b176d721a3edfea7e7d2d56d936b1"
    static let suiteY = "865ed22a7eadc9c5cb9d2cbaca1b3699139fedc5043dc6661864218330c8e518"

    @Test func derivedKeyMatchesThePublishedPublicKey() throws {
        let key = try SigV4aKeyDerivation.derive(
            accessKeyId: "AKIDEXAMPLE", secret: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY")
        #expect(Hex.encode(key.publicKey.x) == Self.suiteX)
        #expect(Hex.encode(key.publicKey.y) == Self.suiteY)
    }

    @Test func headerAndQuerySignaturesVerifyOverTheStringToSign() throws {
        let signer = try SigV4Signer(credentials: exampleCredentials, regionSet: "us-east-1,us-west-2", service: "s3")
        let key = try SigV4aKeyDerivation.derive(accessKeyId: "AKIDEXAMPLE", secret: exampleCredentials.secretAccessKey)
        for mode in ["header", "query"] {
            let request = try SignableRequest(method: "GET", url: "https://bucket.s3.amazonaws.com/key?x=1")
            let result = mode == "header"
                ? try signer.signHeaders(request, date: exampleDate)
                : try signer.presign(request, expires: 60, date: exampleDate)
            #expect(result.stringToSign.hasPrefix("AWS4-ECDSA-P256-SHA256\n20150830T123600Z\n20150830/s3/aws4_request\n"))
            let der = try Hex.decode(result.signature)
            #expect(P256SigningKey.verify(
                signature: der, digest: SHA256Hasher.hash(result.stringToSignBytes), publicX: key.publicKey.x, publicY: key.publicKey.y))
            #expect(!P256SigningKey.verify(
                signature: der, digest: SHA256Hasher.hash(Array("other".utf8)), publicX: key.publicKey.x, publicY: key.publicKey.y))
        }
    }

    @Test func theRegionSetIsSignedAsAHeaderOrAQueryParameter() throws {
        let signer = try SigV4Signer(credentials: exampleCredentials, regionSet: "*", service: "service")
        let request = try SignableRequest(method: "GET", url: "https://example.amazonaws.com/")
        let header = try signer.signHeaders(request, date: exampleDate)
        #expect(header.signedHeaders == "host;x-amz-date;x-amz-region-set")
        #expect(header.signable.headers.first(named: "x-amz-region-set") == "*")
        #expect(header.authorization?.hasPrefix("AWS4-ECDSA-P256-SHA256 Credential=AKIDEXAMPLE/20150830/service/aws4_request,") == true)
        let query = try signer.presign(request, expires: 60, date: exampleDate)
        #expect(query.canonicalRequest.contains("&X-Amz-Region-Set=%2A&"))
    }

    @Test(arguments: ["", "us east-1", "US-EAST-1", "us-east-1,", ",us-west-2", "us_east_1"])
    func malformedRegionSetsAreRejected(_ set: String) {
        #expect(throws: SigningError.invalidRegionSet(set)) {
            try SigV4Signer(credentials: exampleCredentials, regionSet: set, service: "s3")
        }
    }

    @Test(arguments: ["us-east-1", "us-east-1,us-west-2", "*", "us-*"])
    func wellFormedRegionSetsAreAccepted(_ set: String) throws {
        _ = try SigV4Signer(credentials: exampleCredentials, regionSet: set, service: "s3")
    }

    @Test func candidatesAboveTheOrderMinusTwoAreRejected() throws {
        let n = try Hex.decode("ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551")
        var nMinus2 = n
        nMinus2[31] -= 2
        var nMinus1 = n
        nMinus1[31] -= 1
        #expect(try P256SigningKey.fromCandidate(nMinus1) == nil)
        #expect(try P256SigningKey.fromCandidate(n) == nil)
        #expect(try P256SigningKey.fromCandidate(nMinus2) != nil)
        #expect(try P256SigningKey.fromCandidate([UInt8](repeating: 0, count: 32)) != nil)
    }
}
