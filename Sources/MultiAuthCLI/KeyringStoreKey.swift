import ArgumentParser
import MultiAuthCore
import MultiAuthCredentials
import MultiAuthCrypto


/// `--key-source`: the store's key kept in the desktop's or the kernel's keyring, through the
/// keyring's own command-line tool, as a random 256-bit key (64 hex digits) handed to the store
/// as a data key. The key goes to and from the tool on its standard input and output only;
/// MultiAuth never writes it to disk.
///
/// - `secret-service[:LABEL]`: the freedesktop Secret Service (GNOME Keyring, KWallet) through
///   libsecret's `secret-tool`, under the attributes `application multiauth`, `key LABEL`
///   (default `store`). A locked keyring is unlocked by its own prompt.
/// - `pass:NAME`: the `pass` password store (GPG-encrypted; its agent asks for the passphrase).
/// - `keyctl:NAME`: the kernel's user keyring (`keyctl`, `user` key NAME). It does not survive
///   a reboot: a store keyed only there is lost with it, so `store init` says so.
struct KeyringStoreKey: Sendable {
    enum Kind: Sendable { case secretService, pass, keyctl }
    let kind: Kind
    let name: String
    let text: String

    /// The most time a keyring tool gets, an unlock prompt included.
    static let timeout = 60.0

    /// The source `text` names.
    init(parsing text: String) throws {
        self.text = text
        let (prefix, rest) = text.firstIndex(of: ":").map { (String(text[..<$0]), String(text[text.index(after: $0)...])) } ?? (text, "")
        switch prefix {
        case "secret-service": (kind, name) = (.secretService, rest.isEmpty ? "store" : rest)
        case "pass" where !rest.isEmpty: (kind, name) = (.pass, rest)
        case "keyctl" where !rest.isEmpty: (kind, name) = (.keyctl, rest)
        default: throw ValidationError("--key-source must be secret-service[:LABEL], pass:NAME or keyctl:NAME")
        }
        guard name.utf8.count <= 200, WireText.isSafe(name), !name.hasPrefix("-") else {
            throw ValidationError("--key-source: the name must be printable, at most 200 bytes, and not start with -")
        }
    }

    /// The key: made and stored when `creating` (an existing one is never replaced), else read.
    /// - Throws: a `CLIError` (exit 1) naming the source and what the tool said.
    func key(creating: Bool) async throws -> [UInt8] {
        if creating {
            guard try await read() == nil else {
                throw CLIError("--key-source", "\(text) already holds a key: it may key another store, so it is not replaced")
            }
            var key = try SecureRandom.bytes(count: 32)
            defer { SecureMemory.zero(&key) }
            try await store(Array((Hex.encode(key) + "\n").utf8))
            if kind == .keyctl {
                StandardError.emit("warning: \(text): the kernel keyring does not survive a reboot; the store is lost with it unless its key is kept elsewhere too (store rekey)")
            }
            guard let stored = try await read(), stored == key else { throw CLIError("--key-source", "\(text) did not give back the key just stored") }
            return stored
        }
        guard let key = try await read() else { throw CLIError("--key-source", "\(text) holds no store key (create one with store init --key-source \(text))") }
        return key
    }

    /// The key the keyring holds, or nil when it holds none under the name.
    private func read() async throws -> [UInt8]? {
        let output: [UInt8]
        do {
            switch kind {
            case .secretService:
                output = try await ShellCommand.output(ofProgram: "secret-tool", ["lookup", "application", "multiauth", "key", name], timeout: Self.timeout)
            case .pass:
                output = try await ShellCommand.output(ofProgram: "pass", ["show", "multiauth/" + name], timeout: Self.timeout)
            case .keyctl:
                guard let id = try await keyctlID() else { return nil }
                output = try await ShellCommand.output(ofProgram: "keyctl", ["pipe", id], timeout: Self.timeout)
            }
        } catch {
            // secret-tool exits 1 with nothing said when no item matches; pass says so.
            if kind == .secretService, case .failed(let status) = error.kind, status == "exited(1)" { return nil }
            if kind == .pass, case .failed(let status) = error.kind, status.contains("is not in the password store") { return nil }
            throw failure(error)
        }
        let digits = String(String(decoding: output, as: UTF8.self).filter { !$0.isWhitespace })
        guard digits.utf8.count == 64, let key = try? Hex.decode(digits) else {
            throw CLIError("--key-source", "\(text) holds something that is not a store key (64 hex digits)")
        }
        return key
    }

    private func store(_ key: [UInt8]) async throws {
        do {
            switch kind {
            case .secretService:
                _ = try await ShellCommand.output(
                    ofProgram: "secret-tool", ["store", "--label=MultiAuth store key (\(name))", "application", "multiauth", "key", name], input: key,
                    timeout: Self.timeout)
            case .pass: _ = try await ShellCommand.output(ofProgram: "pass", ["insert", "--multiline", "multiauth/" + name], input: key, timeout: Self.timeout)
            case .keyctl: try await addToUserKeyring(key)
            }
        } catch { throw failure(error) }
    }

    /// Adds the key to the user keyring readable by this user from any session: the kernel
    /// gives a new key's read access only to its possessor, and a process whose session
    /// keyring is not linked to the user keyring (a systemd service, cron, `keyctl session`)
    /// does not possess what it added there. So the key is added inside a session keyring of
    /// its own (where it is possessed, and its permissions may be set), given the user view,
    /// read and search, and linked into the user keyring; the session ends with the command.
    private func addToUserKeyring(_ key: [UInt8]) async throws(ShellCommandError) {
        let script = "id=$(keyctl padd user \"$1\" @s) && keyctl setperm \"$id\" \(Self.keyPermissions) && keyctl link \"$id\" @u"
        _ = try await ShellCommand.output(ofProgram: "keyctl", ["session", "-", "sh", "-c", script, "sh", name], input: key, timeout: Self.timeout)
    }

    /// Possessor: everything; user: view, read, search (keyctl(1)'s permission mask).
    private static let keyPermissions = "0x3f0b0000"

    private func keyctlID() async throws(ShellCommandError) -> String? {
        do {
            let id = try await ShellCommand.output(ofProgram: "keyctl", ["search", "@u", "user", name], timeout: Self.timeout)
            return String(String(decoding: id, as: UTF8.self).filter { !$0.isWhitespace })
        } catch {
            if case .failed = error.kind { return nil }
            throw error
        }
    }

    private func failure(_ error: ShellCommandError) -> CLIError {
        let tool = switch kind { case .secretService: "secret-tool"; case .pass: "pass"; case .keyctl: "keyctl" }
        if case .notStarted = error.kind { return CLIError("--key-source", "\(text): \(tool) is not installed or cannot be started") }
        return CLIError("--key-source", "\(text): \(tool) \(error.description)")
    }
}
