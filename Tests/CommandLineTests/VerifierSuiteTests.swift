import Foundation
import IntegrationSupport
import MultiAuthSigningVectors
import MultiAuthSigV4
import Testing

/// The verifier, independent of our signer's output: every signed request of aws-c-auth's
/// v4 and v4a suites (header and presigned) is accepted, and rejected with another secret,
/// whether the secret comes from a lookup function or a table.
@Suite(.timeLimit(.minutes(5)), .enabled(if: Paths.exists(Paths.sharedSuite), "the AWS signing suites are not present (MULTIAUTH_SIGNING_SUITES)"))
struct VerifierSuiteTests {
    static func folders(_ suite: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: Paths.sharedSuite.appendingPathComponent(suite).path)) ?? []).sorted().map {
            "\(suite)/\($0)"
        }
    }

    @Test(arguments: folders("v4") + folders("v4a"))
    func officialSignedRequestsVerify(name: String) async throws {
        let folder = Paths.sharedSuite.appendingPathComponent(name)
        let context = try SigningContext.load(path: folder.appendingPathComponent("context.json").path)
        let secret = context.awsCredentials.secretAccessKey
        for mode in ["header", "query"] {
            guard let data = FileManager.default.contents(atPath: folder.appendingPathComponent("\(mode)-signed-request.txt").path) else {
                #expect(name.hasPrefix("v4a/"), "\(name): no \(mode)-signed-request.txt")
                continue
            }
            var received = try HTTPRequestText(parsing: Array(data)).signableRequest()
            received.payload = context.payload(body: try HTTPRequestText(parsing: Array(data)).body)
            let now = try SigningDate(parsing: "20150830T124000Z")
            for (key, accepted) in [(secret, true), ("another-secret", false)] {
                let credential = VerifierCredential(secretAccessKey: key)
                let verifiers = [
                    SigV4Verifier(region: context.region, service: context.service, options: context.options) { _ in credential },
                    SigV4Verifier(region: context.region, service: context.service, options: context.options, credentials: ["AKIDEXAMPLE": credential]),
                ]
                for verifier in verifiers {
                    let result = await verifier.verify(received, now: now)
                    if accepted {
                        #expect(result == .success("AKIDEXAMPLE"), "\(name) \(mode): \(result)")
                    } else {
                        #expect(result == .failure(.signatureMismatch), "\(name) \(mode)")
                    }
                }
            }
        }
    }
}
