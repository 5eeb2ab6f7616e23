import MultiAuthCrypto
import MultiAuthSigV4
import Testing

/// The S3 API reference's worked example of a streaming upload ("Signature Calculations
/// for the Authorization Header: Transferring Payload in Multiple Chunks"): 66,560 bytes of
/// 'a' in 64 KiB chunks, with its published seed and chunk signatures.
@Suite(.timeLimit(.minutes(5))) struct ChunkSignerTests {
    let signer = SigV4Signer(
        credentials: AWSCredentials(accessKeyId: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
        region: "us-east-1", service: "s3")
    let date = SigningDate(secondsSince1970: 1_369_353_600)

    @Test func theDocumentedExample() throws {
        let request = try SignableRequest(
            method: "PUT", url: "https://s3.amazonaws.com/examplebucket/chunkObject.txt",
            headers: [("Host", "s3.amazonaws.com"), ("x-amz-storage-class", "REDUCED_REDUNDANCY")])
        var upload = try signer.signStreaming(request, decodedLength: 66_560, chunkSize: 65_536, date: date)
        #expect(upload.seed.signature == "4f232c4386841ef735655705268965c44a0e4690baa4adea153f7db9fa80a0a9")
        #expect(upload.seed.signable.headers.first(named: "content-length") == "66824")
        let body = [UInt8](repeating: UInt8(ascii: "a"), count: 66_560)
        let first = upload.frame(Array(body[0..<65_536]))
        let second = upload.frame(Array(body[65_536...]))
        let last = upload.finish()
        #expect(first.prefix(86) == ArraySlice("10000;chunk-signature=ad80c730a21e5b8d04586a2213dd63b9a0e99e0e2307b0ade35a65485a288648".utf8))
        #expect(second.prefix(84) == ArraySlice("400;chunk-signature=0055627c9e194cb4542bae2aa5492e3c1575bbb81b612b7d234b86a503ef5497".utf8))
        #expect(last == Array("0;chunk-signature=b6c6ea8a5354eaf15b3cb7646744f4275b71ea724fed81ceb9323e279d449df9\r\n\r\n".utf8))
        #expect(first.count + second.count + last.count == 66_824)
    }

    /// The same example through the header-only form a sender uses to avoid copying chunks.
    @Test func chunkHeadersCarryTheDocumentedSignatures() throws {
        let request = try SignableRequest(
            method: "PUT", url: "https://s3.amazonaws.com/examplebucket/chunkObject.txt",
            headers: [("Host", "s3.amazonaws.com"), ("x-amz-storage-class", "REDUCED_REDUNDANCY")])
        var upload = try signer.signStreaming(request, decodedLength: 66_560, chunkSize: 65_536, date: date)
        let body = [UInt8](repeating: UInt8(ascii: "a"), count: 66_560)
        let first = body.withUnsafeBytes { upload.chunkHeader(for: UnsafeRawBufferPointer(rebasing: $0[0..<65_536])) }
        let second = body.withUnsafeBytes { upload.chunkHeader(for: UnsafeRawBufferPointer(rebasing: $0[65_536...])) }
        #expect(first == Array("10000;chunk-signature=ad80c730a21e5b8d04586a2213dd63b9a0e99e0e2307b0ade35a65485a288648\r\n".utf8))
        #expect(second == Array("400;chunk-signature=0055627c9e194cb4542bae2aa5492e3c1575bbb81b612b7d234b86a503ef5497\r\n".utf8))
        #expect(upload.finish() == Array("0;chunk-signature=b6c6ea8a5354eaf15b3cb7646744f4275b71ea724fed81ceb9323e279d449df9\r\n\r\n".utf8))
        #expect(AWSChunkedUpload.chunkEnd == [0x0d, 0x0a])
    }

    @Test func chunksBelowEightKibibytesAreRefused() throws {
        let request = try SignableRequest(method: "PUT", url: "https://b.s3.amazonaws.com/k")
        #expect(throws: SigningError.invalidChunkSize(4096)) {
            try signer.signStreaming(request, decodedLength: 10, chunkSize: 4096, date: date)
        }
    }
}
