import ArgumentParser
import MultiAuthCore
import MultiAuthCredentials
import MultiAuthSigV4

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `multiauth token bedrock`: a short-term Amazon Bedrock API key, as
/// `aws-bedrock-token-generator` makes it, for `AWS_BEARER_TOKEN_BEDROCK`.
struct BedrockTokenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bedrock",
        abstract: "Print a short-term Amazon Bedrock API key (bedrock-api-key-…, a presigned CallWithBearerToken URL), as aws-bedrock-token-generator does.",
        discussion: """
            Set it as AWS_BEARER_TOKEN_BEDROCK: the AWS SDKs, and multiauth request and proxy for the bedrock service, then send \
            it as Authorization: Bearer. The key lasts --expires-in, and never past the credentials' own expiry.
            """)

    @Option(help: "How long the key lasts: seconds, or a number with s, m or h (at most 12h, the default).", transform: Self.seconds)
    var expiresIn = PresignedTokens.bedrockLifetime
    @OptionGroup var options: PresignedTokenOptions

    func run() async throws {
        let (expiring, region, date) = try await options.resolveExpiring()
        var lifetime = expiresIn
        if let expiration = expiring.expiration {
            let left = Int((expiration.timeIntervalSince1970 - Double(date.secondsSince1970)).rounded(.down))
            guard left > 0 else { throw CLIError("--expires-in", "the credentials (\(expiring.source)) have expired") }
            if left < lifetime {
                StandardError.emit("multiauth: the key lasts \(left) s, until the credentials (\(expiring.source)) expire")
                lifetime = left
            }
        }
        let key: String
        do { key = try PresignedTokens.bedrockAPIKey(credentials: expiring.credentials, region: region, expires: lifetime, date: date) } catch {
            throw CLIError("--region", error)
        }
        FileHandleless.writeStandardOutput(Array((key + "\n").utf8))
    }

    /// `900`, `900s`, `15m` or `12h` as seconds, 1 to 12 hours.
    static func seconds(_ text: String) throws -> Int {
        let units: [Character: Int] = ["s": 1, "m": 60, "h": 3_600]
        let unit = text.last.flatMap { units[$0] }
        guard let number = Int(unit == nil ? Substring(text) : text.dropLast()), number > 0 else {
            throw ValidationError("--expires-in: expected seconds, or a number with s, m or h (such as 30m)")
        }
        let (total, overflow) = number.multipliedReportingOverflow(by: unit ?? 1)
        guard !overflow, total <= PresignedTokens.bedrockLifetime else { throw ValidationError("--expires-in: at most 12h") }
        return total
    }
}
