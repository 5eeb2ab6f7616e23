import Foundation
import MultiAuthCore
@testable import MultiAuthSigV4
import Testing

/// SigV4a verification on aws-c-auth's own signed `get-vanilla` requests (the whole v4a
/// suite runs in CommandLineTests.VerifierSuiteTests): ECDSA signatures are checked with the
/// public key derived from the secret, never recomputed.
@Suite(.timeLimit(.minutes(5))) struct SigV4aVerifierTests {
    /// In the folder `MULTIAUTH_SIGNING_SUITES` names (scripts/test sets it), else ../shared/vectors.
    static let folder = (ProcessInfo.processInfo.environment["MULTIAUTH_SIGNING_SUITES"].map { URL(fileURLWithPath: $0) }
        ?? URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("../shared/vectors")).appendingPathComponent("aws-signing-test-suite/v4a/get-vanilla").standardizedFileURL
    static let now = SigningDate(secondsSince1970: 1_440_938_160 + 60)

    static func signed(_ mode: String) throws -> SignableRequest {
        let data = try #require(FileManager.default.contents(atPath: folder.appendingPathComponent("\(mode)-signed-request.txt").path))
        return try HTTPRequestText(parsing: Array(data)).signableRequest()
    }

    static func verifier(region: String = "us-east-1", secret: String = exampleCredentials.secretAccessKey) -> SigV4Verifier {
        SigV4Verifier(region: region, service: "service") { _ in VerifierCredential(secretAccessKey: secret) }
    }

    @Test(.enabled(if: FileManager.default.fileExists(atPath: folder.path), "the shared v4a suite is not present"), arguments: ["header", "query"])
    func officialSignaturesVerifyAndNothingElseDoes(mode: String) async throws {
        let request = try Self.signed(mode)
        #expect(await Self.verifier().verify(request, now: Self.now) == .success("AKIDEXAMPLE"))
        #expect(await Self.verifier(secret: "another-secret").verify(request, now: Self.now) == .failure(.signatureMismatch))
        #expect(await Self.verifier(region: "eu-west-1").verify(request, now: Self.now) == .failure(.scopeMismatch("region set")))
        var tampered = request
        tampered.path = "/other"
        #expect(await Self.verifier().verify(tampered, now: Self.now) == .failure(.signatureMismatch))
        let late = SigningDate(secondsSince1970: Self.now.secondsSince1970 + 3 * 3600)
        #expect(await Self.verifier().verify(request, now: late) == .failure(.expired))
    }

    @Test func regionSetPatternsMatchAsTheSDKsExpandThem() {
        #expect(SigV4Verifier.region("us-east-1", matches: "*"))
        #expect(SigV4Verifier.region("us-east-1", matches: "us-*"))
        #expect(SigV4Verifier.region("us-east-1", matches: "us-*-1"))
        #expect(!SigV4Verifier.region("eu-west-1", matches: "us-*"))
        #expect(!SigV4Verifier.region("us-east-10", matches: "us-east-1"))
        #expect(SigV4Verifier.region("us-east-1", matches: "us-east-1"))
    }

    @Test func ourSigV4aSignaturesVerifyInBothForms() async throws {
        let signer = try SigV4Signer(credentials: exampleCredentials, regionSet: "us-east-1,us-west-2", service: "service")
        let request = try SignableRequest(method: "GET", authority: "example.amazonaws.com", path: "/a b", query: "x=1", headers: [("Host", "example.amazonaws.com")], payload: .empty)
        let header = try signer.signHeaders(request, date: exampleDate).signable
        let query = try signer.presign(request, expires: 300, date: exampleDate).signable
        for signed in [header, query] {
            #expect(await Self.verifier(region: "us-west-2").verify(signed, now: Self.now) == .success("AKIDEXAMPLE"))
            #expect(await Self.verifier(region: "ap-south-1").verify(signed, now: Self.now) == .failure(.scopeMismatch("region set")))
        }
    }
}
