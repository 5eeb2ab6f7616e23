import ArgumentParser
import MultiAuthCLI
import MultiAuthCore
import MultiAuthCredentials
import MultiAuthCredentialsServer
import MultiAuthForwardingCLI
import ServiceLifecycle
import UnixSignals

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// `multiauth rolesanywhere` as `multiauth-server` runs it: `serve` here, the others as
/// `multiauth` runs them (for the full command tree).
struct RolesAnywhereServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rolesanywhere", abstract: RolesAnywhereCommand.configuration.abstract,
        subcommands: [RolesAnywhereCredentialProcessCommand.self, RolesAnywhereUpdateCommand.self, RolesAnywhereServeCommand.self])
}

/// `multiauth rolesanywhere serve`: an IMDSv2 endpoint on 127.0.0.1 handing out a Roles
/// Anywhere session, as `aws_signing_helper serve` does, for SDKs that read instance metadata.
struct RolesAnywhereServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "serve", abstract: RolesAnywhereServeEntry.abstract)
    @OptionGroup var options: RolesAnywhereOptions
    @Option(help: "The port on 127.0.0.1 (0: a free one; default 9911, as aws_signing_helper's).") var port: Int = 9911

    func validate() throws {
        guard (0...65_535).contains(port) else { throw CLIError("--port", "must be 0 to 65535") }
    }

    func run() async throws {
        // One session in this process, refreshed before it expires; a first one now, so a
        // bad certificate or a refusal stops the command before it listens.
        let source = try await options.provider()
        let provider = CachingCredentialsProvider(source)
        _ = try await ChainCredentials.resolve(provider, maxTime: options.maxTime)
        let role = String(options.roleArn.split(separator: "/").last ?? "multiauth")
        let logger = TraceLog.logger(verbose: false)
        let server = CredentialsServer(
            .instanceMetadata(roleName: role, region: source.region), credentials: provider, port: port, logger: logger,
            user: UInt32(getuid()),
            onListening: { port in
                StandardError.emit("rolesanywhere serve: listening on http://127.0.0.1:\(port), for AWS_EC2_METADATA_SERVICE_ENDPOINT")
                SystemdNotify.send("READY=1\nSTATUS=listening on http://127.0.0.1:\(port)")
            })
        try await ServiceGroup(configuration: .init(services: [server], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)).run()
    }
}
