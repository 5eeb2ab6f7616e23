import ArgumentParser
import HTTPTypes
import Logging
package import MultiAuthAuthorization
import MultiAuthAWSClient
import MultiAuthCore
import MultiAuthCredentials
import MultiAuthCurl
import MultiAuthSigV4
import MultiAuthTokens

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `multiauth request URL` (alias `curl`): a curl-like call, authorized in any mode.
struct RequestCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "request",
        abstract: "Send an HTTP request authorized with an API key, SigV4 (IAM) or a token, and print the response body.",
        aliases: ["curl"]
    )

    @Argument(help: "The absolute URL, sent as written.") var url: String
    @Option(name: [.customShort("X"), .customLong("request")], help: "HTTP method.") var method: String?
    @Option(name: [.customShort("H"), .customLong("header")], help: "A header 'Name: value' (repeatable).")
    var headers: [String] = []
    @Option(name: [.customShort("d"), .customLong("data")], help: "Request body text; @FILE and @- as for --data-binary (sent as is, newlines kept).") var data: String?
    @Option(name: .customLong("data-binary"), help: "Body: @FILE streams a file (never held in memory), @- reads standard input (spooled to a private temporary file), else the text.")
    var dataBinary: String?
    @Flag(name: [.customShort("i"), .customLong("include")], help: "Print the status line and response headers first.")
    var include = false
    @Option(name: [.customShort("o"), .customLong("output")], help: "Write the response body to FILE (replaced only when the call succeeds; with --fail, only for a status below 400).")
    var output: String?
    @Flag(help: "Exit 22 without printing the body when the status is 400 or above.") var fail = false
    @Flag(name: [.customShort("v"), .customLong("verbose")], help: "Print the request, and for IAM the canonical request and string to sign, with secrets redacted, to standard error.")
    var verbose = false
    @OptionGroup var access: AuthorizationOptions
    @Option(help: "Connection timeout in seconds.") var connectTimeout: Double = 10
    @Option(help: "Whole-command time limit in seconds, retries and token or credential commands included (0: none); exit 28 when it passes.")
    var maxTime: Double = 0
    @Option(help: "Give up when no byte moves for this many seconds (curl's --speed-time; 0: never).") var speedTime: Double = 60
    @Option(help: "Attempts for retryable failures (connection errors; 429, 500, 502, 503, 504; AWS throttling codes). A POST or PATCH that may have run is not sent again.") var retries: Int = 3
    @OptionGroup var upload: ChunkedUploadOptions

    /// Durations, counts, sizes and the scope's text are checked before anything runs: a
    /// non-finite, negative or absurd value is a usage error naming its range (it used to trap
    /// on conversion), and a control character in the region or service one naming the flag.
    func validate() throws {
        try ArgumentChecks.seconds(connectTimeout, "--connect-timeout", in: 0.001...3_600)
        try ArgumentChecks.seconds(maxTime, "--max-time", in: 0...604_800)
        try ArgumentChecks.seconds(speedTime, "--speed-time", in: 0...86_400)
        try ArgumentChecks.count(retries, "--retries", in: 1...100)
    }

    func run() async throws {
        let command = self
        try await CommandTimeout.run(maxTime, what: "the request to \(Redaction.url(url))", flag: "--max-time") { try await command.perform() }
    }

    private func perform() async throws {
        let logger = TraceLog.logger(verbose: verbose)
        let (request, body, spool) = try await buildRequest()
        defer { spool?.remove() }
        let authorizer = try await makeAuthorizer(for: request, logger: logger)
        var options = CurlHTTPClient.Options()
        options.connectTimeout = .clamped(seconds: connectTimeout)
        options.totalTimeout = .clamped(seconds: maxTime)
        options.stallTimeout = .clamped(seconds: speedTime)
        var retry = RetryStrategy.httpStandard
        retry.backoff.maxAttempts = retries
        let client = AuthorizedHTTPClient(transport: CurlHTTPClient(options: options), authorizer: authorizer, retry: retry, logger: logger)
        let file = output.map(OutputFile.init)
        // The body goes out as it arrives; an error body (400 or more) comes back in memory.
        let destination: ResponseDestination =
            file.map { .file(path: $0.partialPath) } ?? .descriptor(STDOUT_FILENO, preamble: include ? Self.headText : nil)
        let outcome: (response: ReceivedResponse, sent: AuthorizedRequest)
        do { outcome = try await client.send(request, body: body, responseBody: destination) } catch {
            file?.discard()
            throw CLIError(message: error.description.replacing(file?.partialPath ?? "\u{0}", with: output ?? ""), exitCode: CurlExitCode.of(error))
        }
        if verbose { TraceLog.printRequest(outcome.sent.request) }
        try finish(outcome.response, file: file)
    }

    /// What is left once the transfer is over: the exit status for `--fail`, the head for `-i`
    /// and any body kept in memory (an error body), written where the body belongs.
    private func finish(_ response: ReceivedResponse, file: OutputFile?) throws {
        if fail, response.status >= 400 {
            file?.discard()
            throw CLIError(message: "the requested URL returned error: \(response.status)", exitCode: 22)
        }
        let head = include && (file != nil || !response.streamed) ? Self.headText(response.head) : []
        FileHandleless.writeStandardOutput(head)
        guard let file else {
            if !response.streamed { FileHandleless.writeStandardOutput(response.body) }
            return
        }
        if !response.streamed { try file.writeBody(response.body) }
        try file.commit()
    }

    /// `HTTP 200` and the header lines, as `-i` prints them.
    @Sendable static func headText(_ head: HTTPResponse) -> [UInt8] {
        var out = Array("HTTP \(head.status.code)\r\n".utf8)
        for field in head.headerFields { out += Array("\(field.name.rawName): \(field.value)\r\n".utf8) }
        return out + Array("\r\n".utf8)
    }

    /// The request, its body, and the spool file that holds standard input (removed by the caller).
    private func buildRequest() async throws -> (HTTPRequest, OutgoingBody, SpooledBody?) {
        let fields = try HeaderArguments.fields(headers)
        let (body, spool) = try await bodySource()
        let methodText = self.method ?? (upload.chunked ? "PUT" : { if case .empty = body { "GET" } else { "POST" } }())
        do {
            return (try HTTPRequest(method: .checked(methodText), wireURL: url, headerFields: fields), body, spool)
        } catch {
            spool?.remove()
            throw CLIError(message: "\(error)", exitCode: { if case .invalidURL = error.kind { 3 } else { 2 } }())
        }
    }

    /// `-d` or `--data-binary`: text, `@FILE` (streamed from the file), or `@-` (standard
    /// input, spooled to a private temporary file so it can be hashed and replayed).
    private func bodySource() async throws -> (OutgoingBody, SpooledBody?) {
        if data != nil, dataBinary != nil { throw CLIError(message: "-d and --data-binary are exclusive", exitCode: 2) }
        let flag = data != nil ? "-d" : "--data-binary"
        guard let text = data ?? dataBinary else {
            if upload.chunked { throw CLIError(message: "--chunked needs --data-binary @FILE", exitCode: 2) }
            return (.empty, nil)
        }
        guard text.hasPrefix("@") else {
            if upload.chunked { throw CLIError(message: "--chunked needs --data-binary @FILE", exitCode: 2) }
            return (.bytes(Array(text.utf8)), nil)
        }
        let path = String(text.dropFirst())
        guard path == "-" else { return (.file(path: path), nil) }
        do {
            let spool = try await SpooledBody(reading: STDIN_FILENO)
            return (spool.body, spool)
        } catch { throw CLIError(flag, error) }
    }

    private func makeAuthorizer(for request: HTTPRequest, logger: Logger) async throws -> any RequestAuthorizer {
        // A token command has its own 30 s bound. Where --max-time is as tight, the whole
        // command's deadline must stop it first, so its error names the flag: equal limits raced.
        let limit = maxTime > 0 && maxTime <= CommandTimeout.defaultSeconds ? maxTime + 1 : CommandTimeout.defaultSeconds
        return try await access.authorizer(
            forHost: request.wireHost, logger: logger, tokenCommandLimit: limit, payloadSigning: try upload.payloadSigning(auth: access.auth))
    }

}

/// curl's exit codes for a failed transfer, which `request` exits with (the server commands
/// use the timeout's too).
package enum CurlExitCode {
    /// The code for `error`: 28 for a timeout, 7 for a refused connection, and so on; 1 otherwise.
    package static func of(_ error: RequestError) -> Int32 {
        if case .authorization(let authorization) = error.kind {
            let cause = (authorization.underlying as? CredentialsError)?.code
            if authorization.code == "Authorization.tokenCommandTimedOut" || cause == "Credentials.timedOut" { return 28 }
        }
        guard case .transport(let transport) = error.kind else { return 1 }
        switch transport.kind {
        case .invalidURL: return 3
        case .connectionFailed: return 7
        case .body: return 26
        case .timedOut: return 28
        case .unwritableResponseFile: return 23
        case .interrupted: return 18
        case .tlsFailure: return 35
        default: return 1
        }
    }
}
