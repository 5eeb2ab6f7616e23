import HTTPTypes
import MultiAuthAWSClient
import MultiAuthCore
import MultiAuthHTTP
import MultiAuthSigV4
import MultiAuthTesting
import Testing

/// The one AWS client against a scripted sender: botocore's standard retry rules, the retry
/// quota, clock-skew correction and typed errors, with no server and no sleeping (waits of 0).
/// Expected counts and dates are derived by hand from botocore's rules and the script.
@Suite struct AWSClientTests {
    static let keys = AWSCredentials(accessKeyId: "AKIDUNITTEST", secretAccessKey: "unit-test-secret-key")
    /// 2023-11-14T22:13:20Z.
    static let now = 1_700_000_000.0
    static let noWaits = RetryStrategy(base: .zero, retriesNonIdempotent: true)

    static func client(_ sender: ScriptedSender, retry: RetryStrategy = noWaits) throws -> AWSClient {
        try AWSClient(
            service: "kms", region: "us-east-1", endpoint: ServiceEndpoint(url: "https://kms.us-east-1.amazonaws.com/"), http: sender, retry: retry,
            clock: SigningClock(clock: TimeSource { now }))
    }

    static let operation = AWSOperation.json("GenerateDataKey", targetPrefix: "TrentService", fields: ["KeyId": .string("alias/k")])
    static let throttled = ScriptedSender.Step.answer(400, #"{"__type":"ThrottlingException","message":"Rate exceeded"}"#)
    static let ok = ScriptedSender.Step.answer(200, "{}")

    @Test func throttlingTwiceThenSuccessTakesThreeAttempts() async throws {
        let sender = ScriptedSender([Self.throttled, Self.throttled, Self.ok])
        let response = try await Self.client(sender).send(Self.operation, signedWith: { Self.keys })
        #expect(response.status == 200)
        #expect(sender.sent.count == 3)
        #expect(sender.sent.allSatisfy { $0.request.headerFields[HTTPField.Name("X-Amz-Target")!] == "TrentService.GenerateDataKey" })
    }

    @Test func fourServerErrorsStopAfterThreeAttemptsWithTheServicesCode() async throws {
        let failure = ScriptedSender.Step.answer(500, #"{"__type":"InternalFailure","message":"oops"}"#, headers: [("x-amzn-RequestId", "req-1")])
        let sender = ScriptedSender([failure, failure, failure, failure])
        let error = await #expect(throws: AWSCallError.self) { try await Self.client(sender).send(Self.operation, signedWith: { Self.keys }) }
        #expect(sender.sent.count == 3)
        #expect(error?.kind == .service && error?.serviceCode == "InternalFailure" && error?.status == 500)
        #expect(error?.requestId == "req-1" && error?.attempts == 3 && error?.code == "AWSClient.service")
        #expect(error.map { "\($0)" } == "kms GenerateDataKey refused: InternalFailure: oops, request id req-1 (after 3 attempts)")
    }

    /// The strategy resolved from the environment is the one the client follows.
    @Test func theResolvedAttemptsAreTheOnesMade() async throws {
        var strategy = try RetryStrategy.resolve(environment: ["AWS_MAX_ATTEMPTS": "5"])
        strategy.backoff.base = .zero
        let sender = ScriptedSender([.answer(503, "")])
        _ = await #expect(throws: AWSCallError.self) { try await Self.client(sender, retry: strategy).send(Self.operation, signedWith: nil) }
        #expect(sender.sent.count == 5)
    }

    /// One client's calls share one quota: 100 retries spend it, so the next call's failure
    /// is not retried.
    @Test func theCallsOfOneClientShareTheRetryQuota() async throws {
        let sender = ScriptedSender([Self.throttled])
        let client = try Self.client(sender, retry: RetryStrategy(maxAttempts: 101, base: .zero))
        _ = await #expect(throws: AWSCallError.self) { try await client.send(Self.operation, signedWith: nil) }
        #expect(sender.sent.count == 101)
        let before = sender.sent.count
        _ = await #expect(throws: AWSCallError.self) { try await client.send(Self.operation, signedWith: nil) }
        #expect(sender.sent.count == before + 1, "with the quota spent, a failure is not retried")
    }

    /// A signing-time refusal whose Date is an hour ahead: signed again once for that time.
    @Test func aSkewedClockIsCorrectedFromTheServicesDateAndKept() async throws {
        let skew = ScriptedSender.Step.answer(
            400, #"{"__type":"InvalidSignatureException","message":"Signature expired: 20231114T221320Z is now earlier than 20231114T230820Z"}"#,
            headers: [("Date", "Tue, 14 Nov 2023 23:13:20 GMT")])
        let sender = ScriptedSender([skew, Self.ok, Self.ok])
        let client = try Self.client(sender)
        _ = try await client.send(Self.operation, signedWith: { Self.keys })
        let dates = sender.sent.map { $0.request.headerFields[HTTPField.Name("X-Amz-Date")!] }
        #expect(dates == ["20231114T221320Z", "20231114T231320Z"])
        #expect(client.clock.offset == .seconds(3600))
        _ = try await client.send(Self.operation, signedWith: { Self.keys })
        #expect(sender.sent.last?.request.headerFields[HTTPField.Name("X-Amz-Date")!] == "20231114T231320Z")
    }

    /// A retry whose wait would end after the command's deadline is not made: the call ends
    /// with the last failure (here the deadline has come, so any wait ends past it).
    @Test func noRetryWaitsPastTheDeadline() async throws {
        let sender = ScriptedSender([Self.throttled])
        var client = try Self.client(sender)
        client.deadline = .now
        let error = await #expect(throws: AWSCallError.self) { try await client.send(Self.operation, signedWith: nil) }
        #expect(sender.sent.count == 1 && error?.serviceCode == "ThrottlingException")
        // The same from the enclosing command's deadline (Deadline.run sets it for its work).
        let again = ScriptedSender([Self.throttled])
        let plain = try Self.client(again)
        _ = await Deadline.$current.withValue(.now) {
            await #expect(throws: AWSCallError.self) { try await plain.send(Self.operation, signedWith: nil) }
        }
        #expect(again.sent.count == 1)
    }

    @Test func anUnsignedCallIsNotSentAgainAfterASigningTimeRefusal() async throws {
        let skew = ScriptedSender.Step.answer(
            400, #"{"__type":"InvalidSignatureException","message":"Signature expired"}"#, headers: [("Date", "Tue, 14 Nov 2023 23:13:20 GMT")])
        let sender = ScriptedSender([skew, Self.ok])
        _ = await #expect(throws: AWSCallError.self) { try await Self.client(sender).send(Self.operation, signedWith: nil) }
        #expect(sender.sent.count == 1)
    }

    @Test func aTransportFailureKeepsItsCause() async throws {
        let tls = ScriptedSender([.failure(.tlsFailure(host: "kms", reason: "bad certificate")), Self.ok])
        let error = await #expect(throws: AWSCallError.self) { try await Self.client(tls).send(Self.operation, signedWith: nil) }
        #expect(tls.sent.count == 1 && error?.code == "AWSClient.transport" && error?.cause(as: HTTPTransportError.self)?.code == "HTTPTransport.tlsFailure")
    }

    @Test func theThreeProtocolsGoOnTheWireAsTheServicesExpect() async throws {
        let sender = ScriptedSender([Self.ok])
        let client = try AWSClient(service: "sso", region: "us-east-1", endpoint: ServiceEndpoint(url: "https://portal.sso.us-east-1.amazonaws.com"), http: sender)
        _ = try await client.send(.restJSON("GetRoleCredentials", method: .get, path: "federation/credentials?role_name=r"), signedWith: nil)
        _ = try await client.send(.query("AssumeRole", version: "2011-06-15", [("RoleArn", "arn:aws:iam::1:role/r")]), signedWith: nil)
        let (rest, query) = (sender.sent[0], sender.sent[1])
        #expect(rest.request.method == .get && rest.request.path == "/federation/credentials?role_name=r" && rest.body.isEmpty)
        #expect(query.request.method == .post && query.request.path == "/")
        #expect(String(decoding: query.body, as: UTF8.self) == "Action=AssumeRole&Version=2011-06-15&RoleArn=arn%3Aaws%3Aiam%3A%3A1%3Arole%2Fr")
        #expect(query.request.headerFields[.contentType] == "application/x-www-form-urlencoded; charset=utf-8")
        #expect(query.request.headerFields[.authorization] == nil, "unsigned: no Authorization")
    }

    @Test func credentialsThatCannotBeHadKeepTheirCauseAndNoSecretIsShown() async throws {
        struct NoKeys: Error, CustomStringConvertible { var description: String { "the profile has no keys" } }
        let sender = ScriptedSender([Self.ok])
        let error = await #expect(throws: AWSCallError.self) { try await Self.client(sender).send(Self.operation, signedWith: { throw NoKeys() }) }
        #expect(error?.code == "AWSClient.credentials" && error?.underlying is NoKeys && sender.sent.isEmpty)
        let refused = ScriptedSender([.answer(403, #"{"__type":"AccessDeniedException","message":"denied"}"#)])
        let denied = await #expect(throws: AWSCallError.self) { try await Self.client(refused).send(Self.operation, signedWith: { Self.keys }) }
        #expect(denied.map { !"\($0)".contains(Self.keys.secretAccessKey) } == true)
    }
}
