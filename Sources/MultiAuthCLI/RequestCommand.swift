import ArgumentParser
import Authorization
import CredentialProviders
import HTTPTransport
import SigV4
import TokenProviders
import Synchronization

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

    enum Auth: String, ExpressibleByArgument, CaseIterable {
        case apiKey = "api-key", iam, userPools = "user-pools", oidc, lambda, none
    }

    @Argument(help: "The absolute URL, sent as written.") var url: String
    @Option(name: [.customShort("X"), .customLong("request")], help: "HTTP method.") var method: String?
    @Option(name: [.customShort("H"), .customLong("header")], help: "A header 'Name: value' (repeatable).")
    var headers: [String] = []
    @Option(name: [.customShort("d"), .customLong("data")], help: "Request body text.") var data: String?
    @Option(name: .customLong("data-binary"), help: "Body: @FILE streams a file (never held in memory), else the text.")
    var dataBinary: String?
    @Flag(name: [.customShort("i"), .customLong("include")], help: "Print the status line and response headers first.")
    var include = false
    @Option(name: [.customShort("o"), .customLong("output")], help: "Write the response body to FILE.") var output: String?
    @Flag(help: "Exit 22 without printing the body when the status is 400 or above.") var fail = false
    @Flag(name: [.customShort("v"), .customLong("verbose")], help: "Print the request, and for IAM the canonical request and string to sign, with secrets redacted, to standard error.")
    var verbose = false
    @Option(help: "api-key, iam, user-pools, oidc, lambda or none.") var auth: Auth = .none
    @Option(help: "The API key (else MULTIAUTH_API_KEY).") var apiKey: String?
    @Option(help: "The token for user-pools, oidc or lambda.") var token: String?
    @Option(help: "A command whose output is the token, run for every request.") var tokenCommand: String?
    @Option(help: "Use the saved login NAME (see 'multiauth login') for user-pools, oidc or lambda.") var name: String?
    @Option(help: "With --name: the id (default) or access token.") var tokenType: AuthTokens.Kind = .id
    @OptionGroup var store: StoreOptions
    @Flag(help: "Send 'Authorization: Bearer <token>' instead of the raw token.") var bearer = false
    @Option(help: "The shared-file profile for IAM credentials.") var profile: String?
    @Option(help: "Signing region (inferred for execute-api and appsync-api hosts).") var region: String?
    @Option(help: "Signing service (inferred for execute-api and appsync-api hosts).") var service: String?
    @Option(help: "Connection timeout in seconds.") var connectTimeout: Double = 10
    @Option(help: "Whole-request timeout in seconds (0: none).") var maxTime: Double = 0
    @Option(help: "Attempts for retryable failures (connection errors, 5xx, 429, throttling).") var retries: Int = 3
    @Flag(help: "Send --data-binary @FILE as an S3 streaming (aws-chunked) upload, signed chunk by chunk in constant memory (IAM only; not retried).")
    var chunked = false
    @Option(help: "With --chunked: bytes per chunk (at least 8192).") var chunkSize: Int = 65_536
    @Option(help: "With --chunked: send an x-amz-checksum trailer, crc32 or sha256.") var trailer: TrailingChecksum?
    @Flag(help: "With --chunked and --trailer: leave the chunks unsigned (STREAMING-UNSIGNED-PAYLOAD-TRAILER).") var unsignedChunks = false

    func run() async throws {
        if chunked { return try await runChunked() }
        let (request, body) = try await buildRequest()
        let trace = SigningTrace()
        let authorizer = try await makeAuthorizer(for: request, fileBody: { if case .file = body { true } else { false } }(), trace: trace)
        var options = CurlHTTPClient.Options()
        options.connectTimeout = connectTimeout
        options.totalTimeout = maxTime
        let client = AuthorizedHTTPClient(
            transport: CurlHTTPClient(options: options), authorizer: authorizer, maxAttempts: max(1, retries))
        let outcome: (response: HTTPResponse, sent: SignableRequest)
        do { outcome = try await client.send(request, body: body, responseFile: output) } catch {
            throw CLIError(message: error.description, exitCode: Self.transportExitCode(for: error))
        }
        if verbose { RequestTrace.print(outcome.sent, signing: trace.last) }
        try present(outcome.response)
    }

    private func buildRequest() async throws -> (SignableRequest, HTTPBody) {
        let list = try headerList()
        let (payload, body) = try await bodySource()
        let method = self.method ?? (body == .none ? "GET" : "POST")
        do {
            return (try SignableRequest(method: method, url: url, headers: list, payload: payload), body)
        } catch { throw CLIError("URL", error) }
    }

    private func bodySource() async throws -> (Payload, HTTPBody) {
        if data != nil, dataBinary != nil { throw CLIError(message: "-d and --data-binary are exclusive", exitCode: 2) }
        if let data { return (.bytes(Array(data.utf8)), .bytes(Array(data.utf8))) }
        guard let dataBinary else { return (.empty, .none) }
        guard dataBinary.hasPrefix("@") else { return (.bytes(Array(dataBinary.utf8)), .bytes(Array(dataBinary.utf8))) }
        let path = String(dataBinary.dropFirst())
        do { return (.sha256(try await PayloadHash.sha256(ofFileAt: path)), .file(path: path)) } catch {
            throw CLIError("--data-binary", error)
        }
    }

    private func makeAuthorizer(for request: SignableRequest, fileBody: Bool, trace: SigningTrace) async throws -> any RequestAuthorizer {
        switch auth {
        case .none: return NoAuthorizer()
        case .apiKey:
            guard let key = apiKey ?? ProcessInfo.processInfo.environment["MULTIAUTH_API_KEY"], !key.isEmpty else {
                throw CLIError("--api-key", "required for --auth api-key (or set MULTIAUTH_API_KEY)")
            }
            return APIKeyAuthorizer(key: .fixed(key))
        case .userPools, .oidc, .lambda:
            if let token { return TokenAuthorizer(token: .fixed(token), bearer: bearer) }
            if let tokenCommand { return TokenAuthorizer(token: .command(tokenCommand), bearer: bearer) }
            if let name {
                var login = LoginOptions()
                login.name = name
                login.store = store
                let (_, provider) = try await login.provider()
                return TokenAuthorizer(token: .token(from: provider, kind: tokenType), bearer: bearer)
            }
            throw CLIError("--token", "required for --auth \(auth.rawValue) (or give --token-command or --name)")
        case .iam:
            let (region, service) = try signingScope(for: request)
            var options = SigningOptions.defaults(forService: service)
            if fileBody { options.signsContentSHA256Header = true }
            let credentials = DefaultCredentialsChain.make(profile: profile, http: CurlHTTPClient())
            return IAMAuthorizer(credentials: credentials, region: region, service: service, options: options) { result in
                trace.record(result)
            }
        }
    }

    /// The `-H` headers.
    private func headerList() throws -> HTTPHeaderList {
        var list = HTTPHeaderList()
        for line in headers {
            do {
                let field = try HTTPRequestText.splitHeaderLine(line)
                list.append(name: field.name, value: field.value.trimmingHTTPWhitespace())
            } catch { throw CLIError("-H", error) }
        }
        return list
    }

    /// The region and service: given, or inferred from an execute-api or appsync-api host.
    private func signingScope(for request: SignableRequest) throws -> (region: String, service: String) {
        let host = request.authority.map { String($0.prefix { $0 != ":" }) } ?? ""
        let inferred = EndpointInference.regionAndService(host: host)
        guard let region = region ?? inferred?.region else {
            throw CLIError("--region", "required: \(host) is not an execute-api or appsync-api host")
        }
        guard let service = service ?? inferred?.service else {
            throw CLIError("--service", "required: \(host) is not an execute-api or appsync-api host")
        }
        return (region, service)
    }

    /// `--chunked`: signs the headers, then streams the file as signed aws-chunked frames.
    private func runChunked() async throws {
        guard auth == .iam else { throw CLIError(message: "--chunked needs --auth iam", exitCode: 2) }
        guard let dataBinary, dataBinary.hasPrefix("@"), data == nil else {
            throw CLIError(message: "--chunked needs --data-binary @FILE", exitCode: 2)
        }
        let mode: StreamingMode
        switch (trailer, unsignedChunks) {
        case (nil, true): throw CLIError(message: "--unsigned-chunks needs --trailer", exitCode: 2)
        case (nil, false): mode = .signedChunks
        case (.some(let checksum), false): mode = .signedChunksWithTrailer(checksum)
        case (.some(let checksum), true): mode = .unsignedChunksWithTrailer(checksum)
        }
        let path = String(dataBinary.dropFirst())
        var info = stat()
        guard stat(path, &info) == 0 else { throw CLIError("--data-binary", "cannot read \(path)") }
        let size = Int(info.st_size)
        let list = try headerList()
        let request: SignableRequest
        do { request = try SignableRequest(method: method ?? "PUT", url: url, headers: list) } catch { throw CLIError("URL", error) }
        let (region, service) = try signingScope(for: request)
        let credentials: ExpiringCredentials
        do { credentials = try await DefaultCredentialsChain.make(profile: profile, http: CurlHTTPClient()).credentials() } catch {
            throw CLIError(message: error.description, exitCode: 1)
        }
        let signer = SigV4Signer(credentials: credentials.credentials, region: region, service: service)
        let upload: AWSChunkedUpload
        do { upload = try signer.signStreaming(request, decodedLength: size, chunkSize: chunkSize, mode: mode, date: .now()) } catch {
            throw CLIError("--chunk-size", error)
        }
        let stream: AWSChunkedFileStream
        do { stream = try AWSChunkedFileStream(path: path, upload: upload, decodedLength: size, chunkSize: chunkSize) } catch {
            throw CLIError("--data-binary", error.reason)
        }
        let signed = upload.seed.signedRequest
        var options = CurlHTTPClient.Options()
        options.connectTimeout = connectTimeout
        options.totalTimeout = maxTime
        let wire = HTTPRequest(
            method: signed.method, url: signed.url, headers: signed.headers.map { HTTPHeader(name: $0.name, value: $0.value) },
            body: .stream(stream), responseFile: output)
        if verbose { RequestTrace.print(signed, signing: upload.seed) }
        do { try present(try await CurlHTTPClient(options: options).send(wire)) } catch let error as HTTPError {
            throw CLIError(message: error.description, exitCode: Self.transportExitCode(for: .transport(error)))
        }
    }

    private func present(_ response: HTTPResponse) throws {
        if fail, response.status >= 400 {
            throw CLIError(message: "the requested URL returned error: \(response.status)", exitCode: 22)
        }
        var out: [UInt8] = []
        if include {
            out += Array("HTTP \(response.status)\r\n".utf8)
            for header in response.headers { out += Array("\(header.name): \(header.value)\r\n".utf8) }
            out += Array("\r\n".utf8)
        }
        out += response.body
        FileHandleless.writeStandardOutput(out)
    }

    static func transportExitCode(for error: RequestError) -> Int32 {
        guard case .transport(let transport) = error else { return 1 }
        switch transport {
        case .invalidURL: return 3
        case .connectionFailed: return 7
        case .timedOut: return 28
        case .tlsFailure: return 35
        default: return 1
        }
    }
}

/// Keeps the last signing's stages for `-v`.
final class SigningTrace: Sendable {
    private let value = Mutex<SigningResult?>(nil)
    func record(_ result: SigningResult) { value.withLock { $0 = result } }
    var last: SigningResult? { value.withLock { $0 } }
}

/// The `-v` trace: what was sent, with every secret replaced by `<redacted>`.
enum RequestTrace {
    static let secretHeaders: Set<String> = ["x-amz-security-token", "x-api-key"]

    static func print(_ request: SignableRequest, signing: SigningResult?) {
        var lines = ["> \(request.method) \(request.requestTarget)"]
        for field in request.headers { lines.append("> \(field.name): \(redacted(field.name, field.value))") }
        if let signing {
            lines.append("* canonical request:")
            lines += signing.canonicalRequest.split(separator: "\n", omittingEmptySubsequences: false).map { "*   " + redactedLine(String($0)) }
            lines.append("* string to sign:")
            lines += signing.stringToSign.split(separator: "\n").map { "*   " + $0 }
        }
        StandardError.emit(lines.joined(separator: "\n"))
    }

    static func redacted(_ name: String, _ value: String) -> String {
        let lower = name.lowercased()
        if secretHeaders.contains(lower) { return "<redacted>" }
        if lower == "authorization", !value.hasPrefix("AWS4-") { return "<redacted>" }
        return value
    }

    static func redactedLine(_ line: String) -> String {
        guard let colon = line.firstIndex(of: ":") else { return line }
        let name = String(line[..<colon])
        return secretHeaders.contains(name) ? "\(name):<redacted>" : line
    }
}

extension TrailingChecksum: ExpressibleByArgument {}
