import HTTPTypes
import MultiAuthAWSClient
import MultiAuthCore
import MultiAuthHTTP
import MultiAuthTesting
import MultiAuthTokens
import Testing

/// Cognito's user-pool API calls against a scripted sender: the JSON 1.1 form they go in, and
/// Cognito's refusals as typed errors with no secret quoted back. Sign-in flows end to end
/// (SRP, MFA, devices) stay in ClientAndTokenTests against moto and the Cognito stand-in.
@Suite struct CognitoAPITests {
    static func authenticator(_ sender: ScriptedSender, secret: String? = nil) throws -> CognitoUserPoolAuthenticator {
        let configuration = try CognitoUserPoolConfiguration(
            userPoolId: "eu-west-1_Unit", clientId: "unitclient", clientSecret: secret, endpoint: "https://cognito-idp.unit.test/")
        return CognitoUserPoolAuthenticator(configuration: configuration, http: sender)
    }

    static let tokens = AuthTokens(idToken: nil, accessToken: "unit-access", refreshToken: "unit-refresh-token-value", expiresAt: 0)

    @Test func revokeSendsTheRefreshTokenClientIdAndSecretUnsigned() async throws {
        let sender = ScriptedSender([.answer(200, "{}")])
        try await Self.authenticator(sender, secret: "unit-client-secret").revoke(Self.tokens)
        let sent = try #require(sender.sent.first)
        #expect(sent.request.headerFields[HTTPField.Name("X-Amz-Target")!] == "AWSCognitoIdentityProviderService.RevokeToken")
        #expect(sent.request.headerFields[.contentType] == "application/x-amz-json-1.1" && sent.request.headerFields[.authorization] == nil)
        let body = try JSONDecoding.decode([String: String].self, from: sent.body, what: "the request")
        #expect(body == ["Token": "unit-refresh-token-value", "ClientId": "unitclient", "ClientSecret": "unit-client-secret"])
    }

    /// A refusal that quotes the refresh token back: the typed error carries Cognito's code and
    /// message with the token redacted.
    @Test func aRefusalIsTypedAndNeverQuotesTheToken() async throws {
        let refusal = #"{"__type":"com.amazon.cognito#NotAuthorizedException","message":"Invalid token unit-refresh-token-value"}"#
        let sender = ScriptedSender([.answer(400, refusal)])
        let error = await #expect(throws: TokenError.self) { try await Self.authenticator(sender).refresh(Self.tokens) }
        guard case .notAuthorized(_, let message)?? = error?.kind else {
            Issue.record("not notAuthorized: \(String(describing: error))")
            return
        }
        #expect(!message.contains("unit-refresh-token-value") && !"\(error!)".contains("unit-refresh-token-value"), "\(message)")
        #expect(sender.sent.count == 1, "NotAuthorizedException is not retried")
        let call = try #require(error?.cause(as: AWSCallError.self), "the failed call is kept as the cause")
        #expect(call.awsCode == "NotAuthorizedException" && call.status == 400 && call.operation == "InitiateAuth")
        #expect(!"\(call)".contains("unit-refresh-token-value"), "the cause's message is redacted too")
    }

    @Test func aBodyThatIsNotJSONIsAMalformedResponse() async throws {
        let sender = ScriptedSender([.answer(200, "<html>maintenance</html>")])
        let error = await #expect(throws: TokenError.self) { try await Self.authenticator(sender).refresh(Self.tokens) }
        guard case .malformedResponse?? = error?.kind else {
            Issue.record("not malformedResponse: \(String(describing: error))")
            return
        }
        #expect(sender.sent.count == 1)
    }
}
