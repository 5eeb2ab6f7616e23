import Foundation
import IntegrationSupport
import Testing

/// `multiauth` hands the server and AppSync commands to `multiauth-server`: the user sees one
/// command, with the second executable's help, errors and exit codes.
@Suite(.timeLimit(.minutes(5))) struct ServerHandOverTests {
    @Test(arguments: ["multiauth-server", "multiauth-forward"]) func everyExecutablePrintsTheSameVersion(name: String) async throws {
        let ours = try await CLI.run(["--version"])
        #expect(ours.status == 0 && !ours.stdout.isEmpty, "\(ours.stderr)")
        let theirs = try await offPool { try ChildProcess.run(sibling(name), ["--version"]) }
        #expect(theirs.status == 0)
        #expect(String(decoding: theirs.stdout, as: UTF8.self) == ours.stdout)
    }

    /// `proxy` and `gateway` go to `multiauth-forward` when it is beside `multiauth` and the
    /// arguments need nothing it leaves out; `--api`, `--usage-plans`, a PostgreSQL store and
    /// every other server command go to `multiauth-server`, as they do when it is missing.
    @Test func theLeanServerTakesWhatItCanRun() async throws {
        let folder = try ScratchFolder("handover-forward")
        defer { folder.remove() }
        let multiauth = folder.url.appendingPathComponent("multiauth")
        try FileManager.default.copyItem(at: Paths.multiauth, to: multiauth)  // it looks beside its own file, so a copy, not a link
        _ = try folder.script("multiauth-server", "printf 'server:%s\\n' \"$*\"")
        let forward = try folder.script("multiauth-forward", "printf 'forward:%s\\n' \"$*\"")
        func run(_ arguments: [String], _ environment: [String: String] = [:]) async throws -> String {
            var variables = ProcessInfo.processInfo.environment.merging(environment) { $1 }
            variables["MULTIAUTH_SERVER"] = nil
            let merged = variables
            let finished = try await offPool { try ChildProcess.run(multiauth, arguments, environment: merged) }
            return String(decoding: finished.stdout, as: UTF8.self)
        }
        #expect(try await run(["proxy", "--upstream", "http://127.0.0.1:9"]) == "forward:proxy --upstream http://127.0.0.1:9\n")
        #expect(try await run(["gateway", "--api-key", "a=b", "--api-key-file", "k"]) == "forward:gateway --api-key a=b --api-key-file k\n")
        #expect(try await run(["gateway", "--api", "api.yaml"]) == "server:gateway --api api.yaml\n")
        #expect(try await run(["gateway", "--api=api.yaml"]) == "server:gateway --api=api.yaml\n")
        #expect(try await run(["gateway", "--usage-plans", "p.json"]) == "server:gateway --usage-plans p.json\n")
        #expect(try await run(["gateway", "--iam-store", "s", "--store", "postgres://u@127.0.0.1:1/db"]).hasPrefix("server:"))
        #expect(try await run(["proxy"], ["MULTIAUTH_STORE": "postgresql://u@127.0.0.1:1/db"]) == "server:proxy\n")
        #expect(try await run(["authz", "--proxy", "nginx"]) == "server:authz --proxy nginx\n")
        try FileManager.default.removeItem(atPath: forward)
        #expect(try await run(["proxy"]) == "server:proxy\n")
    }

    /// `multiauth-forward` links none of Foundation (nor its internationalisation data),
    /// postgres-nio, GRDB, OpenAPIKit or Yams; `multiauth-server` links all of them (the check
    /// that the names are looked for the right way). Foundation's own symbols are named
    /// whether it is linked statically (defined) or dynamically (undefined references).
    @Test func theForwardingExecutableLinksNoFullFoundation() async throws {
        let modules = ["Foundation", "PostgresNIO", "GRDB", "OpenAPIKit30", "Yams"]
        let forward = try await Self.modulesNamed(in: sibling("multiauth-forward"), among: modules, mangled: true)
        #expect(forward.isEmpty, "\(forward)")
        let server = try await Self.modulesNamed(in: sibling("multiauth-server"), among: modules, mangled: true)
        #expect(server == Set(modules), "\(server)")
    }

    /// `multiauth-forward` refuses `--api` with the way to serve it, instead of serving
    /// nothing: it is only reached that way when started by hand.
    @Test func theForwardingExecutableNamesWhereAPIDefinitionsAreRead() async throws {
        let folder = try ScratchFolder("forward-api")
        defer { folder.remove() }
        let definition = try folder.file("api.yaml", bytes: 10)
        let run = try await offPool { try ChildProcess.run(sibling("multiauth-forward"), ["gateway", "--api", definition, "--listen", "127.0.0.1:0"], limit: 60) }
        let message = String(decoding: run.stderr, as: UTF8.self)
        #expect(run.status == 1, "\(message)")
        #expect(message.contains("--api: multiauth-forward reads no API definitions") && message.contains("multiauth-server"), "\(message)")
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

        let environment = ProcessInfo.processInfo.environment.merging(["MULTIAUTH_HANDOVER_VERSION": "0.0.1"]) { $1 }
        for name in ["multiauth-server", "multiauth-forward"] {
            let refused = try await offPool { try ChildProcess.run(sibling(name), ["proxy", "--help"], environment: environment) }
            let message = String(decoding: refused.stderr, as: UTF8.self)
            #expect(refused.status == 1)
            #expect(message.contains("\(name) is version") && message.contains("multiauth is version 0.0.1"), "\(message)")
        }
    }

    /// The lean executable links none of SwiftNIO, postgres-nio, GRDB or Hummingbird: its
    /// symbol table names no module of theirs (the server executable's does, as a check that
    /// the names are looked for the right way).
    @Test func theLeanExecutableLinksNoServerStack() async throws {
        let modules = ["NIOCore", "NIOPosix", "PostgresNIO", "GRDB", "Hummingbird"]
        let lean = try await Self.modulesNamed(in: Paths.multiauth, among: modules, definedOnly: true)
        #expect(lean.isEmpty, "\(lean)")
        let server = try await Self.modulesNamed(in: sibling("multiauth-server"), among: modules, definedOnly: true)
        #expect(server.isSuperset(of: ["NIOCore", "PostgresNIO", "Hummingbird"]), "\(server)")
    }

    /// Which of `modules` `nm` finds in `executable`'s symbol table: a module's name appears
    /// in a mangled symbol as <length><name> (after `$s` when `mangled`). The listing is
    /// searched whole, as bytes (not line by line: this target is built unoptimised, and
    /// 350,000 lines times five names took 40 s of CPU).
    static func modulesNamed(in executable: URL, among modules: [String], definedOnly: Bool = false, mangled: Bool = false) async throws -> Set<String> {
        let listed = try await offPool { try ChildProcess.run(URL(fileURLWithPath: "/usr/bin/nm"), (definedOnly ? ["--defined-only"] : []) + [executable.path], limit: 120) }
        try #require(listed.status == 0, "nm: \(String(decoding: listed.stderr, as: UTF8.self))")
        return Set(modules.filter { name in listed.stdout.range(of: Data("\(mangled ? "$s" : "")\(name.count)\(name)".utf8)) != nil })
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

/// The executable `name` beside `multiauth`.
private func sibling(_ name: String) -> URL { Paths.multiauth.deletingLastPathComponent().appendingPathComponent(name) }
