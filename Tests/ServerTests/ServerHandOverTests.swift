import Foundation
import IntegrationSupport
import Testing

/// `multiauth` hands the server and AppSync commands to `multiauth-server`: the user sees one
/// command, with the second executable's help, errors and exit codes.
@Suite(.timeLimit(.minutes(5))) struct ServerHandOverTests {
    @Test func bothExecutablesPrintTheSameVersion() async throws {
        let ours = try await CLI.run(["--version"])
        #expect(ours.status == 0 && !ours.stdout.isEmpty, "\(ours.stderr)")
        let server = Paths.multiauth.deletingLastPathComponent().appendingPathComponent("multiauth-server")
        let theirs = try await offPool { try ChildProcess.run(server, ["--version"]) }
        #expect(theirs.status == 0)
        #expect(String(decoding: theirs.stdout, as: UTF8.self) == ours.stdout)
    }

    /// `multiauth` tells the executable it hands over to which release it is, and a
    /// `multiauth-server` of another release refuses to run instead of running silently.
    @Test func halvesOfDifferentReleasesAreRefused() async throws {
        let folder = try ScratchFolder("handover")
        defer { folder.remove() }
        let script = try folder.script("multiauth-server", "printf '%s\\n' \"$MULTIAUTH_HANDOVER_VERSION\"")
        let version = try await CLI.run(["--version"]).stdout
        let passed = try await CLI.run(["proxy"], environment: ["MULTIAUTH_SERVER": script])
        #expect(passed.stdout == version, "\(passed.stdout) \(passed.stderr)")

        let server = Paths.multiauth.deletingLastPathComponent().appendingPathComponent("multiauth-server")
        let environment = ProcessInfo.processInfo.environment.merging(["MULTIAUTH_HANDOVER_VERSION": "0.0.1"]) { $1 }
        let refused = try await offPool { try ChildProcess.run(server, ["proxy", "--help"], environment: environment) }
        let message = String(decoding: refused.stderr, as: UTF8.self)
        #expect(refused.status == 1)
        #expect(message.contains("multiauth-server is version") && message.contains("multiauth is version 0.0.1"), "\(message)")
    }

    /// The lean executable links none of SwiftNIO, postgres-nio, GRDB or Hummingbird: its
    /// symbol table names no module of theirs (the server executable's does, as a check that
    /// the names are looked for the right way).
    @Test func theLeanExecutableLinksNoServerStack() async throws {
        func count(_ executable: URL) async throws -> [String: Int] {
            let listed = try await offPool { try ChildProcess.run(URL(fileURLWithPath: "/usr/bin/nm"), ["--defined-only", executable.path], limit: 120) }
            try #require(listed.status == 0, "nm: \(String(decoding: listed.stderr, as: UTF8.self))")
            let symbols = String(decoding: listed.stdout, as: UTF8.self).split(separator: "\n")
            // Module names appear in mangled symbols as <length><name>.
            let modules = ["NIOCore", "NIOPosix", "PostgresNIO", "GRDB", "Hummingbird"]
            return Dictionary(uniqueKeysWithValues: modules.map { name in ("\(name)", symbols.count { $0.contains("\(name.count)\(name)") }) })
        }
        let lean = try await count(Paths.multiauth)
        #expect(lean.values.allSatisfy { $0 == 0 }, "\(lean)")
        let server = try await count(Paths.multiauth.deletingLastPathComponent().appendingPathComponent("multiauth-server"))
        #expect(server["NIOCore", default: 0] > 0 && server["PostgresNIO", default: 0] > 0 && server["Hummingbird", default: 0] > 0, "\(server)")
    }

    /// A command whose store is in PostgreSQL goes to the executable that links postgres-nio,
    /// whether the store is named by --store or by MULTIAUTH_STORE.
    @Test func aPostgresStoreCommandIsHandedOver() async throws {
        let folder = try ScratchFolder("handover-postgres")
        defer { folder.remove() }
        let script = try folder.script("multiauth-server", "printf 'server:%s\\n' \"$*\"")
        let byFlag = try await CLI.run(["store", "list", "--store", "postgres://u@127.0.0.1:1/db"], environment: ["MULTIAUTH_SERVER": script])
        #expect(byFlag.stdout == "server:store list --store postgres://u@127.0.0.1:1/db\n", "\(byFlag.stdout) \(byFlag.stderr)")
        let byVariable = try await CLI.run(
            ["token", "--name", "x"], environment: ["MULTIAUTH_SERVER": script, "MULTIAUTH_STORE": "postgresql://u@127.0.0.1:1/db"])
        #expect(byVariable.stdout == "server:token --name x\n", "\(byVariable.stdout) \(byVariable.stderr)")
        let file = try await CLI.run(["store", "list", "--store", folder.path + "/none.store"], environment: ["MULTIAUTH_SERVER": script])
        #expect(!file.stdout.hasPrefix("server:"), "a file store stays in multiauth: \(file.stdout)")
    }

    /// One list of commands: the completion scripts offer the server commands too.
    @Test(arguments: ["bash", "zsh", "fish"]) func completionScriptsCoverEveryCommand(shell: String) async throws {
        let run = try await CLI.run(["--generate-completion-script", shell])
        #expect(run.status == 0, "\(run.stderr)")
        for name in ["sign", "token", "proxy", "gateway", "clients", "graphql", "subscribe", "events", "clear-caches", "realtime-url"] {
            #expect(run.stdout.contains(name), "\(shell): \(name) missing")
        }
    }

    @Test func aServerCommandsHelpComesFromTheServerExecutable() async throws {
        let run = try await CLI.run(["proxy", "--help"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("USAGE: multiauth proxy"), "\(run.stdout)")
        #expect(run.stdout.contains("--upstream"))
        let help = try await CLI.run(["help", "gateway"])
        #expect(help.status == 0, "\(help.stderr)")
        #expect(help.stdout.contains("--iam-credentials"), "\(help.stdout)")
    }

    @Test func theTopLevelHelpNamesEveryServerCommand() async throws {
        let run = try await CLI.run(["--help"])
        #expect(run.status == 0)
        let flattened = run.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        for name in ["proxy,", "gateway,", "clients,", "graphql,", "subscribe,", "events,", "clear-caches,", "realtime-url"] {
            #expect(flattened.contains(name), "\(name) missing from: \(run.stdout)")
        }
        #expect(flattened.contains("multiauth-server"))
    }

    @Test func aServerCommandsUsageErrorReadsAsMultiauthsAndExits2() async throws {
        let run = try await CLI.run(["gateway", "--listen", "127.0.0.1:0"])
        #expect(run.status == 2)
        #expect(run.stderr.hasPrefix("multiauth: error: "), "\(run.stderr)")
        #expect(run.stderr.contains("--upstream"))
    }

    @Test func aMissingServerExecutableIsNamedWithTheWayToProvideIt() async throws {
        let run = try await CLI.run(["proxy", "--upstream", "http://127.0.0.1:9"], environment: ["MULTIAUTH_SERVER": "/nonexistent/multiauth-server"])
        #expect(run.status == 1)
        #expect(run.stderr.contains("cannot start /nonexistent/multiauth-server"), "\(run.stderr)")
        #expect(run.stderr.contains("MULTIAUTH_SERVER"))
        #expect(run.stderr.split(separator: "\n").count == 1)
    }

    @Test func commandsOfMultiauthItselfAreNotHandedOver() async throws {
        // A server executable that cannot start would fail any command handed to it.
        let run = try await CLI.run(CLI.base + ["--url", "https://example.amazonaws.com/"], environment: ["MULTIAUTH_SERVER": "/nonexistent"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("Authorization:AWS4-HMAC-SHA256 "))
    }
}
