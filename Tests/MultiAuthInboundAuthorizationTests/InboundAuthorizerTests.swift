import HTTPTypes
import MultiAuthCore
import MultiAuthInboundAuthorization
import MultiAuthJSONWebTokens
import MultiAuthSigV4
import Testing

/// What a gateway decides about a received request, with no network. The signed request is
/// AWS's documented example (IAM ListUsers, signed 2015-08-30 12:36:00 UTC with the
/// documentation's example key; the signature is AWS's published one); the refusals are the
/// statuses, error types and messages API Gateway answers with.
struct InboundAuthorizerTests {
    static let signedAt = TimeSource { 1_440_938_160 }  // 2015-08-30T12:36:00Z
    static var documentedRequest: HTTPRequest {
        HTTPRequest(
            method: .get, scheme: "https", authority: "iam.amazonaws.com", path: "/?Action=ListUsers&Version=2010-05-08",
            headerFields: [
                .contentType: "application/x-www-form-urlencoded; charset=utf-8",
                HTTPField.Name("X-Amz-Date")!: "20150830T123600Z",
                .authorization: "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/iam/aws4_request, "
                    + "SignedHeaders=content-type;host;x-amz-date, Signature=5d672d79c15b13162d9279b0855cfba6789a8edb4c82c400e06b5924a6f2b5d7",
            ])
    }
    static let verifier = SigV4Verifier(
        region: "us-east-1", service: "iam", credentials: ["AKIDEXAMPLE": VerifierCredential(secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY")])

    static func decision(_ authorizer: InboundAuthorizer, _ request: HTTPRequest) async -> Result<Principal, InboundRejection> {
        await authorizer.authorize(request, body: [])
    }

    @Test func theDocumentedSignaturePasses() async throws {
        let authorizer = InboundAuthorizer(verifier: Self.verifier, clock: Self.signedAt)
        let principal = try await Self.decision(authorizer, Self.documentedRequest).get()
        #expect(principal.mode == .awsIAM && principal.name.contains("AKIDEXAMPLE"))
    }

    @Test func aChangedQueryIsInvalidSignatureException() async {
        var request = Self.documentedRequest
        request.path = "/?Action=DeleteUser&Version=2010-05-08"
        let authorizer = InboundAuthorizer(verifier: Self.verifier, clock: Self.signedAt)
        guard case .failure(let rejection) = await Self.decision(authorizer, request) else { Issue.record("it passed"); return }
        #expect(rejection.status == .forbidden && rejection.errorType == "InvalidSignatureException")
        #expect(rejection.message.hasPrefix("The request signature we calculated does not match the signature you provided."))
    }

    @Test func aSignatureOlderThanFifteenMinutesHasExpired() async {
        let authorizer = InboundAuthorizer(verifier: Self.verifier, clock: TimeSource { 1_440_938_160 + 15 * 60 + 1 })
        guard case .failure(let rejection) = await Self.decision(authorizer, Self.documentedRequest) else { Issue.record("it passed"); return }
        #expect(rejection.status == .forbidden && rejection.message == "Signature expired or not yet valid.")
    }

    @Test func apiKeysPassByNameAndTheKeyNeverTravelsOn() async throws {
        let authorizer = InboundAuthorizer(apiKeys: ["da2-secret-key": "mobile-app", "": "blank line"])
        var request = HTTPRequest(method: .get, scheme: "https", authority: "api.example.com", path: "/items")
        request.headerFields[InboundAuthorizer.apiKeyField] = "da2-secret-key"
        let principal = try await Self.decision(authorizer, request).get()
        #expect(principal == Principal(mode: .apiKey, name: "mobile-app"))
        request.headerFields[InboundAuthorizer.apiKeyField] = "da2-other-key"
        #expect(await Self.decision(authorizer, request) == .failure(.forbiddenKey))
        request.headerFields[InboundAuthorizer.apiKeyField] = ""
        guard case .failure(let empty) = await Self.decision(authorizer, request) else { Issue.record("an empty key passed"); return }
        #expect(empty.status == .forbidden)
        request.headerFields[values: InboundAuthorizer.apiKeyField] = ["da2-secret-key", "da2-secret-key"]
        #expect(await Self.decision(authorizer, request) == .failure(.forbiddenKey), "a key sent twice names no key")
        #expect(authorizer.presented(request).mode == .apiKey && authorizer.presented(request).principal == nil)
    }

    @Test func noCredentialIsMissingAuthenticationToken() async {
        let authorizer = InboundAuthorizer(verifier: Self.verifier, apiKeys: ["k": "n"], clock: Self.signedAt)
        let request = HTTPRequest(method: .get, scheme: "https", authority: "api.example.com", path: "/")
        guard case .failure(let rejection) = await Self.decision(authorizer, request) else { Issue.record("it passed"); return }
        #expect(rejection.status == .forbidden && rejection.errorType == "MissingAuthenticationTokenException")
        #expect(rejection.message == "Missing Authentication Token" && rejection.body == Array(#"{"message":"Missing Authentication Token"}"#.utf8))
    }

    /// A JWT's mode is AppSync's name for its issuer: a Cognito user pool's issuer URL, or any
    /// other OpenID Connect provider.
    @Test func aTokensModeComesFromItsIssuer() {
        #expect(AuthMode.forTokens(issuedBy: "https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_AbCdEf") == .amazonCognitoUserPools)
        #expect(AuthMode.forTokens(issuedBy: "https://accounts.google.com") == .openIDConnect)
        #expect(AuthMode.forTokens(issuedBy: "https://cognito-idp.evil.example/eu-west-1_AbCdEf") == .openIDConnect)
        let pool = IDTokenValidator(issuer: "https://cognito-idp.us-east-1.amazonaws.com/us-east-1_X", clientId: "c", keys: JSONWebKeySet(keys: []))
        #expect(InboundAuthorizer(apiKeys: ["k": "n"], tokenValidator: pool).modes == [.apiKey, .amazonCognitoUserPools])
    }

    @Test func aJWTOnlyGatewayAnswers401() async {
        let validator = IDTokenValidator(issuer: "https://issuer.example", clientId: "c", keys: JSONWebKeySet(keys: []))
        let authorizer = InboundAuthorizer(tokenValidator: validator)
        var request = HTTPRequest(method: .get, scheme: "https", authority: "api.example.com", path: "/")
        guard case .failure(let none) = await Self.decision(authorizer, request) else { Issue.record("it passed"); return }
        #expect(none.status == .unauthorized && none.message == "Unauthorized")
        request.headerFields[.authorization] = "Bearer not.a.jwt"
        guard case .failure(let bad) = await Self.decision(authorizer, request) else { Issue.record("it passed"); return }
        #expect(bad.status == .unauthorized && bad.errorType == "UnauthorizedException")
    }
}
