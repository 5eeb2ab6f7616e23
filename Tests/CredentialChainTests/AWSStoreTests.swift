import Foundation
import IntegrationSupport
import Testing

/// The store in AWS Secrets Manager and SSM Parameter Store (moto), called through our own
/// signer, with its key from KMS (no key file, no passphrase); boto3, an independent client,
/// reads what we wrote (our ciphertext), lists it and deletes it.
@Suite(.timeLimit(.minutes(5)), .enabled(if: Peers.available, Peers.reason))
struct AWSStoreTests {
    static func boto3(_ arguments: [String]) async throws -> [String: Any] {
        let output = try await Peers.python("scripts/oracles/boto3_secrets.py", [Peers.moto] + arguments)
        return try #require(JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any])
    }

    static let environment = [
        "AWS_ENDPOINT_URL": Peers.moto, "AWS_ACCESS_KEY_ID": "AKIDAWSSTORE", "AWS_SECRET_ACCESS_KEY": "aws-store-secret",
        "AWS_REGION": "us-east-1", "AWS_CONFIG_FILE": "/nonexistent", "AWS_SHARED_CREDENTIALS_FILE": "/nonexistent",
    ]

    static func run(_ arguments: [String], input: String? = nil) async throws -> CLI.Run {
        try await CLI.run(arguments, environment: environment, input: input)
    }

    @Test(arguments: ["secretsmanager", "ssm"]) func initSetGetWithAKMSKeyAndNoKeyFile(service: String) async throws {
        let name = "multiauth-test/" + UUID().uuidString.prefix(8).lowercased()
        let key = try #require(try await KMSStoreTests.boto3(["create"])["arn"])
        let store = ["--store", "\(service)://us-east-1/\(name)", "--kms-key-id", key]
        let created = try await Self.run(["store", "init"] + store)
        #expect(created.status == 0 && created.stdout.contains("\(service)://us-east-1/\(name)"), "\(created.stderr)")
        let set = try await Self.run(["store", "set", "svc", "acct"] + store, input: "aws-kept-secret-value\n")
        #expect(set.status == 0, "\(set.stderr)")
        let get = try await Self.run(["store", "get", "svc", "acct"] + store)
        #expect(get.status == 0 && get.stdout.hasPrefix("aws-kept-secret-value"), "\(get.stderr)")

        // boto3 reads our ciphertext (the store's magic, no secret in the clear) and lists
        // the store and its wrapped key, beside the lock item (kept, released) and, in SSM,
        // the parameters each conditional write made.
        let prefix = service == "ssm" ? "/" + name : name
        let value = try await Self.boto3([service == "ssm" ? "ssm-get" : "sm-get", prefix, "aws-kept-secret-value"])
        #expect(value["magic"] as? String == "MAUTHSTR" && value["contains"] as? Bool == false, "\(value)")
        let listed = try await Self.boto3([service == "ssm" ? "ssm-list" : "sm-list", prefix])
        let names = (listed["names"] as? [String] ?? []).filter { !$0.contains(".write-") && !$0.hasSuffix(".lock") }
        #expect(names == [prefix, prefix + ".kms-key"], "\(listed)")
        if service == "ssm" { #expect(listed["types"] as? [String] == ["SecureString"]) }

        // A hand edit (Secrets Manager: a text value) is reported, and nothing is overwritten.
        if service == "secretsmanager" {
            _ = try await Self.boto3(["sm-put-text", name, "edited by hand"])
            let edited = try await Self.run(["store", "set", "svc", "other"] + store, input: "x\n")
            #expect(edited.status == 4 && edited.stderr.contains("edited by hand"), "\(edited.stderr)")
        }
        // boto3 deletes what we wrote; the store is then missing (exit 1).
        for item in [prefix, prefix + ".kms-key"] { _ = try await Self.boto3([service == "ssm" ? "ssm-delete" : "sm-delete", item]) }
        let missing = try await Self.run(["store", "get", "svc", "acct", "--store", "\(service)://us-east-1/\(name)", "--key-file", "/nonexistent/key"])
        #expect(missing.status != 0 && !missing.stderr.contains("aws-store-secret"), "\(missing.stderr)")
    }

    @Test func aKeyFileStoreInSSMAndItsFailures() async throws {
        let name = "multiauth-test/" + UUID().uuidString.prefix(8).lowercased()
        let folder = try ScratchFolder("multiauth-ssm")
        defer { folder.remove() }
        let store = ["--store", "ssm://us-east-1/\(name)", "--key-file", folder.path + "/key"]
        #expect(try await Self.run(["store", "init"] + store).status == 0)
        let again = try await Self.run(["store", "init"] + store)
        #expect(again.status == 2 && again.stderr.contains("already exists"), "\(again.stderr)")
        #expect(try await Self.run(["store", "set", "svc", "acct"] + store, input: "in-ssm\n").status == 0)
        #expect(try await Self.run(["store", "get", "svc", "acct"] + store).stdout.hasPrefix("in-ssm"))
        // An image too large for a parameter is refused before anything is written.
        let large = String(repeating: "x", count: 9000)
        let tooLarge = try await Self.run(["store", "set", "svc", "large"] + store, input: large + "\n")
        #expect(tooLarge.status == 9 && tooLarge.stderr.contains("more than an SSM parameter holds"), "\(tooLarge.stderr)")
        #expect(try await Self.run(["store", "get", "svc", "acct"] + store).stdout.hasPrefix("in-ssm"))
        // A region that is not one: a clear error naming it.
        let badRegion = try await Self.run(["store", "list", "--store", "ssm://not a region/x", "--key-file", folder.path + "/key"])
        #expect(badRegion.status != 0 && badRegion.stderr.contains("region"), "\(badRegion.stderr)")
    }
}
