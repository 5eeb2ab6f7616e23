import MultiAuthSigV4
import Testing

/// The worked examples of the Amazon S3 API reference ("Signature Calculations for the
/// Authorization Header" and "Query string request authentication"): published signatures.
@Suite(.timeLimit(.minutes(5))) struct S3DocumentationExamples {
    static let credentials = AWSCredentials(
        accessKeyId: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY")
    static let date = SigningDate(secondsSince1970: 1_369_353_600)  // 2013-05-24T00:00:00Z
    let signer = SigV4Signer(credentials: credentials, region: "us-east-1", service: "s3")

    @Test(arguments: [
        ("https://examplebucket.s3.amazonaws.com/test.txt", [("Range", "bytes=0-9")],
         "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41"),
        ("https://examplebucket.s3.amazonaws.com/?lifecycle", [],
         "fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543"),
        ("https://examplebucket.s3.amazonaws.com/?max-keys=2&prefix=J", [],
         "34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7"),
    ])
    func headerSigning(url: String, headers: [(String, String)], signature: String) throws {
        let request = try SignableRequest(
            method: "GET", url: url, headers: HTTPHeaderList(headers.map { .init(name: $0.0, value: $0.1) }))
        #expect(try signer.signHeaders(request, date: Self.date).signature == signature)
    }

    @Test func presignedGet() throws {
        let request = try SignableRequest(method: "GET", url: "https://examplebucket.s3.amazonaws.com/test.txt")
        let signed = try signer.presign(request, expires: 86_400, date: Self.date)
        #expect(signed.signature == "aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404")
        #expect(signed.canonicalRequest.hasSuffix("\nhost\nUNSIGNED-PAYLOAD"))
    }
}
