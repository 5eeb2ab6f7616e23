import Foundation
import IntegrationSupport
import Testing

/// `multiauth store` end to end: the exit-code contract, secrets only where asked for,
/// many processes at once, and a write that fails for lack of space.
@Suite(.timeLimit(.minutes(5))) struct StoreCLITests {
    final class Scratch: Sendable {
        let path: String
        init() {
            path = FileManager.default.temporaryDirectory.appendingPathComponent("multiauth-cli-\(UUID().uuidString)").path
            try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        deinit { try? FileManager.default.removeItem(atPath: path) }
        var store: String { path + "/c.store" }
        var key: String { path + "/key" }
        var keyed: [String] { ["store", "--path", store, "--key-file", key] }
    }

    static let secret = "tok-\(UUID().uuidString)"

    func run(_ arguments: [String], input: String = "", environment: [String: String] = [:]) async throws -> CLI.Run {
        try await CLI.run(arguments, environment: environment, input: input)
    }

    @Test func theExitCodeContract() async throws {
        let scratch = Scratch()
        #expect(try await run(scratch.keyed + ["list"]).status == 1)  // no store yet
        #expect(try await run(scratch.keyed + ["init"]).status == 0)
        #expect(try await run(scratch.keyed + ["init"]).status == 2)  // never replaced
        #expect(try await run(scratch.keyed + ["set", "svc", "alice", "--environment", "region=us-east-1"], input: Self.secret).status == 0)
        let got = try await run(scratch.keyed + ["get", "svc", "alice", "--environment", "region=us-east-1"])
        #expect(got.status == 0 && got.stdout == Self.secret)
        #expect(try await run(scratch.keyed + ["get", "svc", "bob"]).status == 1)
        #expect(try await run(scratch.keyed + ["get", "svc", "alice", "--environment", "region=eu-west-1"]).status == 5)
        #expect(try await run(scratch.keyed + ["frobnicate"]).status == 2)
        #expect(try await run(scratch.keyed + ["purge"]).status == 2)
        chmod(scratch.store, 0o644)
        #expect(try await run(scratch.keyed + ["list"]).status == 6)
        chmod(scratch.store, 0o600)
        var bytes = [UInt8](FileManager.default.contents(atPath: scratch.store) ?? Data())
        bytes[bytes.count - 1] ^= 0x80
        _ = FileManager.default.createFile(atPath: scratch.store, contents: Data(bytes), attributes: [.posixPermissions: 0o600])
        #expect(try await run(scratch.keyed + ["list"]).status == 4)
    }

    @Test func wrongPassphraseIsThreeAndNoSecretEverPrints() async throws {
        let scratch = Scratch()
        let passphrase = "pass-\(UUID().uuidString)"
        let base = ["store", "--path", scratch.store]
        var outputs: [CLI.Run] = []
        outputs.append(try await run(base + ["init"], environment: ["MULTIAUTH_STORE_PASSPHRASE": passphrase]))
        outputs.append(try await run(base + ["set", "s", "a"], input: Self.secret, environment: ["MULTIAUTH_STORE_PASSPHRASE": passphrase]))
        let wrong = try await run(base + ["get", "s", "a"], environment: ["MULTIAUTH_STORE_PASSPHRASE": "nope"])
        #expect(wrong.status == 3)
        outputs.append(wrong)
        outputs.append(try await run(base + ["list"], environment: ["MULTIAUTH_STORE_PASSPHRASE": passphrase]))
        outputs.append(try await run(base + ["get", "s", "a", "--environment", "x=y"], environment: ["MULTIAUTH_STORE_PASSPHRASE": passphrase]))
        for output in outputs {
            for secret in [Self.secret, passphrase] {
                #expect(!output.stdout.contains(secret) && !output.stderr.contains(secret))
            }
        }
        #expect(outputs[3].stdout.contains("s\ta"))
    }

    /// Eight processes setting items at once, each under the store's lock: every set lands.
    /// (Each set rewrites the whole store, so the cost grows with the square of the count;
    /// fifty each keep the eight contending for the lock the whole time.)
    @Test func eightProcessesTimesFiftySetsLoseNothing() async throws {
        let scratch = Scratch()
        #expect(try await run(scratch.keyed + ["init"]).status == 0)
        let binary = Paths.multiauth.path
        let writers = try (0..<8).map { writer in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", """
                i=0; while [ $i -lt 50 ]; do i=$((i+1));
                printf v$i | "$0" store --path "$1" --key-file "$2" --lock-timeout 60 set w\(writer) item$i || exit 1; done
                """, binary, scratch.store, scratch.key]
            try process.run()
            return process
        }
        try await offPool { for writer in writers { writer.waitUntilExit() } }
        #expect(writers.allSatisfy { $0.terminationStatus == 0 })
        let listed = try await run(scratch.keyed + ["list"])
        #expect(listed.stdout.split(separator: "\n").count == 400)
    }

    @Test func aWriteThatRunsOutOfSpaceFailsAndKeepsTheOldContent() async throws {
        let scratch = Scratch()
        #expect(try await run(scratch.keyed + ["init"]).status == 0)
        #expect(try await run(scratch.keyed + ["set", "s", "a"], input: "old").status == 0)
        let before = FileManager.default.contents(atPath: scratch.store)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        // A file-size limit of 1 block makes the temp file's write fail (EFBIG), as a full disk would.
        process.arguments = ["-c", "trap '' XFSZ; ulimit -f 1; head -c 4096 /dev/zero | tr '\\\\0' x | \"$0\" store --path \"$1\" --key-file \"$2\" set s a",
                             Paths.multiauth.path, scratch.store, scratch.key]
        let errors = Pipe()
        process.standardError = errors
        let message = try await offPool { () throws -> String in
            try process.run()
            process.waitUntilExit()
            return String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        }
        #expect(process.terminationStatus == 9, "\(message)")
        #expect(message.contains("the previous content is intact"))
        #expect(FileManager.default.contents(atPath: scratch.store) == before)
        #expect(try await run(scratch.keyed + ["get", "s", "a"]).stdout == "old")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: scratch.path).filter { $0.hasSuffix(".tmp") }
        #expect(leftovers.isEmpty)
    }

    @Test func crashTestReducedForm() async throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Paths.python)
        process.arguments = Paths.pythonArguments + [
            Paths.repository.appendingPathComponent("scripts/store-crash-test").path, "--rounds", "40",
            "--multiauth", Paths.multiauth.path,
        ]
        let output = Pipe()
        process.standardOutput = output
        let text = try await offPool { () throws -> String in
            try process.run()
            let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            return text
        }
        #expect(process.terminationStatus == 0, "\(text)")
        #expect(text.contains("40 kills"))
    }
}
