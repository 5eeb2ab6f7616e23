import Foundation
import IntegrationSupport
import MultiAuthCrypto
import MultiAuthSigV4
import Testing

/// aws-chunked bodies in all three streaming modes, compared byte for byte (by length and
/// SHA-256) with scripts/oracles/aws_chunked.py: botocore's AwsChunkedWrapper for the
/// unsigned trailer mode, botocore's S3 signer for every seed signature, and the S3 API
/// reference's chunk and trailer formulas for the signed modes.
@Suite(.timeLimit(.minutes(5))) struct StreamingOracleTests {
    struct Case: Codable {
        let mode: String, checksum: String?, size: Int, chunk_size: Int, method: String, url: String
        let headers: [[String]], amz_date: String, region: String, secret: String
    }

    struct Answer: Codable { let seed: String, length: Int, sha256: String }

    static let secret = "streaming-oracle-secret-not-real-0000000"
    static let date = SigningDate(secondsSince1970: 1_795_000_000)

    static func mode(_ name: String, _ checksum: TrailingChecksum?) -> StreamingMode {
        switch (name, checksum) {
        case ("signed-trailer", .some(let checksum)): .signedChunksWithTrailer(checksum)
        case ("unsigned-trailer", .some(let checksum)): .unsignedChunksWithTrailer(checksum)
        default: .signedChunks
        }
    }

    @Test func everyModeMatchesTheOracle() async throws {
        let signer = SigV4Signer(credentials: AWSCredentials(accessKeyId: "AKIDORACLE", secretAccessKey: Self.secret), region: "eu-west-1", service: "s3")
        var cases: [(Case, [UInt8], Int)] = []
        var seeds: [String] = []
        let combinations: [(String, TrailingChecksum?)] = [("signed", nil)]
            + TrailingChecksum.allCases.flatMap { [("signed-trailer", $0), ("unsigned-trailer", $0)] }
        for (name, checksum) in combinations {
            for (size, chunkSize) in [(0, 8192), (8192, 8192), (100_000, 8192), (65_536 * 2 + 17, 65_536), (1, 16_384)] {
                let mode = Self.mode(name, checksum)
                let request = try SignableRequest(method: "PUT", url: "https://bucket.s3.eu-west-1.amazonaws.com/dir/key-\(size).bin",
                                                  headers: [("Host", "bucket.s3.eu-west-1.amazonaws.com")])
                var upload = try signer.signStreaming(request, decodedLength: size, chunkSize: chunkSize, mode: mode, date: Self.date)
                let payload = (0..<size).map { UInt8($0 % 251) }
                var body: [UInt8] = []
                for start in stride(from: 0, to: size, by: chunkSize) { body += upload.frame(Array(payload[start..<min(start + chunkSize, size)])) }
                body += upload.finish()
                let headers = upload.seed.signable.headers.filter { $0.name.lowercased() != "authorization" }.map { [$0.name, $0.value] }
                #expect(upload.seed.signable.headers.first(named: "content-length") == String(body.count))
                cases.append((Case(mode: name, checksum: checksum?.rawValue, size: size, chunk_size: chunkSize, method: "PUT",
                                   url: request.url, headers: headers, amz_date: Self.date.amzDate, region: "eu-west-1", secret: Self.secret),
                              body, cases.count))
                seeds.append(upload.seed.signature)
            }
        }
        let input = try cases.map { String(decoding: try JSONEncoder().encode($0.0), as: UTF8.self) }.joined(separator: "\n") + "\n"
        let answers = try await Peers.python("scripts/oracles/aws_chunked.py", [], input: input).split(separator: "\n")
        try #require(answers.count == cases.count)
        for ((testCase, body, index), line) in zip(cases, answers) {
            let answer = try JSONDecoder().decode(Answer.self, from: Data(line.utf8))
            let label = "\(testCase.mode) \(testCase.checksum ?? "-") \(testCase.size)/\(testCase.chunk_size)"
            #expect(seeds[index] == answer.seed, "seed: \(label)")
            #expect(body.count == answer.length, "length: \(label)")
            #expect(SHA256Hasher.hash(body).hex == answer.sha256, "body: \(label)")
        }
    }

    @Test func crc32MatchesTheCheckValueAndZlib() async throws {
        var crc = CRC32()
        crc.update(Array("123456789".utf8))
        #expect(crc.value == 0xCBF4_3926)  // the published CRC-32/ISO-HDLC check value
        let data: [UInt8] = (0..<100_003).map { (index: Int) -> UInt8 in UInt8(truncatingIfNeeded: index &* 7 &+ 3) }
        var split = CRC32()
        split.update(Array(data[0..<5]))
        split.update(Array(data[5...]))
        let zlib = try await Peers.python("scripts/oracles/crc32.py", [], input: Data(data).base64EncodedString())
        #expect(String(split.value) == zlib.trimmingCharacters(in: .whitespacesAndNewlines))
    }
}
