import Foundation
import IntegrationSupport
import MultiAuthSigV4
import Testing

/// Signs 240 generated requests (execute-api, appsync, s3; header and query mode) and
/// compares every stage with botocore's answers, computed by scripts/oracles/botocore_sigv4.py.
@Suite(.timeLimit(.minutes(5))) struct BotocoreCrossCheckTests {
    struct OracleCase: Decodable {
        let id: Int
        let service: String
        let region: String
        let mode: String
        let method: String
        let url: String
        let headers: [[String]]
        let body: String
        let token: String?
        let expires: Int
        let date: String
        let canonicalRequest: String
        let stringToSign: String
        let signature: String
    }

    static func oracleCases() throws -> [OracleCase] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Paths.python)
        process.arguments = Paths.pythonArguments + [
            Paths.repository.appendingPathComponent("scripts/oracles/botocore_sigv4.py").path, "--count", "240",
        ]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw OracleUnavailable(reason: "botocore oracle exited \(process.terminationStatus): run scripts/test (it installs botocore into .venv)")
        }
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return try decoder.decode([OracleCase].self, from: data)
    }

    struct OracleUnavailable: Error, CustomStringConvertible { let reason: String; var description: String { reason } }

    @Test func twoHundredFortyGeneratedRequestsMatchBotocoreAtEveryStage() throws {
        let cases = try Self.oracleCases()
        #expect(cases.count == 240)
        #expect(Set(cases.map(\.service)) == ["execute-api", "appsync", "s3"])
        var mismatches = 0
        for oracle in cases {
            let result = try sign(oracle)
            let stages = [
                ("canonical request", oracle.canonicalRequest, result.canonicalRequest),
                ("string to sign", oracle.stringToSign, result.stringToSign),
                ("signature", oracle.signature, result.signature),
            ]
            for (stage, expected, actual) in stages where expected != actual {
                mismatches += 1
                Issue.record("case \(oracle.id) \(oracle.mode) \(oracle.url): \(stage)\nbotocore:\n\(expected)\nours:\n\(actual)")
            }
        }
        #expect(mismatches == 0)
    }

    private func sign(_ oracle: OracleCase) throws -> SigningResult {
        let headers = HTTPHeaderList(oracle.headers.map { .init(name: $0[0], value: $0[1]) })
        let body = Array(oracle.body.utf8)
        let request = try SignableRequest(
            method: oracle.method, url: oracle.url, headers: headers, payload: body.isEmpty ? .empty : .bytes(body))
        let credentials = AWSCredentials(
            accessKeyId: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
            sessionToken: oracle.token)
        let signer = SigV4Signer(credentials: credentials, region: oracle.region, service: oracle.service)
        let date = try SigningDate(parsing: oracle.date)
        return oracle.mode == "query"
            ? try signer.presign(request, expires: oracle.expires, date: date)
            : try signer.signHeaders(request, date: date)
    }
}
