import HTTPTransport
import HTTPTypes
import MultiAuthCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The few calls of Cognito's JSON API (`X-Amz-Target: AWSCognitoIdentityProviderService.*`)
/// that sign-in needs, with Cognito's error types mapped to ``TokenError``.
struct CognitoIdentityProviderAPI: Sendable {
    let configuration: CognitoUserPoolConfiguration
    let http: any HTTPSender
    static let provider = "Cognito"

    /// InitiateAuth / RespondToAuthChallenge answer with tokens or another challenge.
    struct AuthResponse: Decodable {
        struct Result: Decodable {
            let AccessToken: String
            let IdToken: String?
            let RefreshToken: String?
            let ExpiresIn: Int64?
            let NewDeviceMetadata: DeviceMetadata?
        }
        struct DeviceMetadata: Decodable {
            let DeviceKey: String
            let DeviceGroupKey: String
        }
        let AuthenticationResult: Result?
        let ChallengeName: String?
        let ChallengeParameters: [String: JSONValue]?
        let Session: String?
        /// USER_AUTH's SELECT_CHALLENGE lists its first factors here.
        let AvailableChallenges: [String]?

        /// The text parameters (a custom challenge's, for one).
        var stringParameters: [String: String] { (ChallengeParameters ?? [:]).compactMapValues(\.stringValue) }

        /// A challenge parameter as text.
        func parameter(_ key: String) -> String? { ChallengeParameters?[key]?.stringValue }

        /// A list parameter (`MFAS_CAN_SETUP`): Cognito sends a JSON array inside a string;
        /// a plain array is accepted too.
        func list(_ key: String) -> [String] {
            switch ChallengeParameters?[key] {
            case .array(let items)?: return items.compactMap(\.stringValue)
            case .string(let text)?:
                guard case .array(let items)? = try? JSONDecoding.decode(JSONValue.self, from: text, what: key) else { return [] }
                return items.compactMap(\.stringValue)
            default: return []
            }
        }
    }

    struct ConfirmDeviceResponse: Decodable {
        let UserConfirmationNecessary: Bool?
    }

    func confirmDevice(accessToken: String, deviceKey: String, verifier: String, salt: String, name: String) async throws(TokenError) -> ConfirmDeviceResponse {
        try await call("ConfirmDevice", [
            "AccessToken": .string(accessToken), "DeviceKey": .string(deviceKey), "DeviceName": .string(name),
            "DeviceSecretVerifierConfig": .object(["PasswordVerifier": .string(verifier), "Salt": .string(salt)]),
        ], secrets: [accessToken])
    }

    func updateDeviceStatus(accessToken: String, deviceKey: String, remembered: Bool) async throws(TokenError) {
        let _: [String: JSONValue] = try await call("UpdateDeviceStatus", [
            "AccessToken": .string(accessToken), "DeviceKey": .string(deviceKey),
            "DeviceRememberedStatus": .string(remembered ? "remembered" : "not_remembered"),
        ], secrets: [accessToken])
    }

    func forgetDevice(accessToken: String, deviceKey: String) async throws(TokenError) {
        let _: [String: JSONValue] = try await call(
            "ForgetDevice", ["AccessToken": .string(accessToken), "DeviceKey": .string(deviceKey)], secrets: [accessToken])
    }

    /// AssociateSoftwareToken / VerifySoftwareToken answers.
    struct SoftwareTokenResponse: Decodable {
        let SecretCode: String?
        let Status: String?
        let Session: String?
    }

    func associateSoftwareToken(session: String?) async throws(TokenError) -> SoftwareTokenResponse {
        try await call("AssociateSoftwareToken", ["Session": .string(session ?? "")], secrets: [session ?? ""])
    }

    func verifySoftwareToken(session: String?, code: String, friendlyName: String) async throws(TokenError) -> SoftwareTokenResponse {
        try await call(
            "VerifySoftwareToken", ["Session": .string(session ?? ""), "UserCode": .string(code), "FriendlyDeviceName": .string(friendlyName)],
            secrets: [session ?? "", code])
    }

    func initiateAuth(flow: String, parameters: [String: String]) async throws(TokenError) -> AuthResponse {
        try await call("InitiateAuth", ["AuthFlow": .string(flow), "ClientId": .string(configuration.clientId), "AuthParameters": object(parameters)], secrets: Array(parameters.values))
    }

    func respond(challenge: String, responses: [String: String], session: String?) async throws(TokenError) -> AuthResponse {
        var body: [String: JSONValue] = [
            "ChallengeName": .string(challenge), "ClientId": .string(configuration.clientId), "ChallengeResponses": object(responses),
        ]
        if let session { body["Session"] = .string(session) }
        return try await call("RespondToAuthChallenge", body, secrets: Array(responses.values) + [session ?? ""])
    }

    func revoke(refreshToken: String) async throws(TokenError) {
        var body: [String: JSONValue] = ["Token": .string(refreshToken), "ClientId": .string(configuration.clientId)]
        if let secret = configuration.clientSecret { body["ClientSecret"] = .string(secret) }
        let _: [String: JSONValue] = try await call("RevokeToken", body, secrets: [refreshToken, configuration.clientSecret ?? ""])
    }

    private func object(_ values: [String: String]) -> JSONValue { .object(values.mapValues { .string($0) }) }

    private func call<Response: Decodable>(_ operation: String, _ body: [String: JSONValue], secrets: [String]) async throws(TokenError) -> Response {
        let encoded: [UInt8]
        do { encoded = Array(try JSONEncoder().encode(JSONValue.object(body))) } catch { throw .local("cannot encode \(operation)") }
        let request: HTTPRequest
        do {
            request = try HTTPRequest(
                method: .post, wireURL: configuration.endpoint,
                headerFields: HTTPFields(checking: [
                    ("Content-Type", "application/x-amz-json-1.1"), ("X-Amz-Target", "AWSCognitoIdentityProviderService.\(operation)"),
                ]))
        } catch { throw .local("\(Self.provider): \(error)") }
        let response: ReceivedResponse
        do { response = try await http.send(request, body: .bytes(encoded)) } catch {
            throw .unreachable(provider: "\(Self.provider) (\(configuration.endpoint))", problem: error.description)
        }
        guard (200..<300).contains(response.status) else { throw Self.error(from: response, secrets: secrets + [configuration.clientSecret ?? ""]) }
        do { return try JSONDecoding.decode(Response.self, from: response.body, what: "the \(operation) answer (HTTP \(response.status))") } catch {
            throw .malformedResponse(provider: Self.provider, problem: error.description)
        }
    }

    /// Maps `{"__type": "...#NotAuthorizedException", "message": ...}` to a typed error.
    static func error(from response: ReceivedResponse, secrets: [String]) -> TokenError {
        let error = AWSErrorResponse(response)
        let type = error.code ?? "HTTP \(response.status)"
        let message = (error.message ?? "no message").redacting(secrets)
        switch type {
        case "NotAuthorizedException": return .notAuthorized(provider: provider, message: message)
        case "UserNotFoundException": return .userNotFound(provider: provider)
        case "PasswordResetRequiredException": return .passwordResetRequired(provider: provider)
        case "UserNotConfirmedException": return .userNotConfirmed(provider: provider)
        case "TooManyRequestsException", "LimitExceededException": return .tooManyRequests(provider: provider)
        case "InvalidParameterException", "InvalidPasswordException": return .invalidParameter(provider: provider, message: message)
        case "CodeMismatchException", "EnableSoftwareTokenMFAException": return .codeMismatch(provider: provider)
        case "ExpiredCodeException": return .codeExpired(provider: provider)
        default: return .service(provider: provider, code: type, message: message)
        }
    }
}
