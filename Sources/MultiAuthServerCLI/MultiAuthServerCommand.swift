package import ArgumentParser
import MultiAuthAPIDefinition
import MultiAuthAPIDefinitionLoader
import MultiAuthCLI
import MultiAuthForwardingCLI
import MultiAuthPostgresStore
import MultiAuthStore
import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The commands of `multiauth-server`: the proxy, the gateway and the AppSync clients.
///
/// Users run them as `multiauth proxy …`; `multiauth` hands them over to this executable
/// (see `ServerCommand`). Messages and help name the command as `multiauth` does.
package struct MultiAuthServerCommand: AsyncParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "multiauth",
        abstract: "The server and AppSync commands of multiauth.",
        version: ReleaseVersion.current,
        subcommands: MultiAuthForwardCommand.sharedCommands + [
            verifyingCommand(AuthzRole.self), ExecCommand.self, ClientsCommand.self, GraphQLCommand.self, SubscribeCommand.self,
            EventsCommand.self, ClearCachesCommand.self, RealtimeURLCommand.self, RolesAnywhereServerCommand.self,
        ]
    )

    package init() {}

    /// Parses `arguments`, runs the command, and returns the process exit code, reporting
    /// failures as `multiauth` does.
    package static func main(arguments: [String]) async -> Int32 {
        if let mismatch = ReleaseVersion.handOverMismatch() { return CommandProcess.report(mismatch) }
        // The pools of the PostgreSQL stores a command opens run in the process's service group.
        let pools = PostgresStorePools()
        StoreOpeners.added.withLock { $0 = [PostgresStoreBackend.Opener(environment: ProcessInfo.processInfo.environment, pools: pools)] }
        GatewayAdditions.installed.withLock { $0 = additions }
        return await pools.serving(logger: TraceLog.logger(verbose: false)) { await command(arguments) }
    }

    /// API definitions and usage plans read with OpenAPIKit and Yams; quotas counted in a
    /// PostgreSQL store.
    private static let additions = GatewayAdditions(
        readDefinition: { bytes, name throws(APIDefinitionError) in try APIDefinition.load(bytes, name: name) },
        readUsagePlans: { bytes, name, keys throws(APIDefinitionError) in try UsagePlans.load(bytes, name: name, knownKeys: keys) },
        sharedUsageCount: { backend in
            guard let backend = backend as? PostgresStoreBackend else { return nil }
            return { key, period, offset, limit in try await backend.countUsage(key: key, period: period, offset: offset, limit: limit) }
        })

    private static func command(_ arguments: [String]) async -> Int32 {
        // A store command handed over for its PostgreSQL store runs as `multiauth` runs it.
        if let first = arguments.first, ServerCommand.describesEveryCommand.contains(first) {
            return await CommandProcess.run(EveryCommand.self) { try EveryCommand.parseAsRoot(arguments) }
        }
        guard ServerCommand.runsInServer(arguments) else { return await MultiAuthCommand.main(arguments: arguments) }
        return await CommandProcess.run(Self.self) { try parseAsRoot(arguments) }
    }

    /// The process entry point.
    package static func runAsProcess() async -> Never {
        CommandProcess.forbidCoreDumps()
        let code = await main(arguments: Array(CommandLine.arguments.dropFirst()))
        CommandProcess.terminate(code)
    }
}

/// Every command of both executables with all its options, as one `multiauth` tree: what the
/// man pages and the completion scripts are made from (`scripts/package`). In `multiauth`'s
/// own tree the server commands are names without options, since they are parsed here.
struct EveryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "multiauth",
        abstract: MultiAuthCommand.configuration.abstract,
        version: ReleaseVersion.current,
        // `rolesanywhere` once, with the subcommands both executables run.
        subcommands: MultiAuthCommand.clientCommands.filter { $0 != RolesAnywhereCommand.self } + MultiAuthServerCommand.configuration.subcommands
    )
}
