import Foundation
import IntegrationSupport
import Testing

/// `--kms-key-id`: a store keyed by a data key that KMS (moto) makes and unwraps, with no key
/// file and no passphrase; boto3, an independent client, confirms what KMS wrapped.
@Suite(.timeLimit(.minutes(5)), .enabled(if: Peers.available, Peers.reason))
struct KMSStoreTests {
    static func boto3(_ arguments: [String]) async throws -> [String: String] {
        let output = try await Peers.python("scripts/oracles/boto3_kms.py", [Peers.moto] + arguments)
        return try #require(JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: String])
    }

    static let environment = [
        "AWS_ENDPOINT_URL_KMS": Peers.moto, "AWS_ACCESS_KEY_ID": "AKIDKMSSTORE", "AWS_SECRET_ACCESS_KEY": "kms-store-secret",
        "AWS_CONFIG_FILE": "/nonexistent", "AWS_SHARED_CREDENTIALS_FILE": "/nonexistent",
    ]

    @Test func initSetAndGetWithAKMSDataKey() async throws {
        let folder = try ScratchFolder("multiauth-kms")
        defer { folder.remove() }
        let key = try #require(try await Self.boto3(["create"])["arn"])
        let store = ["--store", folder.path + "/store", "--kms-key-id", key]
        #expect(try await CLI.run(["store", "init"] + store, environment: Self.environment).status == 0)
        let set = try await CLI.run(["store", "set", "svc", "acct"] + store, environment: Self.environment, input: "kms-guarded-value\n")
        #expect(set.status == 0, "\(set.stderr)")
        let get = try await CLI.run(["store", "get", "svc", "acct"] + store, environment: Self.environment)
        #expect(get.status == 0 && get.stdout.hasPrefix("kms-guarded-value"), "\(get.stderr)")
        // The store holds ciphertext only; beside it, only the wrapped key (no key file).
        let bytes = try Data(contentsOf: folder.url.appendingPathComponent("store"))
        #expect(bytes.range(of: Data("kms-guarded-value".utf8)) == nil)
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { !$0.hasSuffix(".lock") }.sorted()
        #expect(files == ["store", "store.kms-key"])
        let unwrapped = try await Self.boto3(["decrypt", folder.path + "/store.kms-key"])
        #expect(unwrapped == ["key_id": key, "length": "32"])

        // Another key cannot unwrap it (exit 3, KMS's code named); init never replaces a store.
        let other = try #require(try await Self.boto3(["create"])["arn"])
        let wrong = try await CLI.run(["store", "get", "svc", "acct", "--store", folder.path + "/store", "--kms-key-id", other], environment: Self.environment)
        #expect(wrong.status == 3 && wrong.stderr.contains("KMS refused Decrypt"), "\(wrong.stderr)")
        let again = try await CLI.run(["store", "init"] + store, environment: Self.environment)
        #expect(again.status != 0 && again.stderr.contains("already exists"))
        #expect(try Data(contentsOf: folder.url.appendingPathComponent("store")) == bytes)
        #expect(!wrong.stderr.contains("kms-store-secret"))
    }
}
