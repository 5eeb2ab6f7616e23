import Foundation
import HTTPTransport
import SigV4
import Testing

/// `multiauth request --chunked` against the verifying API server, which decodes aws-chunked
/// bodies and checks every chunk signature, the checksum trailer and its signature.
@Suite(.enabled(if: Peers.available, Peers.reason)) struct ChunkedUploadTests {
    var iamEnvironment: [String: String] { ["AWS_ACCESS_KEY_ID": Peers.keyId, "AWS_SECRET_ACCESS_KEY": Peers.secret] }

    static func file(bytes: Int) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("multiauth-chunked-\(UUID().uuidString)").path
        try Data((0..<bytes).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test(arguments: [[], ["--trailer", "crc32"], ["--trailer", "sha256"], ["--trailer", "sha256", "--unsigned-chunks"]])
    func everyModeIsAcceptedByTheVerifyingServer(extra: [String]) throws {
        let path = try Self.file(bytes: 300_001)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let run = try CLITests.run(
            ["request", Peers.api + "/iam/upload", "--auth", "iam", "--region", "us-east-1", "--service", "s3", "--fail",
             "--data-binary", "@" + path, "--chunked", "--chunk-size", "65536"] + extra, environment: iamEnvironment)
        #expect(run.status == 0, "\(run.stderr) \(run.stdout)")
        let echo = try Peers.echo(run)
        #expect(echo.method == "PUT")
        #expect(echo.headers.contains(["x-amz-decoded-content-length", "300001"]))
    }

    @Test func aTamperedChunkIsRejectedByTheServer() async throws {
        let url = Peers.api + "/iam/tampered"
        let signer = SigV4Signer(credentials: AWSCredentials(accessKeyId: Peers.keyId, secretAccessKey: Peers.secret), region: "us-east-1", service: "s3")
        let request = try SignableRequest(method: "PUT", url: url)
        var upload = try signer.signStreaming(request, decodedLength: 20_000, chunkSize: 16_384, mode: .signedChunks, date: .now())
        let payload = [UInt8](repeating: 0x41, count: 20_000)
        var body = upload.frame(Array(payload[..<16_384])) + upload.frame(Array(payload[16_384...])) + upload.finish()
        body[200] ^= 1  // inside the first chunk's data
        let headers = upload.seed.signedRequest.headers.map { HTTPHeader(name: $0.name, value: $0.value) }
        let response = try await CurlHTTPClient().send(HTTPRequest(method: "PUT", url: url, headers: headers, body: .bytes(body)))
        #expect(response.status == 400)
        #expect(String(decoding: response.body, as: UTF8.self).contains("chunk signature mismatch"))
    }

    @Test func badChunkedArgumentsAreUsageErrors() throws {
        let path = try Self.file(bytes: 10)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let base = ["request", Peers.api + "/iam/x", "--region", "us-east-1", "--service", "s3", "--chunked"]
        #expect(try CLITests.run(base + ["--data-binary", "@" + path]).status == 2)  // no --auth iam
        #expect(try CLITests.run(base + ["--auth", "iam", "-d", "text"], environment: iamEnvironment).status == 2)
        let small = try CLITests.run(base + ["--auth", "iam", "--data-binary", "@" + path, "--chunk-size", "4096"], environment: iamEnvironment)
        #expect(small.status == 1)
        #expect(small.stderr.contains("--chunk-size"))
        #expect(try CLITests.run(base + ["--auth", "iam", "--data-binary", "@" + path, "--unsigned-chunks"], environment: iamEnvironment).status == 2)
    }
}
