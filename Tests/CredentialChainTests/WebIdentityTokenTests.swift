import Foundation
import HTTPTypes
import IntegrationSupport
import MultiAuthCore
import MultiAuthCredentials
import MultiAuthCurl
import MultiAuthJSONWebTokens
import MultiAuthSigV4
import Testing

/// Outbound identity federation against the STS stand-in, whose GetWebIdentityToken botocore's
/// own STS client calls in the same test; the tokens are verified by PyJWT with the stand-in's
/// JWKS, and by MultiAuth's own JWT verifier.
@Suite(.timeLimit(.minutes(5)), .enabled(if: Peers.stsAvailable, Peers.reason))
struct WebIdentityTokenTests {
    static let audience = "https://partner.example.com"
    static var environment: [String: String] {
        [
            "AWS_ACCESS_KEY_ID": Peers.keyId, "AWS_SECRET_ACCESS_KEY": Peers.secret, "AWS_ENDPOINT_URL_STS": Peers.sts, "AWS_REGION": "us-east-1",
            "AWS_CONFIG_FILE": "/nonexistent", "AWS_SHARED_CREDENTIALS_FILE": "/nonexistent",
        ]
    }

    static func check(_ token: String, audience: String = audience) async throws -> [String: String] {
        try await Peers.oracle("scripts/oracles/web_identity_token.py", arguments: ["check", token, Peers.sts, audience], environment: [:])
    }

    @Test(arguments: ["RS256", "ES384"])
    func botocoresAndOursAreAcceptedForTheirAudienceOnly(algorithm: String) async throws {
        let botocore = try await Peers.oracle("scripts/oracles/web_identity_token.py", arguments: ["fetch", Self.audience, algorithm], environment: Self.environment)
        let theirs = try await Self.check(try #require(botocore["token"], "\(botocore)"))
        let run = try await CLI.run(["token", "aws-web-identity", "--audience", Self.audience, "--signing-algorithm", algorithm], environment: Self.environment)
        #expect(run.status == 0, "\(run.stderr)")
        let token = run.stdout.trimmingCharacters(in: .newlines)
        let ours = try await Self.check(token)
        #expect(ours["error"] == nil && ours["aud"] == Self.audience, "\(ours)")
        #expect(ours["sub"] == theirs["sub"] && ours["iss"] == Peers.sts)
        let elsewhere = try await Self.check(token, audience: "https://other.example.com")
        #expect(elsewhere["error"]?.hasPrefix("InvalidAudienceError") == true, "\(elsewhere)")
        #expect(!run.stderr.contains(token))
    }

    /// MultiAuth's JWT verifier with the stand-in's published keys, for both algorithms the
    /// service signs with.
    @Test(arguments: [WebIdentityTokenProvider.SigningAlgorithm.rs256, .es384])
    func ourVerifierAcceptsItForItsAudienceOnly(algorithm: WebIdentityTokenProvider.SigningAlgorithm) async throws {
        let credentials = StaticCredentialsProvider(AWSCredentials(accessKeyId: Peers.keyId, secretAccessKey: Peers.secret))
        let provider = try WebIdentityTokenProvider(
            credentials: credentials, region: "us-east-1", audiences: [Self.audience], algorithm: algorithm, environment: Self.environment,
            http: CurlHTTPClient())
        let token = try await provider.token()
        #expect(try await provider.token().jwt == token.jwt, "a token far from its expiry is kept")
        #expect(!"\(token)".contains(token.jwt))
        let document = try await CurlHTTPClient().send(try HTTPRequest(method: .get, wireURL: Peers.sts + "/.well-known/jwks.json"))
        let keys = try JSONDecoder().decode(JSONWebKeySet.self, from: Data(document.body))
        let claims = try IDTokenValidator(issuer: Peers.sts, clientId: Self.audience, keys: keys).validate(token.jwt)
        #expect(try JSONWebToken(parsing: token.jwt).header.alg == algorithm.rawValue)
        let tampered = String(token.jwt.dropLast(6)) + (token.jwt.hasSuffix("AAAAAA") ? "BBBBBB" : "AAAAAA")
        #expect(throws: InvalidTokenError.self) { try IDTokenValidator(issuer: Peers.sts, clientId: Self.audience, keys: keys).validate(tampered) }
        #expect(claims.subject?.hasPrefix("arn:aws:") == true)
        #expect(throws: InvalidTokenError.self) { try IDTokenValidator(issuer: Peers.sts, clientId: "https://other.example.com", keys: keys).validate(token.jwt) }
    }

    @Test func faultsAreNamed() async throws {
        let short = try await CLI.run(["token", "aws-web-identity", "--audience", "a", "--duration", "30"], environment: Self.environment)
        #expect(short.status != 0 && short.stderr.contains("--duration"), "\(short.stderr)")
        let none = try await CLI.run(["token", "aws-web-identity"], environment: Self.environment)
        #expect(none.status != 0 && none.stderr.contains("--audience"), "\(none.stderr)")
        let refused = try await CLI.run(
            ["token", "aws-web-identity", "--audience", "a"], environment: Self.environment.merging(["AWS_SECRET_ACCESS_KEY": "wrong-secret-0000000000000000000000"]) { $1 })
        #expect(refused.status != 0 && refused.stderr.contains("SignatureDoesNotMatch"), "\(refused.stderr)")
        #expect(!refused.stderr.contains("wrong-secret"))
    }

    /// `exec --server ecs`'s child asks the credentials endpoint for a token with its
    /// authorization token (curl, as a program would); without one, or with no audience, it
    /// is refused.
    @Test func execsChildGetsATokenFromTheCredentialsEndpoint() async throws {
        let base = #"url="${AWS_CONTAINER_CREDENTIALS_FULL_URI%/credentials}/web-identity-token""#
        let script = base + """
            ; curl -s -H "Authorization: $AWS_CONTAINER_AUTHORIZATION_TOKEN" "$url?audience=\(Self.audience)&signing_algorithm=ES384"; echo
            curl -s -o /dev/null -w '%{http_code}\\n' "$url?audience=x"
            curl -s -o /dev/null -w '%{http_code}\\n' -H "Authorization: $AWS_CONTAINER_AUTHORIZATION_TOKEN" "$url"
            """
        let run = try await CLI.run(["exec", "--server", "ecs", "--region", "us-east-1", "--", "sh", "-c", script], environment: Self.environment)
        #expect(run.status == 0, "\(run.stderr)")
        let lines = run.stdout.split(separator: "\n").map(String.init)
        let answer = try #require(JSONSerialization.jsonObject(with: Data((lines.first ?? "").utf8)) as? [String: String], "\(run.stdout)")
        let claims = try await Self.check(try #require(answer["Token"]))
        #expect(claims["aud"] == Self.audience && claims["error"] == nil, "\(claims)")
        #expect(answer["Expiration"]?.hasSuffix("Z") == true)
        #expect(Array(lines.dropFirst()) == ["401", "400"], "\(lines)")
    }
}
