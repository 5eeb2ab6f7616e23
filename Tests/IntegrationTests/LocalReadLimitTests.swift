import Foundation
import Testing

/// Every local file MultiAuth is pointed at is read up to a documented limit, then refused
/// with a message naming the file: a 200 MB "passphrase" or a 10 MB key file used to be read
/// whole. A `source_profile` chain is capped too (10,000 levels took 874 MB).
@Suite(.timeLimit(.minutes(5)))
struct LocalReadLimitTests {
    static func folder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("limits-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// A file of `count` bytes of `x`, mode 0600.
    static func file(_ name: String, in folder: URL, bytes count: Int) throws -> String {
        let url = folder.appendingPathComponent(name)
        try Data(repeating: UInt8(ascii: "x"), count: count).write(to: url)
        chmod(url.path, 0o600)
        return url.path
    }

    @Test func aHugePassphraseFileIsRefused() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let passphrase = try Self.file("passphrase", in: folder, bytes: 65 << 10)
        let run = try await CLITests.run(["store", "--path", folder.appendingPathComponent("s").path, "--passphrase-file", passphrase, "list"])
        #expect(run.status == 8, "\(run.stderr)")
        #expect(run.stderr.contains(passphrase) && run.stderr.contains("larger than 64 KiB"), "\(run.stderr)")
    }

    @Test func aHugeKeyFileIsRefused() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = folder.appendingPathComponent("store").path
        let key = folder.appendingPathComponent("key").path
        let created = try await CLITests.run(["store", "--path", store, "--key-file", key, "init"])
        #expect(created.status == 0, "\(created.stderr)")
        let huge = try Self.file("huge-key", in: folder, bytes: 10 << 20)
        let run = try await CLITests.run(["store", "--path", store, "--key-file", huge, "list"])
        #expect(run.status != 0)
        #expect(run.stderr.contains(huge) && run.stderr.contains("larger than 4 KiB"), "\(run.stderr)")
    }

    @Test func aHugeRequestFileIsRefused() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let request = try Self.file("request.txt", in: folder, bytes: (16 << 20) + 1)
        let run = try await CLITests.run(["verify", "--request", request, "--region", "us-east-1", "--service", "s", "--secret", "x"])
        #expect(run.status == 1 && run.stderr.contains("larger than 16 MiB"), "\(run.stderr)")
    }

    @Test func aHugeConfigFileIsRefused() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let config = try Self.file("config", in: folder, bytes: (4 << 20) + 1)
        let run = try await CLITests.run(
            ["credentials", "--profile", "p"],
            environment: ["AWS_CONFIG_FILE": config, "AWS_SHARED_CREDENTIALS_FILE": "/nonexistent", "AWS_EC2_METADATA_DISABLED": "true"])
        #expect(run.status == 1 && run.stderr.contains(config) && run.stderr.contains("larger than 4 MiB"), "\(run.stderr)")
    }

    @Test func aLongSourceProfileChainIsRefused() async throws {
        var text = "[profile p0]\naws_access_key_id = AKID\naws_secret_access_key = s\n"
        for level in 1...100 { text += "[profile p\(level)]\nrole_arn = arn:aws:iam::123456789012:role/r\nsource_profile = p\(level - 1)\n" }
        let files = try SharedFiles(config: text)
        defer { files.remove() }
        let run = try await CLITests.run(
            ["credentials", "--profile", "p100"],
            environment: ["AWS_CONFIG_FILE": files.config, "AWS_SHARED_CREDENTIALS_FILE": files.credentials, "AWS_EC2_METADATA_DISABLED": "true"])
        #expect(run.status == 1 && run.stderr.contains("longer than 64 profiles"), "\(run.stderr)")
    }
}
