import Foundation
import HTTPTypes
import IntegrationSupport
import MultiAuthCore
import MultiAuthCurl
import MultiAuthSigV4
import Testing

/// `multiauth request --chunked` against the verifying API server, which decodes aws-chunked
/// bodies and checks every chunk signature, the checksum trailer and its signature.
@Suite(.timeLimit(.minutes(5)), .enabled(if: Peers.available, Peers.reason)) struct ChunkedUploadTests {
    var iamEnvironment: [String: String] { ["AWS_ACCESS_KEY_ID": Peers.keyId, "AWS_SECRET_ACCESS_KEY": Peers.secret] }

    @Test(arguments: [[], ["--trailer", "crc32"], ["--trailer", "sha256"], ["--trailer", "sha256", "--unsigned-chunks"]])
    func everyModeIsAcceptedByTheVerifyingServer(extra: [String]) async throws {
        let path = try TestFiles.file(bytes: 300_001)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let run = try await CLI.run(
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
        let request = try HTTPRequest(method: .put, wireURL: url)
        var upload = try signer.signStreaming(request, decodedLength: 20_000, chunkSize: 16_384, mode: .signedChunks, date: .now())
        let payload = [UInt8](repeating: 0x41, count: 20_000)
        var body = upload.frame(Array(payload[..<16_384])) + upload.frame(Array(payload[16_384...])) + upload.finish()
        body[200] ^= 1  // inside the first chunk's data
        let response = try await CurlHTTPClient().send(try upload.seed.signedRequest(), body: .bytes(body))
        #expect(response.status == 400)
        #expect(String(decoding: response.body, as: UTF8.self).contains("chunk signature mismatch"))
    }

    @Test func badChunkedArgumentsAreUsageErrors() async throws {
        let path = try TestFiles.file(bytes: 10)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let base = ["request", Peers.api + "/iam/x", "--region", "us-east-1", "--service", "s3", "--chunked"]
        #expect(try await CLI.run(base + ["--data-binary", "@" + path]).status == 2)  // no --auth iam
        #expect(try await CLI.run(base + ["--auth", "iam", "-d", "text"], environment: iamEnvironment).status == 2)
        let small = try await CLI.run(base + ["--auth", "iam", "--data-binary", "@" + path, "--chunk-size", "4096"], environment: iamEnvironment)
        #expect(small.status == 2)  // a usage error naming the range, like the other bad numbers
        #expect(small.stderr.contains("--chunk-size") && small.stderr.contains("8192"))
        #expect(try await CLI.run(base + ["--auth", "iam", "--data-binary", "@" + path, "--unsigned-chunks"], environment: iamEnvironment).status == 2)
    }
}

/// Bodies through the authorization layer: a chunked upload is an ordinary IAM call (retried,
/// re-signed after clock skew), standard input is spooled and replayed, and bad bodies get
/// typed errors with nothing left behind.
@Suite(.timeLimit(.minutes(5)), .enabled(if: Peers.available, Peers.reason)) struct RequestBodyTests {
    var iamEnvironment: [String: String] { ["AWS_ACCESS_KEY_ID": Peers.keyId, "AWS_SECRET_ACCESS_KEY": Peers.secret] }

    /// The SHA-256 of a file from coreutils' `sha256sum` (not our own code).
    @Test func aChunkedUploadRecoversFromAServerClockTwentyMinutesAhead() async throws {
        let path = try TestFiles.file(bytes: 100_000)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let run = try await CLI.run(
            ["request", Peers.skewedAPI + "/iam/chunked-skew", "--auth", "iam", "--region", "us-east-1", "--service", "s3",
             "--fail", "-v", "--data-binary", "@" + path, "--chunked", "--chunk-size", "16384", "--trailer", "crc32"],
            environment: iamEnvironment)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("signing time rejected; signing again"))
        let echo = try Peers.echo(run)
        #expect(echo.headers.contains(["x-amz-decoded-content-length", "100000"]))
    }

    @Test func standardInputIsSpooledAndReplayedAfterA503() async throws {
        let id = UUID().uuidString
        let text = String(repeating: "line from standard input\n", count: 4_000)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("multiauth-spool-\(id)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let reference = folder + "/reference"
        try Data(text.utf8).write(to: URL(fileURLWithPath: reference))
        let spoolDirectory = folder + "/tmp"
        try FileManager.default.createDirectory(atPath: spoolDirectory, withIntermediateDirectories: true)
        let run = try await CLI.run(
            ["request", Peers.api + "/flaky/\(id)/1", "--data-binary", "@-", "--retries", "3", "--fail", "-v"],
            environment: ["TMPDIR": spoolDirectory], input: text)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("retrying"))
        let echo = try Peers.echo(run)
        #expect(echo.bodySha256 == (try await TestFiles.referenceSHA256(of: reference)))
        #expect(try FileManager.default.contentsOfDirectory(atPath: spoolDirectory).isEmpty, "the spool file was left behind")
    }

    @Test func standardInputIsHashedAndSignedForIAM() async throws {
        let run = try await CLI.run(
            ["request", "-X", "PUT", Peers.api + "/iam/stdin", "--auth", "iam", "--region", "us-east-1", "--service", "execute-api",
             "-d", "@-", "--fail"],
            environment: iamEnvironment, input: "{\"n\": 1}")
        #expect(run.status == 0, "\(run.stderr)")
        let echo = try Peers.echo(run)
        // The server recomputed the signature with botocore and checked x-amz-content-sha256 against the body.
        #expect(echo.bodyLength == 8)
        #expect(echo.headers.contains { $0.first?.lowercased() == "x-amz-content-sha256" })
    }

    @Test func aBodyFileThatIsMissingGetsATypedErrorNamingIt() async throws {
        let run = try await CLI.run(["request", Peers.api + "/open/x", "--data-binary", "@/nonexistent/body.bin"])
        #expect(run.status != 0)
        #expect(run.stderr.contains("/nonexistent/body.bin"), "\(run.stderr)")
        #expect(run.stderr.split(separator: "\n").count == 1)
    }

    /// `-o FILE` was truncated on a connection failure, and written with an error body under --fail.
    @Test func anOutputFileIsReplacedOnlyBySuccess() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("multiauth-o-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let file = folder + "/out.json"
        try Data("keep me".utf8).write(to: URL(fileURLWithPath: file))
        let down = try await CLI.run(["request", "http://127.0.0.1:9/x", "-o", file, "--retries", "1"])
        #expect(down.status == 7)
        let failed = try await CLI.run(["request", Peers.api + "/flaky/\(UUID().uuidString)/5", "-o", file, "--retries", "1", "--fail"])
        #expect(failed.status == 22)
        #expect(try String(contentsOfFile: file, encoding: .utf8) == "keep me")
        let good = try await CLI.run(["request", Peers.api + "/open/o", "-o", file, "--fail"])
        #expect(good.status == 0, "\(good.stderr)")
        #expect(try String(contentsOfFile: file, encoding: .utf8).contains("\"target\": \"/open/o\""))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["out.json"], "a partial file was left behind")
        // Devices and links are written in place: renaming over them would replace them.
        #expect(try await CLI.run(["request", Peers.api + "/open/null", "-o", "/dev/null"]).status == 0)
        #expect(try FileManager.default.attributesOfItem(atPath: "/dev/null")[.type] as? FileAttributeType == .typeCharacterSpecial)
        let link = folder + "/link.json"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: file)
        #expect(try await CLI.run(["request", Peers.api + "/open/linked", "-o", link]).status == 0)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == file)
        #expect(try String(contentsOfFile: file, encoding: .utf8).contains("/open/linked"))
    }

    @Test func headerValuesWithLineBreaksAreRefused() async throws {
        let run = try await CLI.run(["request", Peers.api + "/open/x", "-H", "X-A: a\r\nInjected: b"])
        #expect(run.status == 2, "\(run.stderr)")
        #expect(run.stderr.contains("X-A"))
    }
}
