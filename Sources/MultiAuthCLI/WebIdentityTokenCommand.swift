public import ArgumentParser
import MultiAuthCore
public import MultiAuthCredentials

/// `multiauth token aws-web-identity`: a JWT for the caller's AWS identity from STS
/// `GetWebIdentityToken` (outbound identity federation), for an external service that trusts
/// the account's issuer.
struct WebIdentityTokenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "aws-web-identity",
        abstract: "Print a JWT of the caller's AWS identity for an external service (STS GetWebIdentityToken, outbound identity federation).",
        discussion: """
            The account must have outbound identity federation turned on; the service verifies the token with the account's \
            issuer and JWKS. Each run asks STS once (a long-running process caches tokens with WebIdentityTokenProvider).
            """)

    @Option(help: "The audience the token is for (repeatable, 1 to 10).") var audience: [String] = []
    @Option(help: "RS256 (default) or ES384.") var signingAlgorithm: WebIdentityTokenProvider.SigningAlgorithm = .rs256
    @Option(help: "How long the token lasts, 60 to 3600 seconds.") var duration = 300
    @OptionGroup var options: PresignedTokenOptions

    func validate() throws {
        guard (1...10).contains(audience.count) else { throw ValidationError("give --audience 1 to 10 times") }
        try ArgumentChecks.count(duration, "--duration", in: 60...3_600)
        for value in audience { try ArgumentChecks.wireText(value, "--audience") }
    }

    func run() async throws {
        let (credentials, region) = try await options.resolveChain()
        let token = try await CommandTimeout.run(options.maxTime, what: "getting a web identity token from STS", flag: "--max-time") {
            [audience, signingAlgorithm, duration] in
            do throws(CredentialsError) {
                let provider = try WebIdentityTokenProvider(
                    credentials: credentials, region: region, audiences: audience, algorithm: signingAlgorithm, durationSeconds: duration,
                    http: CommandTimeout.transport())
                return try await provider.token()
            } catch { throw CLIError(message: error.description) }
        }
        FileHandleless.writeStandardOutput(Array((token.jwt + "\n").utf8))
    }
}

extension WebIdentityTokenProvider.SigningAlgorithm: ExpressibleByArgument {}
