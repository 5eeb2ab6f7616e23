import HTTPTypes
import MultiAuthAWSClient
import MultiAuthCore
import MultiAuthCrypto
public import MultiAuthHTTP
import MultiAuthSigV4

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The sign-in `aws login` performs: OAuth 2.0's authorization code with PKCE at the sign-in
/// service (`/v1/authorize`, then `CreateOAuth2Token` with a DPoP proof), giving a
/// ``LoginSession`` bound to a new P-256 key and named by the console session's ARN (the ID
/// token's `sub`), as the AWS CLI writes it.
///
/// One value serves one sign-in: it holds the PKCE verifier, the expected `state` and the key.
public struct ConsoleSignIn: Sendable {
    /// The client of a sign-in whose browser redirects to a loopback address.
    public static let sameDeviceClient = "arn:aws:signin:::devtools/same-device"
    /// The client of a sign-in whose browser shows a code to paste (`--remote`).
    public static let crossDeviceClient = "arn:aws:signin:::devtools/cross-device"

    let client: AWSClient
    let key: PrivateKey
    let codeVerifier: String
    /// The value the redirect must carry back.
    public let state: String

    /// A sign-in at the sign-in service of `region` (or `AWS_ENDPOINT_URL_SIGNIN`).
    /// - Throws: ``CredentialsError/invalidSetting(source:problem:)`` for a malformed region, or
    ///   when no key or random verifier can be made.
    public init(region: String, environment: [String: String]? = nil, http: any HTTPSender) throws(CredentialsError) {
        client = try .forChain(service: "signin", region: region, environment: environment ?? ProcessInfo.processInfo.environment, http: http)
        do {
            key = try PrivateKey.generateP256()
            let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
            codeVerifier = String(try SecureRandom.bytes(count: 64).map { alphabet[Int($0) % alphabet.count] })
            state = UUID().uuidString.lowercased()
        } catch { throw .invalidSetting(source: "aws login", problem: "cannot make a key: \(error)") }
    }

    /// Where a cross-device sign-in redirects: the service's page showing the code to paste.
    public var confirmationURI: String { base + "/v1/sessions/confirmation" }

    private var base: String { client.endpoint.url.hasSuffix("/") ? String(client.endpoint.url.dropLast()) : client.endpoint.url }

    /// The page the person signs in on: `/v1/authorize` with the client, `state`, the PKCE
    /// challenge (S256) and, for a same-device sign-in, the loopback `redirectURI`.
    public func authorizationURL(client clientId: String, redirectURI: String) -> String {
        let challenge = Base64.encodeURL(SHA256Hasher.hash(Array(codeVerifier.utf8)).bytes)
        let query = FormURLEncoding.encode([
            ("response_type", "code"), ("client_id", clientId), ("state", state), ("code_challenge_method", "SHA-256"), ("scope", "openid"),
            ("redirect_uri", redirectURI), ("code_challenge", challenge),
        ])
        return base + "/v1/authorize?" + String(decoding: query, as: UTF8.self)
    }

    /// The session the authorization `code` redeems, and its name (the login session ARN).
    /// - Throws: ``CredentialsError`` when the service refuses (an expired code says so) or its
    ///   answer has no usable ID token.
    public func redeem(code: String, client clientId: String, redirectURI: String) async throws(CredentialsError) -> (session: LoginSession, name: String) {
        let body = JSONValue.object([
            "clientId": .string(clientId), "grantType": .string("authorization_code"), "code": .string(code), "codeVerifier": .string(codeVerifier),
            "redirectUri": .string(redirectURI),
        ])
        let operation = AWSOperation.restJSON("CreateOAuth2Token", method: .post, path: "/v1/token", body: Array(body.description.utf8))
        let key = key
        let answer: Answer
        do {
            let response = try await client.send(operation) { request, _, date throws(SigningError) in
                try DPoPProof.attach(to: request, key: key, now: Double(date.secondsSince1970))
            }
            answer = try JSONDecoding.decode(Answer.self, from: response.body, what: "the CreateOAuth2Token answer")
        } catch let error as AWSCallError {
            if error.reason == "AUTHCODE_EXPIRED" { throw .loginNeeded(what: "the authorization code expired before it was redeemed", command: "multiauth login aws") }
            throw CredentialsError(error)
        } catch {
            throw .serviceError(service: "signin CreateOAuth2Token", code: "MalformedResponse", message: "\(error)")
        }
        let name = Self.subject(ofIDToken: answer.idToken)
        let arn = name?.split(separator: ":", maxSplits: 5, omittingEmptySubsequences: false) ?? []
        guard let name, arn.count == 6, arn[0] == "arn", !arn[4].isEmpty, WireText.isSafe(name) else {
            throw .serviceError(service: "signin CreateOAuth2Token", code: "MalformedResponse", message: "the ID token names no login session ARN")
        }
        let pem: [UInt8]
        do { pem = try key.traditionalPEM() } catch { throw .invalidSetting(source: "aws login", problem: "cannot write the key: \(error)") }
        let expires = ISOTime.text((TimeSource.system.now() + Double(answer.expiresIn)).rounded(.down))
        let session = LoginSession(fields: [
            "accessToken": .object([
                "accessKeyId": .string(answer.accessToken.accessKeyId), "secretAccessKey": .string(answer.accessToken.secretAccessKey),
                "sessionToken": .string(answer.accessToken.sessionToken), "accountId": .string(String(arn[4])), "expiresAt": .string(expires),
            ]),
            "tokenType": .string(answer.tokenType), "clientId": .string(clientId), "refreshToken": .string(answer.refreshToken),
            "idToken": .string(answer.idToken), "dpopKey": .string(String(decoding: pem, as: UTF8.self)),
        ])
        return (session, name)
    }

    /// The `sub` claim of a JWT, read without checking it (it came over TLS from the service).
    static func subject(ofIDToken token: String) -> String? {
        let parts = token.split(separator: ".")
        guard parts.count == 3, let payload = try? Base64.decode(parts[1]),
            case .object(let claims)? = try? JSONDecoding.decode(JSONValue.self, from: payload, what: "the ID token")
        else { return nil }
        return claims["sub"]?.stringValue
    }

    private struct Answer: Decodable {
        struct Keys: Decodable { let accessKeyId: String, secretAccessKey: String, sessionToken: String }
        let accessToken: Keys
        let tokenType: String
        let expiresIn: Int
        let refreshToken: String
        let idToken: String
    }
}
