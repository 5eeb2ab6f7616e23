import Foundation
import HTTPTypes
import IntegrationSupport
import MultiAuthAWSClient
import MultiAuthAuthorization
import MultiAuthCore
import MultiAuthCredentials
import MultiAuthCurl
import MultiAuthSigV4
import Synchronization
import Testing

/// What the authorized client does with bodies that cannot be replayed, end short, or vanish,
/// against the verifying API server (its /flaky route answers 503 first).
@Suite(.timeLimit(.minutes(5)), .enabled(if: Peers.available, Peers.reason)) struct BodyReplayTests {
    /// Produces `count` bytes of `a`.
    final class PatternReader: BodyReader {
        private var remaining: Int
        init(count: Int) { remaining = count }
        func read(into buffer: UnsafeMutableRawBufferPointer) throws(BodyError) -> Int {
            let count = min(remaining, buffer.count)
            if count > 0 { buffer.baseAddress?.initializeMemory(as: UInt8.self, repeating: 0x61, count: count) }
            remaining -= count
            return count
        }
    }

    final class Opens: Sendable {
        let count = Atomic(0)
        var value: Int { count.load(ordering: .relaxed) }
    }

    static func stream(length: Int, produces: Int, replayable: Bool, opens: Opens) -> StreamedBody {
        StreamedBody(name: "test stream", length: length, isReplayable: replayable) { () throws(BodyError) -> any BodyReader in
            opens.count.add(1, ordering: .relaxed)
            return PatternReader(count: produces)
        }
    }

    let client = AuthorizedHTTPClient(transport: CurlHTTPClient(), authorizer: NoAuthorizer(), retry: RetryStrategy(base: .zero))

    @Test func aStreamThatCannotBeReplayedIsSentOnceEvenAfterA503() async throws {
        let opens = Opens()
        let request = try HTTPRequest(method: .post, wireURL: Peers.api + "/flaky/\(UUID().uuidString)/1")
        let (response, _) = try await client.send(request, body: .stream(Self.stream(length: 1000, produces: 1000, replayable: false, opens: opens)))
        #expect(response.status == 503)
        #expect(opens.value == 1)
    }

    @Test func aReplayableStreamIsProducedAgainForTheRetry() async throws {
        let opens = Opens()
        let request = try HTTPRequest(method: .post, wireURL: Peers.api + "/flaky/\(UUID().uuidString)/1")
        let (response, _) = try await client.send(request, body: .stream(Self.stream(length: 1000, produces: 1000, replayable: true, opens: opens)))
        #expect(response.status == 200)
        #expect(opens.value == 2)
    }

    @Test func aStreamShorterThanAnnouncedIsATypedErrorNamingIt() async throws {
        let request = try HTTPRequest(method: .post, wireURL: Peers.api + "/open/short")
        await #expect {
            try await client.send(request, body: .stream(Self.stream(length: 1000, produces: 400, replayable: true, opens: Opens())))
        } throws: { error in
            guard case .shorterThanAnnounced(let body, let announced, let produced)? = (error as? RequestError)?.cause(as: BodyError.self)?.kind else { return false }
            return body == "the streamed body 'test stream'" && announced == 1000 && produced == 400
        }
    }

    /// Signs, then removes the body file before it is sent.
    struct RemovingAuthorizer: RequestAuthorizer {
        let inner: IAMAuthorizer
        let path: String
        func authorize(_ request: HTTPRequest, body: OutgoingBody, at date: SigningDate) async throws(AuthorizationError) -> AuthorizedRequest {
            let authorized = try await inner.authorize(request, body: body, at: date)
            unlink(path)
            return authorized
        }
    }

    @Test func aBodyFileThatDisappearsAfterHashingIsATypedErrorNamingIt() async throws {
        let path = try TestFiles.file(bytes: 50_000)
        defer { unlink(path) }
        let credentials = StaticCredentialsProvider(AWSCredentials(accessKeyId: Peers.keyId, secretAccessKey: Peers.secret))
        let signer = IAMAuthorizer(credentials: credentials, region: "us-east-1", service: "execute-api")
        let removing = AuthorizedHTTPClient(transport: CurlHTTPClient(), authorizer: RemovingAuthorizer(inner: signer, path: path), retry: RetryStrategy(base: .zero))
        let request = try HTTPRequest(method: .put, wireURL: Peers.api + "/iam/vanishing")
        await #expect {
            try await removing.send(request, body: .file(path: path))
        } throws: { error in
            guard case .unreadable(let body, _)? = (error as? RequestError)?.cause(as: BodyError.self)?.kind else { return false }
            return body == "the body file '\(path)'"
        }
    }

    @Test func aStreamIsNotSignedAsIfItsHashWereKnown() async throws {
        let credentials = StaticCredentialsProvider(AWSCredentials(accessKeyId: Peers.keyId, secretAccessKey: Peers.secret))
        let iam = AuthorizedHTTPClient(
            transport: CurlHTTPClient(), authorizer: IAMAuthorizer(credentials: credentials, region: "us-east-1", service: "execute-api"))
        let request = try HTTPRequest(method: .put, wireURL: Peers.api + "/iam/stream")
        await #expect {
            try await iam.send(request, body: .stream(Self.stream(length: 10, produces: 10, replayable: false, opens: Opens())))
        } throws: { error in
            return (error as? RequestError)?.cause(as: SigningError.self)?.code == "Signing.unhashableBody"
        }
    }

    @Test func signedChunksWithSigV4aAreRefusedNotSignedWithHMAC() async throws {
        let path = try TestFiles.file(bytes: 20_000)
        defer { unlink(path) }
        let credentials = StaticCredentialsProvider(AWSCredentials(accessKeyId: Peers.keyId, secretAccessKey: Peers.secret))
        let authorizer = IAMAuthorizer(
            credentials: credentials, region: "us-east-1", service: "s3", algorithm: .sigV4a(regionSet: "*"),
            payloadSigning: .awsChunked(chunkSize: 8192, mode: .signedChunks))
        let request = try HTTPRequest(method: .put, wireURL: Peers.api + "/iam/v4a")
        await #expect {
            try await authorizer.authorize(request, body: .file(path: path), at: .now())
        } throws: { error in
            guard case .signing(.streamingNeedsSigV4)? = (error as? AuthorizationError)?.kind else { return false }
            return true
        }
    }
}
