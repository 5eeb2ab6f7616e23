import Foundation
import IntegrationSupport
import Testing

/// `--key-source`: the store's key in a keyring, checked with each keyring's own client as the
/// independent reader: `keyctl pipe` (the kernel's user keyring), `pass show` (a throwaway GPG
/// key and password store per test), and `secret-tool lookup` against GNOME Keyring, run
/// unlocked on a private D-Bus session per test. Every test also works the store with the key
/// and checks that no key file was written.
@Suite(.timeLimit(.minutes(5))) struct KeyringStoreKeyTests {
    static func shell(_ script: String, _ environment: [String: String] = [:]) async throws -> (status: Int32, stdout: String) {
        try await offPool {
            let run = try ChildProcess.run(
                URL(fileURLWithPath: "/bin/sh"), ["-c", script], environment: ProcessInfo.processInfo.environment.merging(environment) { $1 }, limit: 60)
            return (run.status, String(decoding: run.stdout, as: UTF8.self))
        }
    }

    /// Runs a short clean-up `script` (a `defer` cannot await).
    static func cleanUp(_ script: String, _ environment: [String: String] = [:]) {
        _ = try? ChildProcess.run(
            URL(fileURLWithPath: "/bin/sh"), ["-c", script], environment: ProcessInfo.processInfo.environment.merging(environment) { $1 }, limit: 10)
    }

    /// `store init`, `set` and `get` with `source`, a second `init` refused, and no file beside
    /// the store.
    static func workTheStore(_ source: String, in folder: ScratchFolder, _ environment: [String: String]) async throws {
        let store = ["store", "--path", folder.path + "/s.store", "--key-source", source]
        let created = try await CLI.run(store + ["init"], environment: environment)
        #expect(created.status == 0, "\(created.stderr)")
        let set = try await CLI.run(store + ["set", "svc", "acct"], environment: environment, input: "s3cret-value")
        #expect(set.status == 0, "\(set.stderr)")
        let got = try await CLI.run(store + ["get", "svc", "acct"], environment: environment)
        #expect(got.status == 0 && got.stdout == "s3cret-value", "\(got.stderr)")
        let again = try await CLI.run(store + ["init"], environment: environment)
        #expect(again.status == 1 && again.stderr.contains("already holds a key"), "an existing key is never replaced: \(again.stderr)")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        #expect(Set(files).isSubset(of: ["s.store", "s.store.lock", "home", "gnupg", "pass", "bus"]), "\(files)")
    }

    static func isStoreKey(_ text: String) -> Bool {
        let digits = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return digits.count == 64 && digits.allSatisfy(\.isHexDigit)
    }

    /// A store keyed in the kernel keyring from a session whose keyring is not linked to the
    /// user keyring (`keyctl session`, as under systemd or cron): each command reads the key
    /// back, and a later session reads it too.
    @Test func theKernelKeyringFromASessionOfItsOwn() async throws {
        let folder = try ScratchFolder("multiauth-keyctl-session")
        let name = "multiauth-test-\(UUID().uuidString.prefix(8))"
        defer {
            Self.cleanUp("keyctl unlink $(keyctl search @u user \(name)) @u")
            folder.remove()
        }
        let store = "'\(Paths.multiauth.path)' store --path '\(folder.path)/s.store' --key-source keyctl:\(name)"
        let script = "\(store) init && printf s3cret-value | \(store) set svc acct && \(store) get svc acct"
        let run = try await Self.shell("keyctl session - sh -c \"\(script)\" 2>&1")
        #expect(run.status == 0 && run.stdout.hasSuffix("s3cret-value"), "\(run.stdout)")
        let later = try await Self.shell("keyctl session - sh -c \"\(store) get svc acct\" 2>&1")
        #expect(later.status == 0 && later.stdout.hasSuffix("s3cret-value"), "\(later.stdout)")
    }

    @Test func theKernelKeyring() async throws {
        let folder = try ScratchFolder("multiauth-keyctl")
        let name = "multiauth-test-\(UUID().uuidString.prefix(8))"
        defer {
            Self.cleanUp("keyctl unlink $(keyctl search @u user \(name)) @u")
            folder.remove()
        }
        try await Self.workTheStore("keyctl:\(name)", in: folder, [:])
        let read = try await Self.shell("keyctl pipe $(keyctl search @u user \(name))")
        #expect(read.status == 0 && Self.isStoreKey(read.stdout))

        let missing = try await CLI.run(["store", "--path", folder.path + "/s.store", "--key-source", "keyctl:\(name)-none", "list"])
        #expect(missing.status == 1 && missing.stderr.contains("holds no store key"), "\(missing.stderr)")
        let bad = name + "-bad"
        defer { Self.cleanUp("keyctl unlink $(keyctl search @u user \(bad)) @u") }
        #expect(try await Self.shell("keyctl add user \(bad) not-a-key @u >/dev/null").status == 0)
        let malformed = try await CLI.run(["store", "--path", folder.path + "/s.store", "--key-source", "keyctl:\(bad)", "list"])
        #expect(malformed.status == 1 && malformed.stderr.contains("not a store key") && !malformed.stderr.contains("not-a-key"), "\(malformed.stderr)")
    }

    /// `store rekey` from a key file to a keyring key and back: the items survive, the old key
    /// no longer opens the store, and the key `keyctl pipe` reads is the one that does.
    @Test func rekeyToAndFromAKeyring() async throws {
        let folder = try ScratchFolder("multiauth-rekey-keyring")
        let name = "multiauth-test-\(UUID().uuidString.prefix(8))"
        defer {
            Self.cleanUp("keyctl unlink $(keyctl search @u user \(name)) @u")
            folder.remove()
        }
        let path = ["--path", folder.path + "/s.store"], file = ["--key-file", folder.path + "/key"]
        #expect(try await CLI.run(["store"] + path + file + ["init"]).status == 0)
        #expect(try await CLI.run(["store"] + path + file + ["set", "svc", "acct"], input: "kept").status == 0)
        let toKeyring = try await CLI.run(["store"] + path + file + ["rekey", "--new-key-source", "keyctl:\(name)"])
        #expect(toKeyring.status == 0, "\(toKeyring.stderr)")
        #expect(try await CLI.run(["store"] + path + file + ["get", "svc", "acct"]).status != 0, "the old key file must not open it")
        let read = try await Self.shell("keyctl pipe $(keyctl search @u user \(name))")
        #expect(read.status == 0 && Self.isStoreKey(read.stdout))
        let viaKeyring = try await CLI.run(["store"] + path + ["--key-source", "keyctl:\(name)", "get", "svc", "acct"])
        #expect(viaKeyring.status == 0 && viaKeyring.stdout == "kept", "\(viaKeyring.stderr)")
        let back = try await CLI.run(["store"] + path + ["--key-source", "keyctl:\(name)", "rekey", "--new-key-file", folder.path + "/key2"])
        #expect(back.status == 0, "\(back.stderr)")
        let viaFile = try await CLI.run(["store"] + path + ["--key-file", folder.path + "/key2", "get", "svc", "acct"])
        #expect(viaFile.status == 0 && viaFile.stdout == "kept", "\(viaFile.stderr)")
    }

    @Test func thePasswordStore() async throws {
        let folder = try ScratchFolder("multiauth-pass")
        let environment = ["GNUPGHOME": folder.path + "/gnupg", "PASSWORD_STORE_DIR": folder.path + "/pass", "HOME": folder.path + "/home"]
        defer {
            Self.cleanUp("gpgconf --kill gpg-agent", environment)
            folder.remove()
        }
        let made = try await Self.shell(
            "mkdir -m 700 \"$GNUPGHOME\" \"$HOME\" && gpg --batch --passphrase '' --quick-gen-key ci@multiauth.test default default never 2>/dev/null"
                + " && pass init ci@multiauth.test >/dev/null", environment)
        try #require(made.status == 0)
        try await Self.workTheStore("pass:ci", in: folder, environment)
        let read = try await Self.shell("pass show multiauth/ci", environment)
        #expect(read.status == 0 && Self.isStoreKey(read.stdout))

        // The GPG key gone (no agent can decrypt): the error names pass and says what gpg said.
        _ = try await Self.shell("gpgconf --kill gpg-agent; rm -rf \"$GNUPGHOME\" && mkdir -m 700 \"$GNUPGHOME\"", environment)
        let locked = try await CLI.run(["store", "--path", folder.path + "/s.store", "--key-source", "pass:ci", "list"], environment: environment)
        #expect(locked.status == 1 && locked.stderr.contains("pass:ci: pass ended with"), "\(locked.stderr)")
    }

    /// GNOME Keyring on a session bus of the test's own (`dbus-run-session`, which ends the
    /// bus, and the keyring with it, when the script ends): unlocked, then the store worked with
    /// the key in it, then `secret-tool lookup` as the independent reader; the same store asked
    /// for on a bus that does not exist gives a named error.
    @Test func theSecretService() async throws {
        let folder = try ScratchFolder("multiauth-secret-service")
        defer { folder.remove() }
        let multiauth = Paths.multiauth.path
        let store = "\(multiauth) store --path \(folder.path)/s.store --key-source secret-service:ci"
        let script = """
            printf ci-password | gnome-keyring-daemon --unlock --components=secrets >/dev/null 2>&1 || exit 90
            \(store) init >/dev/null 2>&1 || exit 91
            printf s3cret-value | \(store) set svc acct >/dev/null 2>&1 || exit 92
            echo "got: $(\(store) get svc acct 2>&1)"
            echo "again: $(\(store) init 2>&1)"
            echo "lookup: $(secret-tool lookup application multiauth key ci)"
            echo "absent: $(DBUS_SESSION_BUS_ADDRESS=unix:path=\(folder.path)/no-bus \(store) list 2>&1)"
            """
        let ran = try await Self.shell("mkdir -p \"$HOME\" && dbus-run-session -- sh -c '\(script.replacingOccurrences(of: "'", with: "'\\''"))'", ["HOME": folder.path + "/home"])
        try #require(ran.status == 0, "step \(ran.status) of the script failed")
        let said = Dictionary(ran.stdout.split(separator: "\n").compactMap { line -> (String, String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), String(line[line.index(colon, offsetBy: 2)...]))
        }, uniquingKeysWith: { first, _ in first })
        #expect(said["got"] == "s3cret-value", "\(ran.stdout)")
        #expect(said["again"]?.contains("already holds a key") == true, "\(ran.stdout)")
        #expect(Self.isStoreKey(said["lookup"] ?? ""), "\(ran.stdout)")
        #expect(said["absent"]?.contains("secret-service:ci: secret-tool ended with") == true, "\(ran.stdout)")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        #expect(Set(files).isSubset(of: ["s.store", "s.store.lock", "home"]), "\(files)")
    }
}
