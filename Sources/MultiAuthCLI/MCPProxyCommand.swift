import ArgumentParser
import Dispatch
import HTTPTypes
import Logging
import MultiAuthAWSClient
import MultiAuthAuthorization
import MultiAuthCore
import MultiAuthCurl
import MultiAuthMCPBridge

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// `multiauth mcp-proxy --endpoint URL`: a local MCP server over stdio for an agent host,
/// carrying every message to a remote MCP server over streamable HTTP, signed with SigV4
/// from the credential chain (or authorized in any other mode), as AWS's `mcp-proxy-for-aws`
/// does.
struct MCPProxyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mcp-proxy",
        abstract: "Serve MCP over stdio and carry each message to a remote MCP server (streamable HTTP), signed with SigV4 from the credential chain.",
        discussion: """
            For an agent host's MCP configuration: {"command": "multiauth", "args": ["mcp-proxy", "--endpoint", URL]}. The service \
            and region are inferred from Bedrock AgentCore, API Gateway, AppSync and Lambda function URL hosts (else --service, \
            --region). Answers stream through as they arrive; a stream cut short is resumed with Last-Event-ID; a call the server \
            does not answer (a failure, an HTTP error) gets a JSON-RPC error (code -32000) with the reason, never silence. When \
            standard input ends, calls under way finish and the session is ended (DELETE). Nothing but MCP messages is written \
            to standard output.
            """)

    @Option(help: "The remote MCP server's streamable HTTP endpoint (https://…/mcp).") var endpoint: String
    @OptionGroup var access: AuthorizationOptions
    @Flag(help: "List and call only tools the server annotates readOnlyHint: true; calls to others get a JSON-RPC error.")
    var readOnly = false
    @Option(help: "Give up a call when no byte moves for this many seconds.") var timeout: Double = 180
    @Option(help: "Connection timeout in seconds.") var connectTimeout: Double = 10
    @Option(help: "Attempts for retryable failures (connection errors; 429, 500, 502, 503, 504). A call that may have reached the server is not sent again.")
    var retries: Int = 3
    @Flag(name: [.customShort("v"), .customLong("verbose")], help: "Log each retry and refusal on standard error.") var verbose = false

    func validate() throws {
        try ArgumentChecks.seconds(timeout, "--timeout", in: 0.001...86_400)
        try ArgumentChecks.seconds(connectTimeout, "--connect-timeout", in: 0.001...3_600)
        try ArgumentChecks.count(retries, "--retries", in: 1...100)
    }

    func run() async throws {
        let logger = TraceLog.logger(verbose: verbose)
        let request: HTTPRequest
        do { request = try HTTPRequest(method: .post, wireURL: endpoint) } catch { throw CLIError("--endpoint", error) }
        // A session token, API key or bearer token would cross the network in the clear.
        guard request.scheme == "https" || Self.isLoopback(request.wireHost) else {
            throw CLIError("--endpoint", "use https: plain http is only for a server on this host (127.0.0.1, ::1, localhost)")
        }
        let authorizer = try await access.authorizer(forHost: request.wireHost, logger: logger, defaultMode: .iam)
        var options = CurlHTTPClient.Options()
        options.connectTimeout = .clamped(seconds: connectTimeout)
        options.stallTimeout = .clamped(seconds: timeout)
        var retry = RetryStrategy.httpStandard
        retry.backoff.maxAttempts = retries
        let client = AuthorizedHTTPClient(transport: CurlHTTPClient(options: options), authorizer: authorizer, retry: retry, logger: logger)
        let output = StandardOutputLines()
        let bridge = MCPBridge(client: client, endpoint: request, readOnly: readOnly, logger: logger, write: output.write)
        await bridge.run(StreamedStandardInput.lines())
        output.flush()
    }
}

extension MCPProxyCommand {
    /// 127.0.0.0/8, ::1 or localhost.
    static func isLoopback(_ host: String) -> Bool {
        let bare = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
        return bare == "localhost" || bare == "::1" || (bare.hasPrefix("127.") && bare.split(separator: ".").count == 4)
    }
}

/// Standard input's lines (without their newline), read on a queue of their own (a Dispatch
/// thread, not a cooperative one) so that no task waits on the descriptor. A line over 16 MiB is cut there.
enum StreamedStandardInput {
    static let limit = 16 << 20

    static func lines() -> AsyncStream<[UInt8]> {
        let (lines, continuation) = AsyncStream.makeStream(of: [UInt8].self, bufferingPolicy: .unbounded)
        DispatchQueue(label: "multiauth.stdin").async {
            var pending: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 64 << 10)
            while true {
                let count = chunk.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, $0.count) }
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { break }
                for byte in chunk[..<count] {
                    if byte == 0x0A {
                        continuation.yield(pending)
                        pending.removeAll(keepingCapacity: true)
                    } else if pending.count < limit {
                        pending.append(byte)
                    }
                }
            }
            if !pending.isEmpty { continuation.yield(pending) }
            continuation.finish()
        }
        return lines
    }
}

/// Standard output written one line at a time, in order, on a serial queue: a client that
/// reads slowly holds up the queue, not a cooperative thread.
final class StandardOutputLines: Sendable {
    private let queue = DispatchQueue(label: "multiauth.stdout")

    /// Queues `line` and a newline.
    func write(_ line: [UInt8]) {
        queue.async { _ = FileHandleless.writeAll(line + [0x0A], to: STDOUT_FILENO) }
    }

    /// Returns once every queued line is written.
    func flush() { queue.sync {} }
}
