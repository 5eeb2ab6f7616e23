import Foundation
import HTTPTypes
import IntegrationSupport
import MultiAuthAWSClient
import MultiAuthCore
import MultiAuthCurl
import MultiAuthKMSStoreKeys
import MultiAuthSigV4
import MultiAuthTokens
import Testing

@testable import MultiAuthCredentials

/// The one AWS client against botocore 1.43 in standard retry mode, both facing the fault
/// server's scripted AWS stand-in: for each service MultiAuth calls and each failure sequence,
/// the same attempts and the same outcome. The counts are also derived by hand from botocore's
/// rules (3 attempts; 500 and throttling retried).
@Suite(.timeLimit(.minutes(3)), .enabled(if: Peers.faultAvailable, Peers.reason)) struct AWSClientRetryParityTests {
    static let sequences: [(name: String, steps: [String])] = [
        ("throttle-throttle-ok", ["throttle", "throttle", "ok"]), ("500-500-500-500", ["500", "500", "500", "500"]), ("skew-ok", ["skew", "ok"]),
        ("garbage-ok", ["garbage", "ok"]),
    ]
    static let keys = AWSCredentials(accessKeyId: "AKIDFAULTPARITY", secretAccessKey: "fault-parity-secret")

    /// Attempts botocore's rules give: 3 for both failing sequences (the Cognito identity
    /// call then makes its second operation once), 1 for a signing-time refusal and for a
    /// success whose body is not the protocol's (a parse error is not retried).
    static func derivedAttempts(_ op: String, _ sequence: String) -> Int {
        switch sequence {
        case "throttle-throttle-ok": op == "cognito-identity" ? 4 : 3
        case "500-500-500-500": 3
        default: 1
        }
    }

    @Test(arguments: ["sts", "sso", "cognito-identity", "cognito-idp", "kms", "ssm", "secretsmanager"])
    func attemptsAndOutcomesMatchBotocore(op: String) async throws {
        let tag = UUID().uuidString.prefix(8).lowercased()
        for sequence in Self.sequences {
            for side in ["b", "m"] { try await Self.script("\(side)-\(tag)-\(sequence.name)", op: op, steps: sequence.steps) }
        }
        let botocore = try await Peers.oracle(
            "scripts/oracles/botocore_retries.py", arguments: [Peers.fault, op] + Self.sequences.map { "b-\(tag)-\($0.name)" },
            environment: ["AWS_RETRY_MODE": "standard", "AWS_ACCESS_KEY_ID": Self.keys.accessKeyId, "AWS_SECRET_ACCESS_KEY": "fault-parity-secret"])
        for sequence in Self.sequences {
            let (ours, oursKey, theirsKey) = (try await Self.run(op, url: "\(Peers.fault)/svc/m-\(tag)-\(sequence.name)/"), "m-\(tag)-\(sequence.name)", "b-\(tag)-\(sequence.name)")
            let (ourAttempts, theirAttempts) = (try await Self.attempts(oursKey), try await Self.attempts(theirsKey))
            let theirs = botocore[theirsKey] ?? "missing"
            let derived = Self.derivedAttempts(op, sequence.name)
            if sequence.name == "skew-ok", !["sso", "cognito-identity", "cognito-idp"].contains(op) {
                // botocore has no clock-skew correction: one attempt, refused. MultiAuth takes the
                // service's Date, signs again once and succeeds (as the AWS SDKs for Java, Go and Rust do).
                #expect(theirAttempts == 1 && theirs.hasPrefix("error:"), "\(op) \(sequence.name): botocore \(theirAttempts) \(theirs)")
                #expect(ourAttempts == 2 && ours == nil, "\(op) \(sequence.name): ours \(ourAttempts) \(ours ?? "ok")")
                continue
            }
            if sequence.name == "garbage-ok" {
                // Neither retries a 200 it cannot read. botocore hands JSON protocols' callers an
                // empty result (their code then fails on a missing key); MultiAuth ends with a
                // typed error naming the operation, as the fault rules ask.
                #expect(theirAttempts == 1 && ourAttempts == 1, "\(op) \(sequence.name): botocore \(theirAttempts), ours \(ourAttempts)")
                #expect(ours.map { $0.contains("malformed") || $0.contains("MalformedResponse") } == true, "\(op): \(ours ?? "ok")")
                continue
            }
            #expect(theirAttempts == derived, "\(op) \(sequence.name): botocore made \(theirAttempts) attempts")
            #expect(ourAttempts == theirAttempts, "\(op) \(sequence.name): ours \(ourAttempts), botocore \(theirAttempts)")
            #expect((ours == nil) == (theirs == "ok"), "\(op) \(sequence.name): ours \(ours ?? "ok"), botocore \(theirs)")
        }
    }

    /// Runs the operation MultiAuth makes for `op` at `url`; nil when it succeeded, else the error's text.
    static func run(_ op: String, url: String) async throws -> String? {
        let http = CurlHTTPClient()
        let source = StaticCredentialsProvider(keys)
        do {
            switch op {
            case "sts":
                _ = try await AssumeRoleCredentialsProvider(
                    roleArn: "arn:aws:iam::123456789012:role/fault", source: source, region: "us-east-1", sessionName: "fault",
                    environment: ["AWS_ENDPOINT_URL_STS": url], http: http
                ).credentials()
            case "sso":
                let client = try AWSClient(service: "sso", region: "us-east-1", endpoint: ServiceEndpoint(url: url), http: http)
                _ = try await SSOPortalClient(client: client).roleCredentials(accountId: "123456789012", roleName: "fault", accessToken: "fault-access-token")
            case "cognito-identity":
                _ = try await CognitoIdentityCredentialsProvider(
                    identityPoolId: "us-east-1:00000000-0000-0000-0000-000000000000", region: "us-east-1", endpoint: ServiceEndpoint(url: url), http: http
                ).credentials()
            case "cognito-idp":
                let configuration = try CognitoUserPoolConfiguration(userPoolId: "us-east-1_Fault", clientId: "faultclient", endpoint: url)
                try await CognitoUserPoolAuthenticator(configuration: configuration, http: http).revoke(
                    AuthTokens(idToken: nil, accessToken: "a", refreshToken: "fault-refresh-token", expiresAt: 0))
            case "kms":
                _ = try await KMSDataKeys(keyId: "alias/fault", region: "us-east-1", credentials: source, environment: ["AWS_ENDPOINT_URL_KMS": url], http: http)
                    .generate()
            default:
                let (target, action, fields): (String, String, [String: JSONValue]) =
                    op == "ssm"
                    ? ("AmazonSSM", "GetParameter", ["Name": .string("/fault"), "WithDecryption": .bool(true)])
                    : ("secretsmanager", "GetSecretValue", ["SecretId": .string("fault"), "VersionStage": .string("AWSCURRENT")])
                let client = try AWSClient(service: op, region: "us-east-1", endpoint: ServiceEndpoint(url: url), http: http)
                _ = try await AWSJSONService(client: client, targetPrefix: target, keys: source.signingKeys).send(action, fields, as: JSONValue.self)
            }
            return nil
        } catch {
            return "\(error)"
        }
    }

    static func script(_ key: String, op: String, steps: [String]) async throws {
        let response = try await CurlHTTPClient().send(
            try HTTPRequest(method: .get, wireURL: "\(Peers.fault)/_script/\(key)?op=\(op)&steps=\(steps.joined(separator: ","))"))
        try #require(response.status == 200)
    }

    static func attempts(_ key: String) async throws -> Int {
        let response = try await CurlHTTPClient().send(try HTTPRequest(method: .get, wireURL: "\(Peers.fault)/_attempts/\(key)"))
        let object = try #require(JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
        return try #require(object["attempts"] as? Int)
    }
}
