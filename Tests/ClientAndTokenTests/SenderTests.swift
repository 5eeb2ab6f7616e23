import Foundation
import HTTPTypes
import IntegrationSupport
import MultiAuthAsyncHTTPClient
import MultiAuthAuthorization
import MultiAuthCore
import MultiAuthCredentials
import MultiAuthCurl
import MultiAuthSigV4
import Synchronization
import Testing

/// Both senders (libcurl and AsyncHTTPClient) hold the same promises, checked against the
/// peers: the botocore-verifying API server accepts what they sign and send, bodies go out
/// whole and exactly as long as announced, responses land where they were asked to, and every
/// failure is the same typed ``HTTPTransportError``.
@Suite(.timeLimit(.minutes(5)), .enabled(if: Peers.available && Peers.faultAvailable, Peers.reason)) struct SenderTests {
    enum Kind: String, CaseIterable, CustomTestStringConvertible {
        case curl, asyncHTTPClient
        var testDescription: String { rawValue }
    }

    /// Runs `body` with a fresh sender of `kind`, shut down afterwards.
    static func with(_ kind: Kind, timeout: Double = 30, _ body: (any HTTPSender) async throws -> Void) async throws {
        try await with(kind, options: .bounded(total: .seconds(timeout)), body)
    }

    /// Runs `body` with a fresh sender of `kind` made with `options`, shut down afterwards.
    static func with(_ kind: Kind, options: SenderOptions, _ body: (any HTTPSender) async throws -> Void) async throws {
        switch kind {
        case .curl: try await body(CurlHTTPClient(options: options))
        case .asyncHTTPClient:
            let sender = AsyncHTTPClientSender(options: options)
            do { try await body(sender) } catch {
                try await sender.shutdown()
                throw error
            }
            try await sender.shutdown()
        }
    }

    static let credentials = StaticCredentialsProvider(AWSCredentials(accessKeyId: Peers.keyId, secretAccessKey: Peers.secret))

    static func echo(_ response: ReceivedResponse) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
    }

    @Test(arguments: Kind.allCases) func signedCallsWithTrickyTargetsPassBotocore(kind: Kind) async throws {
        let targets = [
            "/iam/plain", "/iam/with%20space/and%20more", "/iam/utf8/%E1%88%B4/%C3%A9t%C3%A9",
            "/iam/q?plus=a%2Bb&slash=%2F&eq=c%3Dd&amp=x%26y", "/iam/repeated?k=2&k=1&k=10&a", "/iam/dots/./x/../y",
        ]
        try await Self.with(kind) { sender in
            let client = AuthorizedHTTPClient(
                transport: sender, authorizer: IAMAuthorizer(credentials: Self.credentials, region: "us-east-1", service: "execute-api"))
            for target in targets {
                let (response, _) = try await client.send(try HTTPRequest(method: .get, wireURL: Peers.api + target))
                #expect(response.status == 200, "\(target): \(String(decoding: response.body, as: UTF8.self))")
                #expect(try Self.echo(response)["target"] as? String == target)
            }
        }
    }

    /// TLS to an upstream whose self-signed certificate (made by the openssl command) is in
    /// no system store: refused as a TLS failure by default, trusted through `caBundle`, and
    /// let through with `verifiesTLS` off; the same for both senders.
    @Test(arguments: Kind.allCases) func theTLSOptionsAreHonoured(kind: Kind) async throws {
        try #require(!Peers.tlsUpstream.isEmpty, "the HTTPS upstream is not running")
        let untrusted = try await Self.get(Peers.tlsUpstream + "/tls/check", kind, options: .bounded(total: .seconds(30)))
        guard case .failure(let failure) = untrusted, case .tlsFailure(let host, _) = failure.kind else {
            Issue.record("not a TLS failure: \(untrusted)")
            return
        }
        #expect(host == Peers.tlsUpstream.replacingOccurrences(of: "https://", with: ""))
        var trusting = SenderOptions.bounded(total: .seconds(30))
        trusting.caBundle = Peers.tlsCA
        let trusted = try await Self.get(Peers.tlsUpstream + "/tls/check", kind, options: trusting).get()
        #expect(trusted.head.status == 200)
        #expect(try Self.echo(trusted)["target"] as? String == "/tls/check")
        var unverified = SenderOptions.bounded(total: .seconds(30))
        unverified.verifiesTLS = false
        #expect(try await Self.get(Peers.tlsUpstream + "/tls/check", kind, options: unverified).get().head.status == 200)
    }

    /// One GET of `url` through a fresh sender of `kind`: its response or its transport error.
    static func get(_ url: String, _ kind: Kind, options: SenderOptions) async throws -> Result<ReceivedResponse, HTTPTransportError> {
        let request = try HTTPRequest(method: .get, wireURL: url)
        let outcome = Mutex<Result<ReceivedResponse, HTTPTransportError>?>(nil)
        try await with(kind, options: options) { sender in
            do throws(HTTPTransportError) {
                let response = try await sender.send(request, body: .empty, responseBody: .bounded)
                outcome.withLock { $0 = .success(response) }
            } catch {
                outcome.withLock { $0 = .failure(error) }
            }
        }
        return try #require(outcome.withLock { $0 })
    }

    /// 300,001 bytes: more than two of AsyncHTTPClientSender's 128 KiB chunks. The server
    /// hashes what arrives and refuses a hash that differs from the signed one.
    @Test(arguments: Kind.allCases) func aSignedFileBodyArrivesWhole(kind: Kind) async throws {
        let path = try TestFiles.file(bytes: 300_001)
        defer { unlink(path) }
        try await Self.with(kind) { sender in
            let client = AuthorizedHTTPClient(
                transport: sender, authorizer: IAMAuthorizer(credentials: Self.credentials, region: "us-east-1", service: "execute-api"))
            let (response, _) = try await client.send(try HTTPRequest(method: .put, wireURL: Peers.api + "/iam/upload"), body: .file(path: path))
            #expect(response.status == 200, "\(String(decoding: response.body, as: UTF8.self))")
            #expect(try Self.echo(response)["body_length"] as? Int == 300_001)
        }
    }

    /// Under the full suite, this AsyncHTTPClient case used to end with its 30 s deadline: the
    /// upload's next chunk waits for a cooperative thread, and tests elsewhere held both with
    /// blocking waits for child processes. They now wait off the pool (``offPool(_:)``).
    @Test(arguments: Kind.allCases) func aStreamShorterThanAnnouncedFailsNamingIt(kind: Kind) async throws {
        let stream = BodyReplayTests.stream(length: 1000, produces: 400, replayable: true, opens: BodyReplayTests.Opens())
        try await Self.with(kind) { sender in
            await #expect {
                try await sender.send(try HTTPRequest(method: .post, wireURL: Peers.api + "/open/short"), body: .stream(stream))
            } throws: { error in
                guard case .shorterThanAnnounced(let body, let announced, let produced)? = (error as? HTTPTransportError)?.cause(as: BodyError.self)?.kind else { return false }
                return body == "the streamed body 'test stream'" && announced == 1000 && produced == 400
            }
        }
    }

    @Test(arguments: Kind.allCases) func successStreamsToTheFileAndAnErrorStaysInMemory(kind: Kind) async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("multiauth-sender-\(UUID().uuidString)").path
        defer { unlink(path) }
        try await Self.with(kind) { sender in
            let streamed = try await sender.send(
                try HTTPRequest(method: .get, wireURL: Peers.fault + "/stream/300000"), body: .empty, responseBody: .file(path: path))
            #expect(streamed.status == 200 && streamed.streamed && streamed.body.isEmpty)
            #expect(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int == 300_000)
            let refused = try await sender.send(
                try HTTPRequest(method: .get, wireURL: Peers.fault + "/always500/x"), body: .empty, responseBody: .file(path: path))
            #expect(refused.status == 500 && !refused.streamed)
            #expect(String(decoding: refused.body, as: UTF8.self) == #"{"message": "Internal Server Error"}"#)
        }
    }

    @Test(arguments: Kind.allCases) func aBodyOverTheMemoryLimitIsATypedError(kind: Kind) async throws {
        try await Self.with(kind) { sender in
            await #expect {
                try await sender.send(try HTTPRequest(method: .get, wireURL: Peers.fault + "/stream/2048"), body: .empty, responseBody: .memory(limit: 1024))
            } throws: { error in
                guard case .responseTooLarge(_, let limit)? = (error as? HTTPTransportError)?.kind else { return false }
                return limit == 1024
            }
        }
    }

    @Test(arguments: Kind.allCases) func aHungServerTimesOut(kind: Kind) async throws {
        try await Self.with(kind, timeout: 1) { sender in
            await #expect {
                try await sender.send(try HTTPRequest(method: .get, wireURL: Peers.fault + "/hang/x"))
            } throws: { error in
                guard case .timedOut? = (error as? HTTPTransportError)?.kind else { return false }
                return true
            }
        }
    }

    @Test(arguments: Kind.allCases) func aClosedPortIsATransientConnectionFailure(kind: Kind) async throws {
        try await Self.with(kind) { sender in
            await #expect {
                try await sender.send(try HTTPRequest(method: .get, wireURL: "http://127.0.0.1:1/x"))
            } throws: { error in
                guard let error = error as? HTTPTransportError, case .connectionFailed(let host, _) = error.kind else { return false }
                return host == "127.0.0.1:1" && error.isTransient
            }
        }
    }

    /// A target Foundation's URL would percent-encode is refused, never sent altered (the
    /// signature covers the target as given).
    @Test func theAsyncHTTPClientSenderNeverSendsAnAlteredTarget() async throws {
        let request = HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1:1", path: "/open/a|b")
        try await Self.with(.asyncHTTPClient) { sender in
            await #expect {
                try await sender.send(request)
            } throws: { error in
                guard case .invalidURL? = (error as? HTTPTransportError)?.kind else { return false }
                return true
            }
        }
    }
}
