package import ArgumentParser
import MultiAuthCore
package import MultiAuthStore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `multiauth store`: the encrypted credential store.
struct StoreCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "store",
        abstract: "Manage the encrypted credential store.",
        discussion: """
            Exit codes: 0 ok, 1 not found, 2 usage, 3 wrong passphrase, 4 corrupted, 5 environment mismatch, \
            6 permissions, 7 locked, 8 key unavailable, 9 read or write failure.
            """,
        subcommands: [Init.self, Set.self, Get.self, Remove.self, List.self, Rekey.self, Purge.self]
    )

    struct Init: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "init", abstract: "Create an empty store (and a key file if --key-file names none).")
        @OptionGroup var options: StoreOptions

        func run() async throws {
            let location = try await options.run(creating: true) { store in
                try await store.initialize()
                return store.path
            }
            print("created \(location)")
        }
    }

    struct Set: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "set", 
            abstract: "Store the secret read from standard input.",
            discussion: "Of what standard input holds, \(SecretInput.rule). Passphrase files and MULTIAUTH_STORE_PASSPHRASE follow the same rule.")
        @OptionGroup var options: StoreOptions
        @Argument(help: "Service name.") var service: String
        @Argument(help: "Account name.") var account: String
        @Option(help: "A label shown by list.") var label: String = ""
        @OptionGroup var environment: EnvironmentOptions

        func run() async throws {
            let secret = try SecretInput.text(FileHandleless.readStandardInput(), from: "standard input")
            let environment = try environment.parsed()
            let value = secret
            try await options.run { store in
                try await store.set(value, service: service, account: account, label: label, environment: environment)
            }
        }
    }

    struct Get: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "get", abstract: "Print the secret to standard output.")
        @OptionGroup var options: StoreOptions
        @Argument(help: "Service name.") var service: String
        @Argument(help: "Account name.") var account: String
        @OptionGroup var environment: EnvironmentOptions

        func run() async throws {
            let environment = try environment.parsed()
            let secret = try await options.run { store in
                try await store.get(service: service, account: account, environment: environment)
            }
            FileHandleless.writeStandardOutput(secret)
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "rm", abstract: "Remove an item.")
        @OptionGroup var options: StoreOptions
        @Argument(help: "Service name.") var service: String
        @Argument(help: "Account name.") var account: String

        func run() async throws {
            try await options.run { store in try await store.delete(service: service, account: account) }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", 
            abstract: "List items (metadata only, never secrets).",
            discussion: "text: one item a line, SERVICE ACCOUNT LABEL MODIFIED ENVIRONMENT separated by tabs, with control characters (tabs and line breaks too) shown as \\u{…} escapes; json: an array of objects.")
        enum Format: String, ExpressibleByArgument, CaseIterable { case text, json }
        @OptionGroup var options: StoreOptions
        @Option(help: "text (default) or json.") var format: Format = .text

        struct Listed: Encodable {
            let service: String, account: String, label: String, modified: Int64, environment: [String: String]
        }

        func run() async throws {
            let items = try await options.run { store in try await store.list() }
            let listed = items.map {
                Listed(service: $0.service, account: $0.account, label: $0.label, modified: $0.modified, environment: $0.environment.fields)
            }
            switch format {
            case .json:
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys]
                FileHandleless.writeStandardOutput(Array(try encoder.encode(listed)) + [0x0a])
            case .text:
                let lines = listed.map { item in
                    let environment = item.environment.keys.sorted().map { "\($0)=\(item.environment[$0] ?? "")" }.joined(separator: ",")
                    return [item.service, item.account, item.label, String(item.modified), environment]
                        .map { Redaction.quoted($0, limit: 4096) }.joined(separator: "\t") + "\n"
                }
                FileHandleless.writeStandardOutput(Array(lines.joined().utf8))
            }
        }
    }

    struct Rekey: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "rekey", 
            abstract: "Re-encrypt under a new passphrase (MULTIAUTH_STORE_NEW_PASSPHRASE, --new-passphrase-file or prompt), key file or keyring key.")
        @OptionGroup var options: StoreOptions
        @Option(help: "Read the new passphrase from this file (mode 0600).") var newPassphraseFile: String?
        @Option(help: "Switch to this key file (created when missing).") var newKeyFile: String?
        @Option(help: "Switch to a new key made in this keyring: secret-service[:LABEL], pass:NAME or keyctl:NAME (an existing key there is never replaced).")
        var newKeySource: String?

        func validate() throws {
            guard [newKeyFile, newPassphraseFile, newKeySource].compactMap({ $0 }).count <= 1 else {
                throw CLIError("--new-key-source", "give one of --new-key-file, --new-passphrase-file and --new-key-source")
            }
            if let newKeySource { _ = try KeyringStoreKey(parsing: newKeySource) }
        }

        func run() async throws {
            let newSource: StoreKeySource
            if let newKeySource {
                newSource = .dataKey(try await KeyringStoreKey(parsing: newKeySource).key(creating: true))
            } else {
                newSource = try PassphraseSource.keySource(
                    keyFile: newKeyFile, passphraseFile: newPassphraseFile, environmentVariable: "MULTIAUTH_STORE_NEW_PASSPHRASE",
                    prompt: "New passphrase: ", confirm: true)
            }
            try await options.run { store in try await store.rekey(to: newSource) }
        }
    }

    struct Purge: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "purge", 
            abstract: "Remove items made for other environments (--other-environments), or every item (--all).")
        @OptionGroup var options: StoreOptions
        @Flag(help: "Remove the items whose environment differs from the --environment given.") var otherEnvironments = false
        @Flag(help: "Remove every item.") var all = false
        @OptionGroup var environment: EnvironmentOptions

        func validate() throws {
            guard otherEnvironments != all else {
                throw ValidationError("give exactly one of --other-environments or --all")
            }
        }

        func run() async throws {
            let environment = try environment.parsed()
            let removed = try await options.run { store in
                all ? try await store.purgeAll() : try await store.purge(keeping: environment)
            }
            print("removed \(removed) item(s)")
        }
    }
}

extension StoreCommand {
    /// The documented form puts the shared options before the subcommand
    /// (`multiauth store --path F init`); ArgumentParser reads a subcommand's options only
    /// after its name, so they are moved there.
    static func movingSharedOptions(_ arguments: [String]) -> [String] {
        guard arguments.first == "store" else { return arguments }
        let takesValue: Swift.Set<String> = ["--path", "--store", "--key-file", "--passphrase-file", "--lock-timeout", "--kms-key-id", "--key-source"]
        var shared: [String] = []
        var index = 1
        while index < arguments.count, arguments[index].hasPrefix("--") {
            let name = String(arguments[index].split(separator: "=", maxSplits: 1)[0])
            guard takesValue.contains(name) else { break }
            shared.append(arguments[index])
            if !arguments[index].contains("="), index + 1 < arguments.count {
                shared.append(arguments[index + 1])
                index += 1
            }
            index += 1
        }
        guard index < arguments.count, !shared.isEmpty else { return arguments }
        return ["store", arguments[index]] + shared + arguments[(index + 1)...]
    }
}

/// The options every `store` subcommand shares.
package struct StoreOptions: ParsableArguments {
    package init() {}

    @Option(
        name: [.customLong("path"), .customLong("store")],
        help: "The store: a file, or postgres://USER@HOST:PORT/DB[?sslmode=…&store=NAME] (password from PGPASSWORD or the URL), secretsmanager://REGION/NAME or ssm://REGION/NAME (default: MULTIAUTH_STORE, else $XDG_DATA_HOME/multiauth/credentials.store).")
    package var path: String?
    @Option(help: ArgumentHelp("Unlock with this key file (64 hex digits, mode 0600) instead of a passphrase (default: MULTIAUTH_STORE_KEY_FILE)." + SystemdCredential.helpSuffix), transform: SystemdCredential.path)
    var keyFile: String?
    @Option(help: ArgumentHelp("Read the passphrase from this file (mode 0600) instead of MULTIAUTH_STORE_PASSPHRASE or a prompt; from either, one trailing line ending is removed and an empty passphrase is refused." + SystemdCredential.helpSuffix), transform: SystemdCredential.path)
    package var passphraseFile: String?
    @Option(help: "Seconds to wait for another process's lock (0 to 600).") var lockTimeout: Double = 5
    @Option(help: "Key the store with an AWS KMS data key instead of a passphrase or key file: KMS makes it (GenerateDataKey) at init, only its wrapped form is kept beside the store (STORE.kms-key for a file), and KMS unwraps it (Decrypt) each time the store opens. A key id, alias or ARN; the region is the ARN's, else AWS_REGION's; credentials come from the default chain.")
    package var kmsKeyId: String?
    @Option(help: "Keep the store's key in a keyring instead: secret-service[:LABEL] (GNOME Keyring, KWallet, through secret-tool), pass:NAME (the pass password store), or keyctl:NAME (the kernel's user keyring, lost at reboot). store init makes a random key there; it is never written to disk by MultiAuth (default: MULTIAUTH_STORE_KEY_SOURCE).")
    var keySource: String?

    package func validate() throws {
        try ArgumentChecks.seconds(lockTimeout, "--lock-timeout", in: 0...600)
        let given = [kmsKeyId != nil, keyFile != nil, passphraseFile != nil, keySource != nil].filter { $0 }.count
        if given > 1 {
            throw CLIError(kmsKeyId != nil ? "--kms-key-id" : "--key-source", "give --kms-key-id, --key-source, --key-file or --passphrase-file, not more than one")
        }
        if let keySource { _ = try KeyringStoreKey(parsing: keySource) }
    }

    /// `--key-source`, else `MULTIAUTH_STORE_KEY_SOURCE` (when no other key is given).
    var resolvedKeySource: String? {
        if let keySource { return keySource }
        guard kmsKeyId == nil, keyFile == nil, passphraseFile == nil else { return nil }
        return ProcessInfo.processInfo.environment["MULTIAUTH_STORE_KEY_SOURCE"].flatMap { $0.isEmpty ? nil : $0 }
    }

    package var storePath: String { path ?? CredentialStore.defaultPath }

    /// `--key-file`, else `MULTIAUTH_STORE_KEY_FILE`.
    package var resolvedKeyFile: String? { keyFile ?? ProcessInfo.processInfo.environment["MULTIAUTH_STORE_KEY_FILE"].flatMap { $0.isEmpty ? nil : $0 } }

    /// Opens the store, runs `body`, and turns store errors into the documented exit codes.
    /// `creating`: the store is about to be made (a KMS data key is generated, not unwrapped).
    package func run<T: Sendable>(creating: Bool = false, _ body: (CredentialStore) async throws -> T) async throws -> T {
        try await Self.reportingErrors { try await body(try await open(creating: creating)) }
    }

    /// The store, its key read now (a passphrase prompted for once, a KMS data key unwrapped
    /// once): for a server that reads it again later without asking.
    package func open(creating: Bool = false) async throws -> CredentialStore {
        let backend = try backend()
        let source: StoreKeySource
        if let kmsKeyId {
            source = .dataKey(try await KMSStoreKey.key(kmsKeyId, backend: backend, creating: creating))
        } else if let keySource = resolvedKeySource {
            source = .dataKey(try await KeyringStoreKey(parsing: keySource).key(creating: creating))
        } else {
            source = try PassphraseSource.keySource(
                keyFile: resolvedKeyFile, passphraseFile: passphraseFile, environmentVariable: "MULTIAUTH_STORE_PASSPHRASE",
                prompt: "Store passphrase: ", confirm: false)
        }
        return CredentialStore(backend: backend, keySource: source, lockTimeout: .clamped(seconds: lockTimeout))
    }

    /// Runs `body`, turning store errors into the documented exit codes.
    package static func reportingErrors<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        do { return try await body() } catch let error as StoreError {
            throw CLIError(message: error.messageWithHint, exitCode: error.exitCode)
        }
    }
}

/// `--environment K=V` (repeatable).
package struct EnvironmentOptions: ParsableArguments {
    package init() {}

    @Option(name: .customLong("environment"), help: "An environment field K=V the item belongs to (repeatable).")
    package var pairs: [String] = []

    package func parsed() throws -> StoreEnvironment {
        var fields: [String: String] = [:]
        for pair in pairs {
            guard let equals = pair.firstIndex(of: "="), equals != pair.startIndex else {
                throw CLIError(message: "--environment: '\(pair)' is not K=V", exitCode: 2)
            }
            fields[String(pair[..<equals])] = String(pair[pair.index(after: equals)...])
        }
        return StoreEnvironment(fields)
    }
}

extension StoreError {
    /// The exit code `multiauth store` documents for this error.
    var exitCode: Int32 {
        switch self.kind {
        case .itemNotFound, .storeMissing: 1
        case .storeExists: 2
        case .wrongPassphrase: 3
        case .corrupted, .unsupportedVersion, .unknownKDF, .unsafeKDFParameters: 4
        case .environmentMismatch: 5
        case .insecurePermissions: 6
        case .locked: 7
        case .keyUnavailable: 8
        case .readFailed, .writeFailed, .conflict: 9
        }
    }
}
