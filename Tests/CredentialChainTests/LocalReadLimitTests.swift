import Foundation
import IntegrationSupport
import Testing

/// Every local file MultiAuth is pointed at is read up to a documented limit, then refused
/// with a message naming the file: a 200 MB "passphrase" or a 10 MB key file used to be read
/// whole. A `source_profile` chain is capped too (10,000 levels took 874 MB).
@Suite(.timeLimit(.minutes(5)))
struct LocalReadLimitTests {
    @Test func aHugePassphraseFileIsRefused() async throws {
        let folder = try ScratchFolder("limits")
        defer { folder.remove() }
        let passphrase = try folder.file("passphrase", bytes: 65 << 10)
        let run = try await CLI.run(["store", "--path", folder.path + "/s", "--passphrase-file", passphrase, "list"])
        #expect(run.status == 8, "\(run.stderr)")
        #expect(run.stderr.contains(passphrase) && run.stderr.contains("larger than 64 KiB"), "\(run.stderr)")
    }

    @Test func aHugeKeyFileIsRefused() async throws {
        let folder = try ScratchFolder("limits")
        defer { folder.remove() }
        let store = folder.path + "/store"
        let key = folder.path + "/key"
        let created = try await CLI.run(["store", "--path", store, "--key-file", key, "init"])
        #expect(created.status == 0, "\(created.stderr)")
        let huge = try folder.file("huge-key", bytes: 10 << 20)
        let run = try await CLI.run(["store", "--path", store, "--key-file", huge, "list"])
        #expect(run.status != 0)
        #expect(run.stderr.contains(huge) && run.stderr.contains("larger than 4 KiB"), "\(run.stderr)")
    }

    @Test func aHugeRequestFileIsRefused() async throws {
        let folder = try ScratchFolder("limits")
        defer { folder.remove() }
        let request = try folder.file("request.txt", bytes: (16 << 20) + 1)
        let run = try await CLI.run(["verify", "--request", request, "--region", "us-east-1", "--service", "s", "--secret", "x"])
        #expect(run.status == 1 && run.stderr.contains("larger than 16 MiB"), "\(run.stderr)")
    }

    @Test func aHugeConfigFileIsRefused() async throws {
        let folder = try ScratchFolder("limits")
        defer { folder.remove() }
        let config = try folder.file("config", bytes: (4 << 20) + 1)
        let run = try await CLI.run(
            ["credentials", "--profile", "p"],
            environment: ["AWS_CONFIG_FILE": config, "AWS_SHARED_CREDENTIALS_FILE": "/nonexistent", "AWS_EC2_METADATA_DISABLED": "true"])
        #expect(run.status == 1 && run.stderr.contains(config) && run.stderr.contains("larger than 4 MiB"), "\(run.stderr)")
    }

    @Test func aLongSourceProfileChainIsRefused() async throws {
        var text = "[profile p0]\naws_access_key_id = AKID\naws_secret_access_key = s\n"
        for level in 1...100 { text += "[profile p\(level)]\nrole_arn = arn:aws:iam::123456789012:role/r\nsource_profile = p\(level - 1)\n" }
        let files = try SharedFiles(config: text)
        defer { files.remove() }
        let run = try await CLI.run(
            ["credentials", "--profile", "p100"],
            environment: ["AWS_CONFIG_FILE": files.config, "AWS_SHARED_CREDENTIALS_FILE": files.credentials, "AWS_EC2_METADATA_DISABLED": "true"])
        #expect(run.status == 1 && run.stderr.contains("longer than 64 profiles"), "\(run.stderr)")
    }
}
