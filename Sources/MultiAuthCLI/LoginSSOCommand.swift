import ArgumentParser
import MultiAuthCore
import MultiAuthCredentials

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension LoginCommand {
    /// `multiauth login sso`: IAM Identity Center's device authorization, written to the AWS
    /// CLI's token cache (`~/.aws/sso/cache`), so `aws` and `multiauth` share one login.
    struct SSO: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "sso",
            abstract: "Sign in to IAM Identity Center (AWS SSO) by device authorization and cache the login as the AWS CLI does.",
            discussion: "The login is written to ~/.aws/sso/cache/<sha1>.json, where `aws`, botocore and multiauth's SSO profiles all read it. AWS_ENDPOINT_URL_SSO_OIDC overrides the OIDC endpoint.")
        @Option(help: "The profile whose sso_session (or sso_start_url) to sign in to (default: AWS_PROFILE, else default).") var profile: String?
        @Option(help: "The [sso-session NAME] section to sign in to, instead of a profile's.") var ssoSession: String?
        @Flag(help: "Do not try to open the verification page in a browser.") var noBrowser = false
        @Option(help: "Time limit in seconds for the whole login, the approval included; exit 28 when it passes.")
        var timeout: Double = 600

        func validate() throws {
            try ArgumentChecks.seconds(timeout, "--timeout", in: 1...3_600)
            if profile != nil && ssoSession != nil { throw CLIError(message: "give --profile or --sso-session, not both", exitCode: 2) }
        }

        func run() async throws {
            let environment = ProcessInfo.processInfo.environment
            let (configuration, profile) = try sessionConfiguration(environment)
            let login = try SSODeviceLogin(configuration: configuration, environment: environment, profile: profile, http: CommandTimeout.transport())
            let openBrowser = !noBrowser
            let path: String
            do {
                path = try await CommandTimeout.run(timeout, what: "the SSO login", flag: "--timeout") {
                    try await login.run { prompt in
                        // The server's text is shown escaped: it must not write to the terminal.
                        StandardError.emit(
                            "To sign in, visit \(Redaction.quoted(prompt.verificationURI)) and enter the code \(Redaction.quoted(prompt.userCode))")
                        if let complete = prompt.verificationURIComplete {
                            StandardError.emit("(or open \(Redaction.quoted(complete)))")
                            if openBrowser { await BrowserLauncher.open(complete) }
                        }
                    }
                }
            } catch let error as CredentialsError {
                throw CLIError(message: error.description, exitCode: Self.exitCode(error))
            }
            StandardError.emit("Signed in to \(configuration.startURL); the login is cached in \(path)")
        }

        /// The login commands' exit codes: 3 refused, 4 the device code expired, 5 the service
        /// answered wrongly, 7 unreachable, 28 timed out, 1 otherwise (a setting).
        static func exitCode(_ error: CredentialsError) -> Int32 {
            switch error.kind {
            case .serviceError(_, let code, _) where code.contains("AccessDenied") || code == "access_denied": 3
            case .serviceError(_, let code, _) where code.contains("ExpiredToken") || code == "expired_token": 4
            case .serviceError: 5
            case .loginNeeded, .ssoLoginNeeded: 4
            case .transport: 7
            case .timedOut: 28
            default: 1
            }
        }

        /// The login to make, and the profile it came from (nil for --sso-session).
        private func sessionConfiguration(_ environment: [String: String]) throws -> (SSOSessionConfiguration, String?) {
            do {
                let files = try SharedConfigFiles.load(environment: environment)
                if let ssoSession { return (try SSOSessionConfiguration.named(ssoSession, in: files), nil) }
                let name = profile ?? environment["AWS_PROFILE"].flatMap { $0.isEmpty ? nil : $0 } ?? "default"
                guard let configuration = try SSOSessionConfiguration.of(profile: name, in: files) else {
                    throw CLIError(
                        message: "--profile: profile '\(name)' has no sso_session or sso_start_url in \(files.paths.last ?? "the config file")",
                        exitCode: 2)
                }
                return (configuration, name)
            } catch let error as CredentialsError {
                throw CLIError(message: error.description, exitCode: 1)
            }
        }
    }
}
