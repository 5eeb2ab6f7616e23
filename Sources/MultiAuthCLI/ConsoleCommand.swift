import ArgumentParser
import MultiAuthCore
import MultiAuthCredentials
import MultiAuthSigV4

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `multiauth console`: the AWS console in a browser, signed in as the profile's session
/// (`aws-vault login`, `granted console`).
struct ConsoleCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "console",
        abstract: "Open the AWS console signed in as the profile's session, or print the sign-in URL (--print).",
        discussion: """
            The credentials come from the default chain (as `multiauth credentials` resolves them). Temporary credentials \
            are traded at the sign-in service's federation endpoint as they are; long-term IAM user keys first become a \
            federated user's session (STS GetFederationToken, --federated-name, with --policy: by default one allowing \
            everything, which AWS narrows to what the user may do). The URL signs a browser in for 15 minutes: it is a \
            secret, printed only with --print. AWS_ENDPOINT_URL_SIGNIN and AWS_ENDPOINT_URL_STS override the services.
            """)

    @Option(help: "The shared-file profile (default: AWS_PROFILE, else the chain from the environment on).") var profile: String?
    @Option(help: "The region whose sign-in service and console to use (default: AWS_REGION, AWS_DEFAULT_REGION, the profile's, else us-east-1).", transform: regionArgument)
    var region: String?
    @Option(help: "The console page to open (default: the console home of the region's partition).") var destination: String?
    @Option(help: "The page a user returns to when the console session ends (the login URL's Issuer).") var issuer: String?
    @Option(help: "Seconds the console session lasts: 900 to 43200 for a role's session, 900 to 129600 for an IAM user's keys (default: 43200).")
    var duration: Int?
    @Option(help: "The federated user's name, for an IAM user's long-term keys (2 to 32 of A-Z a-z 0-9 +=,.@_-).") var federatedName = "multiauth"
    @Option(help: "The session policy (JSON) for an IAM user's long-term keys.") var policy = ConsoleFederation.everythingTheUserMay
    @Flag(help: "Print the sign-in URL on standard output instead of opening a browser.") var print = false
    @Option(help: "Time limit in seconds, credential resolution and the sign-in calls included; exit 28 when it passes.")
    var maxTime: Double = CommandTimeout.defaultSeconds
    @OptionGroup var sessions: ProfileSessionOptions
    @OptionGroup var store: StoreOptions

    private static let noBrowser = CLIError(message: "no browser to open the console in: set BROWSER, or print the URL with --print", exitCode: 1)

    func validate() throws {
        try ArgumentChecks.seconds(maxTime, "--max-time", in: 0.001...3_600)
        if let duration { try ArgumentChecks.count(duration, "--duration", in: 900...129_600) }
        guard (2...32).contains(federatedName.count), federatedName.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+=,.@_-".contains($0)) }) else {
            throw ValidationError("--federated-name must be 2 to 32 of A-Z a-z 0-9 +=,.@_-")
        }
        if let destination, !(destination.hasPrefix("https://") || destination.hasPrefix("http://")) || !WireText.isSafe(destination) {
            throw ValidationError("--destination must be an http(s) URL")
        }
    }

    func run() async throws {
        guard print || BrowserLauncher.isAvailable else {
            throw Self.noBrowser
        }
        let value = try await ChainCredentials.resolve(sessions.chain(profile: profile, store: store), maxTime: maxTime)
        if value.credentials.sessionToken != nil, let duration, duration > 43_200 {
            throw CLIError("--duration", "a role's console session lasts at most 43200 seconds")
        }
        let region = try await ChainCredentials.region(region, profile: profile) ?? "us-east-1"
        let federation: ConsoleFederation
        do { federation = try ConsoleFederation(region: region, http: CommandTimeout.transport()) } catch { throw CLIError(message: error.description) }
        let (credentials, duration, name, policy) = (value.credentials, duration, federatedName, policy)
        let token = try await CommandTimeout.run(maxTime, what: "the console sign-in", flag: "--max-time") {
            do throws(CredentialsError) {
                return try await federation.signinToken(for: credentials, duration: duration, federatedName: name, policy: policy)
            } catch {
                throw CLIError(message: error.description, exitCode: LoginCommand.SSO.exitCode(error))
            }
        }
        let url = federation.loginURL(token: token, destination: destination, issuer: issuer)
        if print {
            FileHandleless.writeStandardOutput(Array((url + "\n").utf8))
        } else if await BrowserLauncher.open(url) {
            StandardError.emit("Opened the AWS console as \(credentials.accessKeyId) (\(value.source)).")
        } else {
            throw Self.noBrowser
        }
    }
}
