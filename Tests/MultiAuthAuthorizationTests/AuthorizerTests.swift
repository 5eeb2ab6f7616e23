import Foundation
import HTTPTypes
import MultiAuthAuthorization
import MultiAuthCore
import MultiAuthCredentials
import MultiAuthSigV4
import Testing

/// The outbound authorizers, one per auth mode, with no network. The SigV4 expectation is the
/// example of AWS's "Create a signed AWS API request" documentation (IAM ListUsers, the
/// documentation's example key, 2015-08-30 12:36:00 UTC), whose signature AWS publishes.
struct AuthorizerTests {
    static let listUsers = HTTPRequest(
        method: .get, scheme: "https", authority: "iam.amazonaws.com", path: "/?Action=ListUsers&Version=2010-05-08",
        headerFields: [.contentType: "application/x-www-form-urlencoded; charset=utf-8"])
    static let exampleKey = AWSCredentials(accessKeyId: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY")
    static let date = try! SigningDate(parsing: "20150830T123600Z")

    @Test func awsIAMSignsAsAWSDocumentsIt() async throws {
        let authorizer = IAMAuthorizer(credentials: StaticCredentialsProvider(Self.exampleKey), region: "us-east-1", service: "iam")
        let signed = try await authorizer.authorize(Self.listUsers, body: .empty, at: Self.date).request
        #expect(signed.headerFields[.authorization] == "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/iam/aws4_request, "
            + "SignedHeaders=content-type;host;x-amz-date, Signature=5d672d79c15b13162d9279b0855cfba6789a8edb4c82c400e06b5924a6f2b5d7")
        #expect(signed.headerFields[HTTPField.Name("X-Amz-Date")!] == "20150830T123600Z")
    }

    @Test func expiredCredentialsAreAnErrorNotARequest() async {
        let provider = StaticCredentialsProvider(Self.exampleKey, expiration: Date(timeIntervalSince1970: 1_000))
        let authorizer = IAMAuthorizer(credentials: provider, region: "us-east-1", service: "iam")
        await #expect {
            _ = try await authorizer.authorize(Self.listUsers, body: .empty, at: Self.date)
        } throws: { error in
            guard case .credentials(let cause)? = (error as? AuthorizationError)?.kind else { return false }
            return !"\(cause)".contains(Self.exampleKey.secretAccessKey)
        }
    }

    @Test func apiKeyGoesInXAPIKey() async throws {
        let authorized = try await APIKeyAuthorizer(key: .fixed("da2-key")).authorize(Self.listUsers, body: .empty, at: Self.date)
        #expect(authorized.request.headerFields[HTTPField.Name("x-api-key")!] == "da2-key")
        #expect(authorized.request.headerFields[.authorization] == nil)
    }

    @Test func tokensGoInAuthorizationRawOrBearer() async throws {
        let raw = try await TokenAuthorizer(token: .fixed("eyJ.a.b")).authorize(Self.listUsers, body: .empty, at: Self.date)
        #expect(raw.request.headerFields[.authorization] == "eyJ.a.b")
        let bearer = try await TokenAuthorizer(token: .fixed("eyJ.a.b"), bearer: true).authorize(Self.listUsers, body: .empty, at: Self.date)
        #expect(bearer.request.headerFields[.authorization] == "Bearer eyJ.a.b")
    }

    /// A secret with a line break would split the header (request smuggling); it is refused,
    /// and the refusal does not quote it.
    @Test func aSecretThatWouldSplitAHeaderIsRefused() async {
        for authorizer in [APIKeyAuthorizer(key: .fixed("key\r\nX-Evil: 1")) as any RequestAuthorizer, TokenAuthorizer(token: .fixed("t\nX-Evil: 1"))] {
            await #expect {
                _ = try await authorizer.authorize(Self.listUsers, body: .empty, at: Self.date)
            } throws: { error in
                guard case .invalidSecret? = (error as? AuthorizationError)?.kind else { return false }
                return !"\(error)".contains("X-Evil")
            }
        }
    }
}
