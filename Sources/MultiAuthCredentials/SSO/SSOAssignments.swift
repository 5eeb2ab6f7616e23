public import MultiAuthCore
public import MultiAuthHTTP

/// The accounts and roles an IAM Identity Center login may use, as `aws sso list-accounts`
/// and `list-account-roles` read them: the login's access token (``SSOTokenProvider``, so a
/// cached token about to expire is refreshed), then ListAccounts and ListAccountRoles.
public struct SSOAssignments: Sendable {
    /// One role in one account.
    public struct Assignment: Sendable, Equatable {
        /// The account's id.
        public let accountId: String
        /// The account's name ("" when the portal gives none).
        public let accountName: String
        /// The role's name.
        public let roleName: String

        /// An assignment.
        public init(accountId: String, accountName: String, roleName: String) {
            self.accountId = accountId
            self.accountName = accountName
            self.roleName = roleName
        }
    }

    let tokens: SSOTokenProvider
    let portal: SSOPortalClient

    /// The assignments of `configuration`'s login; `loginCommand` is named when the login
    /// must be renewed.
    public init(
        configuration: SSOSessionConfiguration, loginCommand: String, environment: [String: String], http: any HTTPSender,
        clock: TimeSource = .system
    ) throws(CredentialsError) {
        let endpoints = try SSOEndpoints(region: configuration.region, environment: environment, profile: nil, http: http)
        tokens = SSOTokenProvider(
            configuration: configuration, loginCommand: loginCommand, cache: SSOTokenCache(environment: environment),
            oidc: SSOOIDCClient(client: endpoints.oidc), clock: clock)
        portal = SSOPortalClient(client: endpoints.portal)
    }

    /// Every role of every account, ordered by account name, account id and role.
    /// - Throws: ``CredentialsError``: ``CredentialsError/ssoLoginNeeded(what:command:)``
    ///   without a usable login, or when the portal refuses it.
    public func list() async throws(CredentialsError) -> [Assignment] {
        let token = try await tokens.accessToken()
        var assignments: [Assignment] = []
        do throws(CredentialsError) {
            for account in try await portal.accounts(accessToken: token) {
                for role in try await portal.roles(accountId: account.accountId, accessToken: token) {
                    assignments.append(Assignment(accountId: account.accountId, accountName: account.accountName ?? "", roleName: role.roleName))
                }
            }
        } catch {
            if case .serviceError(_, "UnauthorizedException", _) = error.kind {
                throw .ssoLoginNeeded(what: "the SSO portal no longer accepts the login for \(tokens.configuration.startURL)", command: tokens.loginCommand)
            }
            throw error
        }
        return assignments.sorted { ($0.accountName, $0.accountId, $0.roleName) < ($1.accountName, $1.accountId, $1.roleName) }
    }
}
