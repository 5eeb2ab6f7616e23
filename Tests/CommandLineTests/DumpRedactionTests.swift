import Foundation
import HTTPTypes
import IntegrationSupport
import MultiAuthAppSync
import MultiAuthCrypto
import MultiAuthSigV4
import MultiAuthTokens
import Testing

/// `dump` (and a debugger, which reads the same mirrors) never shows a secret: each type that
/// holds one, alone and inside the signer, its result and the verifier. Before, `dump` listed
/// the stored fields whatever `description` said.
@Suite(.timeLimit(.minutes(5))) struct DumpRedactionTests {
    static let secrets = ["dump-secret-key-0000000000", "dump-session-token-1111111", "dump-client-secret-22222", "dump-refresh-33333",
                          "dump-api-key-44444"]

    static func dumped(_ value: Any) -> String {
        var text = ""
        dump(value, to: &text)
        return text
    }

    static func expectNoSecret(_ value: Any, _ what: String) {
        let text = dumped(value)
        for secret in secrets { #expect(!text.contains(secret), "\(what) dumps \(secret): \(text)") }
    }

    @Test func signingTypesDumpWithoutSecrets() throws {
        let credentials = AWSCredentials(accessKeyId: "AKIDDUMP", secretAccessKey: Self.secrets[0], sessionToken: Self.secrets[1])
        let signer = SigV4Signer(credentials: credentials, region: "us-east-1", service: "execute-api")
        let request = HTTPRequest(method: .get, scheme: "https", authority: "example.com", path: "/a?b=1")
        let result = try signer.signHeaders(request, payload: .empty, date: SigningDate(secondsSince1970: 1_700_000_000))
        let presigned = try signer.presign(request, expires: 60, date: SigningDate(secondsSince1970: 1_700_000_000))
        let verifier = SigV4Verifier(region: "us-east-1", service: "execute-api",
                                     credentials: ["AKIDDUMP": VerifierCredential(secretAccessKey: Self.secrets[0], sessionToken: Self.secrets[1])])
        let key = Array(Self.secrets[0].utf8).withUnsafeBytes { HMACSHA256Key(key: $0) }
        for (value, what) in [(credentials, "AWSCredentials"), (signer, "SigV4Signer"), (result, "SigningResult"), (presigned, "presigned SigningResult"),
                              (verifier, "SigV4Verifier"), (key, "HMACSHA256Key")] as [(Any, String)] {
            Self.expectNoSecret(value, what)
        }
        // What is not secret is still there to debug with.
        #expect(Self.dumped(signer).contains("AKIDDUMP") && Self.dumped(result).contains("x-amz-security-token:<redacted>"))
        // The pad states are as good as the key: the key dumps as its one-line description.
        #expect(Self.dumped(key) == "- HMACSHA256Key\n", "\(Self.dumped(key))")
    }

    @Test func loginAndConfigurationTypesDumpWithoutSecrets() throws {
        let tokens = AuthTokens(idToken: nil, accessToken: Self.secrets[1], refreshToken: Self.secrets[3], expiresAt: 1_700_000_000)
        let pool = try CognitoUserPoolConfiguration(userPoolId: "us-east-1_dump", clientId: "client", clientSecret: Self.secrets[2])
        let oidc = OIDCConfiguration(issuer: "https://issuer.example", clientId: "client", clientSecret: Self.secrets[2])
        let configuration = try AWSConfiguration.parse(Array("""
            {"AppSync": {"Default": {"ApiUrl": "https://a.example/graphql", "Region": "us-east-1", "AuthMode": "API_KEY", "ApiKey": "\(Self.secrets[4])"}},
             "CognitoUserPool": {"Default": {"PoolId": "us-east-1_dump", "AppClientId": "client", "AppClientSecret": "\(Self.secrets[2])", "Region": "us-east-1"}}}
            """.utf8), file: "dump.json")
        #expect(configuration.appSync.count == 1 && configuration.userPool != nil, "\(configuration.problems)")
        let device = CognitoRememberedDevice(deviceKey: "us-east-1_device", groupKey: "group", password: Self.secrets[2])
        for (value, what) in [(tokens, "AuthTokens"), (pool, "CognitoUserPoolConfiguration"), (oidc, "OIDCConfiguration"), (device, "CognitoRememberedDevice"),
                              (configuration, "AWSConfiguration")] as [(Any, String)] {
            Self.expectNoSecret(value, what)
        }
    }
}
