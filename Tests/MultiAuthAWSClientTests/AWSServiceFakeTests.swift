import HTTPTypes
import MultiAuthAWSClient
import MultiAuthCore
import MultiAuthHTTP
import MultiAuthSigV4
import MultiAuthTesting
import Testing

/// The one AWS client against the in-process AWS fake, one operation per protocol the project
/// speaks, through the failure sequences of issue 46. Expected attempt counts follow
/// botocore's standard mode by hand: 3 attempts at most; throttling, 5xx and resets are
/// retried, a skewed clock once at the service's time (where botocore, which has no skew
/// correction, fails), a 200 it cannot parse not at all. The same sequences run against
/// botocore itself in `AWSClientRetryParityTests` (peers).
struct AWSServiceFakeTests {
    static let now = 1_700_000_000.0

    struct Case: Sendable, CustomTestStringConvertible {
        let wire: AWSServiceFake.Wire
        let service: String
        let key: String
        let operation: AWSOperation
        let answer: String
        let signed: Bool
        var testDescription: String { "\(service) \(operation.name)" }
    }

    static let cases = [
        Case(
            wire: .query, service: "sts", key: "AssumeRole",
            operation: .query("AssumeRole", version: "2011-06-15", [("RoleArn", "arn:aws:iam::123456789012:role/r"), ("RoleSessionName", "s")]),
            answer: "<AssumeRoleResponse><AssumeRoleResult/></AssumeRoleResponse>", signed: true),
        Case(
            wire: .json, service: "cognito-idp", key: "InitiateAuth",
            operation: .json("InitiateAuth", targetPrefix: "AWSCognitoIdentityProviderService", fields: ["ClientId": .string("c")]),
            answer: "{}", signed: false),
        Case(
            wire: .json, service: "secretsmanager", key: "GetSecretValue",
            operation: .json("GetSecretValue", targetPrefix: "secretsmanager", fields: ["SecretId": .string("s")]), answer: "{}", signed: true),
        Case(
            wire: .restJSON, service: "portal.sso", key: "GET /federation/credentials",
            operation: .restJSON("GetRoleCredentials", method: .get, path: "/federation/credentials?role_name=r&account_id=1"),
            answer: #"{"roleCredentials":{}}"#, signed: false),
    ]

    static func run(_ test: Case, _ faults: [AWSServiceFake.Fault]) async -> (attempts: Int, error: AWSCallError?, fake: AWSServiceFake) {
        let fake = AWSServiceFake(wire: test.wire, clock: TimeSource { now })
        fake.answer(test.key, with: test.answer)
        fake.script(test.key, faults)
        do {
            let client = try AWSClient(
                service: test.service, region: "us-east-1", endpoint: ServiceEndpoint(url: "https://\(test.service).us-east-1.amazonaws.com/"),
                http: fake, retry: RetryStrategy(base: .zero, retriesNonIdempotent: true), clock: SigningClock(clock: TimeSource { now }))
            let keys = AWSCredentials(accessKeyId: "AKIDFAKE", secretAccessKey: "fake-secret")
            if test.signed {
                _ = try await client.send(test.operation, signedWith: { @Sendable in keys })
            } else {
                _ = try await client.send(test.operation, signedWith: nil)
            }
            return (fake.attempts(test.key), nil, fake)
        } catch {
            return (fake.attempts(test.key), error, fake)
        }
    }

    @Test(arguments: cases)
    func throttleThrottleOkSucceedsOnTheThirdAttempt(_ test: Case) async {
        let outcome = await Self.run(test, [.throttle, .throttle])
        #expect(outcome.error == nil && outcome.attempts == 3, "\(String(describing: outcome.error))")
    }

    @Test(arguments: cases)
    func fourServerErrorsFailAfterThree(_ test: Case) async {
        let outcome = await Self.run(test, [.serverError, .serverError, .serverError, .serverError])
        #expect(outcome.attempts == 3)
        #expect(outcome.error?.status == 500 && outcome.error?.serviceCode == "InternalFailure" && outcome.error?.attempts == 3)
        #expect(outcome.error.map { "\($0)".contains(test.operation.name) } == true)
    }

    @Test(arguments: cases.filter(\.signed))
    func aSkewedClockIsCorrectedOnce(_ test: Case) async {
        let outcome = await Self.run(test, [.skewedClock])
        #expect(outcome.error == nil && outcome.attempts == 2, "\(String(describing: outcome.error))")
        let dates = outcome.fake.sent.compactMap { $0.request.headerFields[HTTPField.Name("X-Amz-Date")!] }
        #expect(dates == ["20231114T221320Z", "20231114T231320Z"], "the second attempt is signed at the service's time")
    }

    @Test(arguments: cases)
    func resetsAreRetried(_ test: Case) async {
        let outcome = await Self.run(test, [.reset, .reset])
        #expect(outcome.error == nil && outcome.attempts == 3, "\(String(describing: outcome.error))")
    }

    /// botocore does not retry a 200 it cannot parse; neither does the client (the caller's
    /// decoder then names the operation in a typed error).
    @Test(arguments: cases)
    func anUnreadableAnswerIsNotRetried(_ test: Case) async {
        let outcome = await Self.run(test, [.garbage])
        #expect(outcome.error == nil && outcome.attempts == 1, "\(String(describing: outcome.error))")
    }

    @Test func theFakesDateIsAnHTTPDate() {
        #expect(AWSServiceFake.httpDate(0) == "Thu, 01 Jan 1970 00:00:00 GMT")
        #expect(AWSServiceFake.httpDate(1_700_003_600) == "Tue, 14 Nov 2023 23:13:20 GMT")
        #expect(AWSServiceFake.httpDate(951_782_400) == "Tue, 29 Feb 2000 00:00:00 GMT")
    }
}
