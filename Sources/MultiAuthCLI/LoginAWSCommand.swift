import ArgumentParser
import MultiAuthCore
import MultiAuthCredentials
import MultiAuthCrypto
import MultiAuthHTTP
import MultiAuthTokens

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension LoginCommand {
    /// `multiauth login aws`: the AWS CLI's `aws login` (console credentials), writing the same
    /// session cache and the profile's `login_session`, so `aws`, botocore and multiauth share it.
    struct AWS: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "aws",
            abstract: "Sign in with your AWS console session, as `aws login` does, and set the profile's login_session.",
            discussion: """
                The browser signs in at the sign-in service and redirects to a one-use loopback address (--remote: the \
                page shows a code to paste instead). The session is written to AWS_LOGIN_CACHE_DIRECTORY (default \
                ~/.aws/login/cache) and refreshed by every reader; AWS_ENDPOINT_URL_SIGNIN overrides the service.
                """)
        @Option(help: "The profile to set login_session in (default: AWS_PROFILE, else default).") var profile: String?
        @Option(help: "The sign-in region (default: AWS_REGION, AWS_DEFAULT_REGION, the profile's, else us-east-1).", transform: regionArgument)
        var region: String?
        @Flag(help: "No loopback redirect: print the URL and read the code the browser shows from standard input.") var remote = false
        @Flag(help: "Do not try to open the sign-in page in a browser.") var noBrowser = false
        @Option(help: "Time limit in seconds for the whole login; exit 28 when it passes.") var timeout: Double = 600

        func validate() throws { try ArgumentChecks.seconds(timeout, "--timeout", in: 1...3_600) }

        func run() async throws {
            let environment = ProcessInfo.processInfo.environment
            let profile = profile ?? environment["AWS_PROFILE"].flatMap { $0.isEmpty ? nil : $0 } ?? "default"
            let configPath = environment["AWS_CONFIG_FILE"] ?? (environment["HOME"] ?? ".") + "/.aws/config"
            let section = profile == "default" ? "default" : "profile \(profile)"
            let existing = try Self.read(configPath)
            try Self.refuseOtherCredentials(in: existing, section: section, profile: profile)
            let region = try await ChainCredentials.region(region, profile: profile) ?? "us-east-1"
            let signIn: ConsoleSignIn
            do { signIn = try ConsoleSignIn(region: region, environment: environment, http: CommandTimeout.transport()) } catch {
                throw CLIError(message: error.description)
            }
            let (remote, openBrowser) = (remote, !noBrowser)
            let (session, name) = try await CommandTimeout.run(timeout, what: "the AWS login", flag: "--timeout") {
                try await Self.signIn(signIn, remote: remote, openBrowser: openBrowser, timeout: timeout)
            }
            do { try LoginSessionCache(environment: environment).write(session, as: name) } catch { throw CLIError(message: error.description) }
            let updated = ConfigFileSection.replacing(section, with: [("login_session", name)], in: String(decoding: existing, as: UTF8.self))
            do { try AtomicFileWrite.replace(path: configPath, contents: Array(updated.utf8)) } catch { throw CLIError(message: "\(configPath): \(error)") }
            StandardError.emit("Signed in as \(name); profile '\(profile)' in \(configPath) uses it (login_session).")
        }

        private static func signIn(_ signIn: ConsoleSignIn, remote: Bool, openBrowser: Bool, timeout: Double) async throws -> (LoginSession, String) {
            do {
                if remote {
                    let redirect = signIn.confirmationURI
                    let url = signIn.authorizationURL(client: ConsoleSignIn.crossDeviceClient, redirectURI: redirect)
                    StandardError.emit("Open \(Redaction.quoted(url)) in a browser, sign in, and paste the code it shows:")
                    guard let line = readLine(strippingNewline: true), let (code, state) = Self.pastedCode(line) else {
                        throw CLIError(message: "no authorization code was pasted (expected the code the sign-in page shows)")
                    }
                    guard state == signIn.state else { throw CLIError(message: "the pasted code is for another sign-in (its state does not match)") }
                    return try await signIn.redeem(code: code, client: ConsoleSignIn.crossDeviceClient, redirectURI: redirect)
                }
                let loopback = try LoopbackRedirectServer(path: "/oauth/callback")
                let url = signIn.authorizationURL(client: ConsoleSignIn.sameDeviceClient, redirectURI: loopback.redirectURI)
                StandardError.emit("To sign in, open \(Redaction.quoted(url))")
                if openBrowser { await BrowserLauncher.open(url) }
                let parameters = try await loopback.waitForRedirect(timeout: .seconds(timeout))
                guard parameters["state"] == signIn.state else { throw CLIError(message: "the sign-in redirect is for another sign-in (its state does not match)") }
                guard let code = parameters["code"], !code.isEmpty else {
                    throw CLIError(message: "the sign-in redirect carried no code\(parameters["error"].map { " (error \(Redaction.quoted($0)))" } ?? "")", exitCode: 3)
                }
                return try await signIn.redeem(code: code, client: ConsoleSignIn.sameDeviceClient, redirectURI: loopback.redirectURI)
            } catch let error as CredentialsError {
                throw CLIError(message: error.description, exitCode: SSO.exitCode(error))
            } catch let error as TokenError {
                throw CLIError(message: error.description, exitCode: error.code == TokenError.timedOut(what: "", seconds: 0).code ? 28 : 1)
            }
        }

        /// The pasted code: base64 of `state=…&code=…`, as the sign-in page shows it.
        static func pastedCode(_ text: String) -> (code: String, state: String)? {
            guard let bytes = try? Base64.decode(text.trimmedWhitespace) else { return nil }
            var fields: [String: String] = [:]
            for (name, value) in FormURLEncoding.decode(String(decoding: bytes, as: UTF8.self)) { fields[name] = value }
            guard let code = fields["code"], let state = fields["state"] else { return nil }
            return (code, state)
        }

        private static func read(_ path: String) throws -> [UInt8] {
            guard FileManager.default.fileExists(atPath: path) else { return [] }
            switch BoundedFileRead.contents(atPath: path, limit: 4 << 20) {
            case .success(let bytes): return bytes
            case .failure(let failure): throw CLIError(message: "\(path): \(failure)")
            }
        }

        /// The AWS CLI's rule: a profile with other credentials would still win over the login.
        private static func refuseOtherCredentials(in config: [UInt8], section: String, profile: String) throws {
            var inSection = false
            for line in String(decoding: config, as: UTF8.self).split(separator: "\n").map(String.init) {
                if let name = ConfigFileSection.sectionName(line) {
                    inSection = name == section
                    continue
                }
                guard inSection, let key = line.split(separator: "=", maxSplits: 1).first.map({ String($0).trimmedWhitespace }) else { continue }
                if ["aws_access_key_id", "role_arn", "web_identity_token_file", "sso_role_name", "sso_account_id", "credential_process"].contains(key) {
                    throw CLIError(message: "profile '\(profile)' already has \(key): use another --profile, or remove its credentials first")
                }
            }
        }
    }
}
