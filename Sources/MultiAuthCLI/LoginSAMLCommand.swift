import ArgumentParser
import MultiAuthCachedSessions
import MultiAuthCore
import MultiAuthCredentials
import MultiAuthStore
import MultiAuthTokens

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension LoginCommand {
    /// `multiauth login saml`: the browser signs in at the organisation's SAML identity
    /// provider, MultiAuth takes only the SAML response, checks it, and keeps the
    /// AssumeRoleWithSAML session in the store under `--name` for `saml_session` profiles.
    struct SAML: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "saml",
            abstract: "Sign in through a SAML 2.0 identity provider in the browser and keep the role session in the store.",
            discussion: """
                MultiAuth sends an AuthnRequest (Issuer urn:amazon:webservices) asking the identity provider to post its \
                response to a one-use address on 127.0.0.1; IdP-initiated posts are taken too. For an identity provider that \
                posts only to AWS, give the response with --saml-response-file. A profile with saml_session = NAME uses the \
                session until it expires; AWS_ENDPOINT_URL_STS overrides STS.
                """)
        @Option(name: .customLong("idp-url"), help: "The identity provider's SAML SSO URL (default: the metadata's).") var idpURL: String?
        @Option(help: """
            The identity provider's SAML metadata (a file, or an https URL), as the IAM SAML provider was made from: the \
            response must then carry its signature, checked here before STS sees it.
            """)
        var idpMetadata: String?
        @Option(help: "A file holding the base64 SAMLResponse (- for standard input), instead of the browser.") var samlResponseFile: String?
        @Option(help: "The role to assume (needed when the assertion offers several).") var roleArn: String?
        @Option(help: "The role's IAM SAML provider, when the role is offered with several.") var principalArn: String?
        @Option(help: "The session's length in seconds, 900 to 43200 (default: the assertion's SessionDuration, else an hour).")
        var duration: Int?
        @Option(help: "STS's region (default: AWS_REGION, AWS_DEFAULT_REGION, else us-east-1).", transform: regionArgument) var region: String?
        @Flag(help: "Do not open a browser; only print the sign-in URL.") var noBrowser = false
        @Option(help: "Time limit in seconds for the identity provider's post; exit 28 when it passes.") var timeout: Double = 300
        @OptionGroup var login: LoginOptions

        func validate() throws {
            try ArgumentChecks.seconds(timeout, "--timeout", in: 1...3_600)
            if idpURL == nil, idpMetadata == nil, samlResponseFile == nil {
                throw CLIError(message: "give --idp-url, --idp-metadata or --saml-response-file", exitCode: 2)
            }
            if let duration, !(900...43_200).contains(duration) { throw CLIError("--duration", "must be 900 to 43200 seconds") }
        }

        func run() async throws {
            let store = try await StoreOptions.reportingErrors { try await login.store.open() }
            let sessions = SAMLSessions(store: store)
            let region = try region ?? SAMLSignIn.defaultRegion()
            let signIn = SAMLSignIn(timeout: timeout, openBrowser: !noBrowser)
            try await SAMLSignIn.reporting {
                let provider = try await SAMLSignIn.identityProvider(idpMetadata)
                let idpURL = idpURL ?? provider?.singleSignOnURL
                let response = try await receivedResponse(signIn, idpURL: idpURL, provider: provider)
                guard await !sessions.wasObtained(with: response.assertionID, name: login.name) else {
                    throw CredentialsError.samlResponse("it was used already for the SAML session \(login.name) (a replay)")
                }
                let role = try SAMLSignIn.choose(in: response, roleArn: roleArn, principalArn: principalArn)
                let settings = SAMLSignInSettings(idpURL: idpURL ?? "", role: role, durationSeconds: duration, region: region, metadata: idpMetadata)
                let result = try await signIn.assume(response, settings: settings)
                try await sessions.save(result, settings: settings, name: login.name)
                let expiry = result.credentials.expiration.map { " until \($0.formatted(.iso8601))" } ?? ""
                StandardError.emit("Signed in as \(role.roleArn)\(expiry): SAML session '\(login.name)' (a profile uses it with saml_session = \(login.name)).")
            }
        }

        private func receivedResponse(_ signIn: SAMLSignIn, idpURL: String?, provider: SAMLIdentityProvider?) async throws -> SAMLResponse {
            if provider == nil {
                StandardError.emit("multiauth: the response's signature is left to STS (give --idp-metadata to check it here)")
            }
            if let samlResponseFile {
                return try SAMLResponse(encoded: try SAMLSignIn.read(samlResponseFile), now: Date(), identityProvider: provider)
            }
            guard let idpURL else { throw CLIError(message: "--idp-metadata names no HTTP-Redirect SingleSignOnService: give --idp-url", exitCode: 2) }
            return try await signIn.response(idpURL: idpURL, provider: provider)
        }
    }
}

/// A SAML sign-in through the browser: the AuthnRequest, the loopback post, the checks and
/// AssumeRoleWithSAML. `login saml` runs it, and so does a command whose `saml_session` is spent.
struct SAMLSignIn: Sendable {
    /// The largest post read from the identity provider: the longest response STS takes, form-encoded.
    static let maxPost = 3 * SAMLResponse.maxLength
    /// How long a command whose `saml_session` is spent waits for the identity provider's post.
    static let renewalTimeout: Double = 300
    let timeout: Double
    let openBrowser: Bool

    /// The identity provider's response, posted to a one-use loopback address.
    func response(idpURL: String, provider: SAMLIdentityProvider?) async throws -> SAMLResponse {
        let path = "/saml/" + UUID().uuidString.lowercased()
        let loopback = try LoopbackRedirectServer(path: path)
        let request = try SAMLAuthnRequest(idpURL: idpURL, assertionConsumerServiceURL: loopback.redirectURI)
        let url = request.redirectURL()
        // The whole URL (an AuthnRequest is no secret), escaped; the IdP URL was checked to be plain ASCII.
        StandardError.emit("To sign in, open \(Redaction.quoted(url, limit: 16_384))")
        if openBrowser { await BrowserLauncher.open(url) }
        let fields: [String: String]
        do { fields = try await loopback.waitForFormPost(timeout: .seconds(timeout), maxBytes: Self.maxPost) } catch {
            // Waiting too long stays a timeout; a post that cannot be read is a bad response.
            if error.exitCode == 28 { throw error }
            throw CredentialsError.samlResponse(error.description)
        }
        guard let encoded = fields["SAMLResponse"], !encoded.isEmpty else { throw CredentialsError.samlResponse("the identity provider posted no SAMLResponse") }
        return try SAMLResponse(encoded: encoded, now: Date(), identityProvider: provider, requestID: request.id, recipient: loopback.redirectURI)
    }

    /// ``response(idpURL:)`` with every failure as a ``CredentialsError``.
    private func checkedResponse(idpURL: String, provider: SAMLIdentityProvider?) async throws(CredentialsError) -> SAMLResponse {
        do { return try await response(idpURL: idpURL, provider: provider) } catch {
            if let error = error as? CredentialsError { throw error }
            throw .samlResponse("\(error)")
        }
    }

    /// STS's session for `response` with `settings`.
    func assume(_ response: SAMLResponse, settings: SAMLSignInSettings) async throws(CredentialsError) -> SAMLSignInResult {
        let credentials = try await SAMLRoleSession.assume(
            settings.role, with: response, durationSeconds: settings.durationSeconds, region: settings.region, http: CommandTimeout.transport())
        return SAMLSignInResult(credentials: credentials, assertionID: response.assertionID)
    }

    /// Signs in again with a spent session's settings (its role, not a new choice).
    func renew(_ settings: SAMLSignInSettings) async throws(CredentialsError) -> SAMLSignInResult {
        guard !settings.idpURL.isEmpty else {
            throw .samlResponse("the session was made from a saved response, and signing in again needs an identity provider URL")
        }
        let provider = try await Self.identityProvider(settings.metadata)
        return try await assume(try await checkedResponse(idpURL: settings.idpURL, provider: provider), settings: settings)
    }

    /// The provider the metadata at `location` describes, when one is given.
    static func identityProvider(_ location: String?) async throws(CredentialsError) -> SAMLIdentityProvider? {
        guard let location else { return nil }
        return try await SAMLIdentityProvider.load(location, http: CommandTimeout.transport())
    }

    /// The chosen pair; several offered and none chosen prints them and exits 2.
    static func choose(in response: SAMLResponse, roleArn: String?, principalArn: String?) throws -> SAMLRole {
        let chosen = Result { () throws(CredentialsError) -> SAMLRole in try response.role(roleArn, principalArn: principalArn) }
        guard case .failure(let error) = chosen else { return try chosen.get() }
        if case .samlRoleNotChosen = error.kind {
            StandardError.emit("The assertion offers these roles; give one with --role-arn:")
            for role in response.roles { StandardError.emit("  \(role.roleArn)  (provider \(role.principalArn))") }
            throw CLIError(message: error.description, exitCode: 2)
        }
        throw error
    }

    /// The response in `path` (`-`: standard input), refused unread past ``maxPost`` bytes.
    static func read(_ path: String) throws -> String {
        switch BoundedFileRead.contents(atPath: path == "-" ? "/dev/stdin" : path, limit: maxPost) {
        case .success(let bytes): return String(decoding: bytes, as: UTF8.self)
        case .failure(let failure) where failure.code == BoundedFileRead.Failure.tooLarge(limit: 0).code:
            throw CredentialsError.samlResponse("\(path) is over \(maxPost) bytes; STS takes at most \(SAMLResponse.maxLength) characters")
        case .failure(let failure): throw CLIError("--saml-response-file", "\(path): \(failure)")
        }
    }

    static func defaultRegion() throws -> String {
        let environment = ProcessInfo.processInfo.environment
        let region = [environment["AWS_REGION"], environment["AWS_DEFAULT_REGION"]].compactMap { $0 }.first { !$0.isEmpty }
        return try region.map { try regionArgument($0) } ?? "us-east-1"
    }

    /// Runs `body`, turning its errors into one line and an exit code: 3 STS refused, 4 the
    /// assertion expired at STS, 6 the response failed a check, 7 unreachable, 28 timed out.
    static func reporting(_ body: () async throws -> Void) async throws {
        do { try await body() } catch let error as CredentialsError {
            let code: Int32 = switch error.kind {
            case .samlResponse: 6
            case .serviceError(_, let code, _) where code == "ExpiredTokenException" || code == "ExpiredToken": 4
            case .serviceError(_, let code, _) where code.contains("AccessDenied") || code.contains("InvalidIdentityToken"): 3
            default: LoginCommand.SSO.exitCode(error)
            }
            throw CLIError(message: error.description, exitCode: code)
        } catch let error as TokenError {
            throw CLIError(message: error.description, exitCode: error.exitCode)
        }
    }
}
