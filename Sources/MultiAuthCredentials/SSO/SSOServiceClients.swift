import HTTPTypes
import MultiAuthAWSClient
import MultiAuthCore
import MultiAuthHTTP
import MultiAuthSigV4

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// IAM Identity Center's two services for one login, SSO OIDC and the access portal, as one
/// reading of the config files sets them up (endpoints and retries).
struct SSOEndpoints {
    let oidc: AWSClient
    let portal: AWSClient

    init(region: String, environment: [String: String], profile: String?, files: SharedConfigFiles? = nil, http: any HTTPSender) throws(CredentialsError) {
        let files = files ?? (try? SharedConfigFiles.load(environment: environment)) ?? SharedConfigFiles(profiles: [:], ssoSessions: [:], services: [:], paths: [])
        oidc = try files.client(for: "sso-oidc", profile: profile, region: region, environment: environment, http: http)
        portal = try files.client(for: "sso", profile: profile, region: region, environment: environment, http: http)
    }
}

/// One unsigned REST-JSON call to an IAM Identity Center service through the one AWS client,
/// with its failures as ``CredentialsError`` values naming the service as people know it.
struct SSOServiceCall {
    let service: String
    let client: AWSClient

    func send<Answer: Decodable>(
        _ name: String, _ method: HTTPRequest.Method, _ pathAndQuery: String, headers: [(String, String)] = [], body: [UInt8]? = nil
    ) async throws(CredentialsError) -> Answer {
        let operation = AWSOperation.restJSON(name, method: method, path: pathAndQuery, headers: headers, body: body)
        do throws(AWSCallError) { return try await client.json(operation, as: Answer.self, signedWith: nil) } catch {
            var mapped = CredentialsError(error)
            switch mapped.kind {
            case .serviceError(_, let code, let message): mapped = .serviceError(service: "\(service) \(name)", code: code, message: message)
            case .transport(_, let problem): mapped = .transport(service: "\(service) \(name)", problem: problem)
            default: break
            }
            throw mapped
        }
    }
}

/// IAM Identity Center's OIDC service (`oidc.REGION.amazonaws.com`, or
/// `AWS_ENDPOINT_URL_SSO_OIDC`): the three unsigned JSON calls a login and a refresh need.
struct SSOOIDCClient {
    let call: SSOServiceCall
    static let service = "SSO OIDC"

    init(client: AWSClient) {
        call = SSOServiceCall(service: Self.service, client: client)
    }

    struct Registration: Decodable {
        let clientId: String
        let clientSecret: String
        let clientSecretExpiresAt: Int64
    }

    struct DeviceAuthorization: Decodable {
        let deviceCode: String
        let userCode: String
        let verificationUri: String
        let verificationUriComplete: String?
        let expiresIn: Int
        let interval: Int?
    }

    struct Token: Decodable {
        let accessToken: String
        let expiresIn: Int
        let refreshToken: String?
    }

    /// RegisterClient: a public client for the device grant (and refresh).
    func registerClient(name: String, scopes: [String]) async throws(CredentialsError) -> Registration {
        struct Body: Encodable { let clientName: String, clientType = "public", scopes: [String] }
        return try await post("RegisterClient", "client/register", Body(clientName: name, scopes: scopes))
    }

    /// StartDeviceAuthorization for `startURL`.
    func startDeviceAuthorization(_ registration: Registration, startURL: String) async throws(CredentialsError) -> DeviceAuthorization {
        struct Body: Encodable { let clientId: String, clientSecret: String, startUrl: String }
        return try await post("StartDeviceAuthorization", "device_authorization", Body(clientId: registration.clientId, clientSecret: registration.clientSecret, startUrl: startURL))
    }

    /// CreateToken with `grantType` and its one proof (`deviceCode` or `refreshToken`).
    func createToken(clientId: String, clientSecret: String, grant: Grant) async throws(CredentialsError) -> Token {
        struct Body: Encodable {
            let clientId: String, clientSecret: String, grantType: String
            var deviceCode: String?, refreshToken: String?
        }
        var body = Body(clientId: clientId, clientSecret: clientSecret, grantType: grant.type)
        switch grant {
        case .deviceCode(let code): body.deviceCode = code
        case .refreshToken(let token): body.refreshToken = token
        }
        return try await post("CreateToken", "token", body)
    }

    enum Grant {
        case deviceCode(String)
        case refreshToken(String)

        var type: String {
            switch self {
            case .deviceCode: "urn:ietf:params:oauth:grant-type:device_code"
            case .refreshToken: "refresh_token"
            }
        }
    }

    private func post<Answer: Decodable>(_ name: String, _ path: String, _ body: some Encodable) async throws(CredentialsError) -> Answer {
        let bytes = (try? Array(JSONEncoder().encode(body))) ?? []
        return try await call.send(name, .post, path, body: bytes)
    }
}

/// The AWS access portal (`portal.sso.REGION.amazonaws.com`, or `AWS_ENDPOINT_URL_SSO`):
/// GetRoleCredentials with the login's access token.
struct SSOPortalClient {
    let call: SSOServiceCall
    static let service = "SSO portal"

    init(client: AWSClient) {
        call = SSOServiceCall(service: Self.service, client: client)
    }

    private struct Answer: Decodable {
        struct RoleCredentials: Decodable {
            let accessKeyId: String
            let secretAccessKey: String
            let sessionToken: String?
            let expiration: Int64  // milliseconds since 1970
        }
        let roleCredentials: RoleCredentials
    }

    /// The role's credentials; an `UnauthorizedException` means the login is no longer valid.
    func roleCredentials(accountId: String, roleName: String, accessToken: String) async throws(CredentialsError) -> ExpiringCredentials {
        let query = String(decoding: FormURLEncoding.encode([("account_id", accountId), ("role_name", roleName)]), as: UTF8.self)
        try checkWireSafe([("the SSO access token", accessToken)], source: "the SSO token cache")
        let answer: Answer = try await call.send(
            "GetRoleCredentials", .get, "federation/credentials?" + query, headers: [("x-amz-sso_bearer_token", accessToken)])
        let role = answer.roleCredentials
        try checkWireSafe([("accessKeyId", role.accessKeyId), ("sessionToken", role.sessionToken)], source: Self.service)
        return ExpiringCredentials(
            AWSCredentials(accessKeyId: role.accessKeyId, secretAccessKey: role.secretAccessKey, sessionToken: role.sessionToken),
            expiration: Date(timeIntervalSince1970: Double(role.expiration) / 1000), source: "SSO role \(roleName) in \(accountId)")
    }
}

extension SSOPortalClient {
    /// An account the login may use.
    struct Account: Decodable {
        let accountId: String
        let accountName: String?
    }

    /// A role in an account.
    struct Role: Decodable {
        let roleName: String
        let accountId: String?
    }

    private struct AccountPage: Decodable, Paged {
        let accountList: [Account]?
        let nextToken: String?
        var items: [Account] { accountList ?? [] }
    }

    private struct RolePage: Decodable, Paged {
        let roleList: [Role]?
        let nextToken: String?
        var items: [Role] { roleList ?? [] }
    }

    /// Every account of the login (ListAccounts, page by page).
    func accounts(accessToken: String) async throws(CredentialsError) -> [Account] {
        try await paged("ListAccounts", "assignment/accounts", [], accessToken: accessToken, as: AccountPage.self)
    }

    /// Every role of `accountId` the login may take (ListAccountRoles, page by page).
    func roles(accountId: String, accessToken: String) async throws(CredentialsError) -> [Role] {
        try await paged("ListAccountRoles", "assignment/roles", [("account_id", accountId)], accessToken: accessToken, as: RolePage.self)
    }

    /// The items of every page of a portal list, up to ``listLimit``.
    private func paged<Page: Decodable & Paged>(
        _ name: String, _ path: String, _ query: [(String, String)], accessToken: String, as page: Page.Type
    ) async throws(CredentialsError) -> [Page.Item] {
        try checkWireSafe([("the SSO access token", accessToken)], source: "the SSO token cache")
        var items: [Page.Item] = []
        var next: String?
        repeat {
            let parameters = query + [("max_result", "100")] + (next.map { [("next_token", $0)] } ?? [])
            let answer: Page = try await call.send(
                name, .get, path + "?" + String(decoding: FormURLEncoding.encode(parameters), as: UTF8.self),
                headers: [("x-amz-sso_bearer_token", accessToken)])
            items += answer.items
            next = answer.nextToken.flatMap { $0.isEmpty ? nil : $0 }
        } while next != nil && items.count < Self.listLimit
        return items
    }

    /// The most accounts, or roles of one account, read: a portal that pages forever is cut off.
    static let listLimit = 10_000
}

/// A page of a portal list.
private protocol Paged {
    associatedtype Item
    var items: [Item] { get }
    var nextToken: String? { get }
}
