import HTTPTypes
import MultiAuthAWSClient
import MultiAuthCore
import MultiAuthHTTP

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The few calls of Cognito's JSON API (`X-Amz-Target: AWSCognitoIdentityProviderService.*`)
/// that sign-in needs, with Cognito's error types mapped to ``TokenError``.
struct CognitoIdentityProviderAPI: Sendable {
    let configuration: CognitoUserPoolConfiguration
    /// The one AWS client for the pool's endpoint, or why there is none (a decoded
    /// configuration can hold a region that is not one, or the environment a bad retry setting).
    let client: Result<AWSClient, AWSCallError>
    static let provider = "Cognito"

    init(configuration: CognitoUserPoolConfiguration, http: any HTTPSender, environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.configuration = configuration
        client = Result { () throws(AWSCallError) in
            try AWSClient(
                service: "cognito-idp", region: configuration.region, endpoint: ServiceEndpoint(url: configuration.endpoint), http: http,
                retry: try .resolve(environment: environment))
        }
    }

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

    func initiateAuth(flow: String, parameters: [String: String], session: String? = nil) async throws(TokenError) -> AuthResponse {
        var body: [String: JSONValue] = ["AuthFlow": .string(flow), "ClientId": .string(configuration.clientId), "AuthParameters": object(parameters)]
        if let session { body["Session"] = .string(session) }
        return try await call("InitiateAuth", body, secrets: parameters.filter { $0.key != "PREFERRED_CHALLENGE" }.map(\.value) + [session ?? ""])
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

    fileprivate func call<Response: Decodable>(_ operation: String, _ body: [String: JSONValue], secrets: [String]) async throws(TokenError) -> Response {
        let encoded: [UInt8]
        do { encoded = Array(try JSONEncoder().encode(JSONValue.object(body))) } catch { throw .local("cannot encode \(operation)") }
        let request = AWSOperation.json(operation, targetPrefix: "AWSCognitoIdentityProviderService", body: encoded)
        do throws(AWSCallError) { return try await client.get().json(request, as: Response.self, signedWith: nil) } catch {
            throw Self.error(from: error, secrets: secrets + [configuration.clientSecret ?? ""], endpoint: configuration.endpoint)
        }
    }

    /// Maps an AWS call's failure to a typed error: Cognito's refusals
    /// (`{"__type": "...#NotAuthorizedException", "message": ...}`) by their code.
    /// The call is kept as the cause, its message cleared of `secrets`.
    static func error(from error: AWSCallError, secrets: [String], endpoint: String) -> TokenError {
        let failure: TokenError = switch error.kind {
        case .service: refusal(code: error.awsCode?.rawValue ?? "HTTP \(error.status ?? 0)", message: error.serviceMessage.isEmpty ? "no message" : error.serviceMessage, secrets: secrets)
        case .malformedAnswer: .malformedResponse(provider: provider, problem: error.serviceMessage)
        case .invalidSetting, .credentials: .local("\(provider): \(error.serviceMessage)")
        case .transport: .unreachable(provider: "\(provider) (\(Redaction.url(endpoint)))", problem: error.serviceMessage)
        case .cancelled: .cancelled(provider: provider)
        }
        return TokenError(failure.kind, cause: error.redacting(secrets))
    }

    static func refusal(code type: String, message raw: String, secrets: [String]) -> TokenError {
        let message = raw.redacting(secrets)
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

extension CognitoIdentityProviderAPI {
    /// StartWebAuthnRegistration's answer: the creation options, a JSON document.
    struct PasskeyRegistrationStart: Decodable {
        let CredentialCreationOptions: JSONValue?
    }

    func startWebAuthnRegistration(accessToken: String) async throws(TokenError) -> PasskeyRegistrationStart {
        try await call("StartWebAuthnRegistration", ["AccessToken": .string(accessToken)], secrets: [accessToken])
    }

    func completeWebAuthnRegistration(accessToken: String, credential: JSONValue) async throws(TokenError) {
        let _: [String: JSONValue] = try await call(
            "CompleteWebAuthnRegistration", ["AccessToken": .string(accessToken), "Credential": credential], secrets: [accessToken])
    }
}

extension CognitoIdentityProviderAPI {
    /// SignUp's answer.
    struct SignUpResponse: Decodable {
        struct Delivery: Decodable {
            let Destination: String?
            let DeliveryMedium: String?
        }
        let UserConfirmed: Bool?
        let CodeDeliveryDetails: Delivery?
        /// Signs in a user the pool confirmed at once.
        let Session: String?
    }

    /// ConfirmSignUp's answer: the session that signs the new user in (USER_AUTH).
    struct ConfirmSignUpResponse: Decodable {
        let Session: String?
    }

    func signUp(username: String, attributes: [String: String], password: String?, secretHash: String?) async throws(TokenError) -> SignUpResponse {
        var body: [String: JSONValue] = [
            "ClientId": .string(configuration.clientId), "Username": .string(username),
            "UserAttributes": .array(attributes.sorted { $0.key < $1.key }.map { .object(["Name": .string($0.key), "Value": .string($0.value)]) }),
        ]
        if let password { body["Password"] = .string(password) }
        if let secretHash { body["SecretHash"] = .string(secretHash) }
        return try await call("SignUp", body, secrets: [password ?? "", secretHash ?? ""])
    }

    func confirmSignUp(username: String, code: String, secretHash: String?) async throws(TokenError) -> ConfirmSignUpResponse {
        var body: [String: JSONValue] = ["ClientId": .string(configuration.clientId), "Username": .string(username), "ConfirmationCode": .string(code)]
        if let secretHash { body["SecretHash"] = .string(secretHash) }
        return try await call("ConfirmSignUp", body, secrets: [code, secretHash ?? ""])
    }
}
