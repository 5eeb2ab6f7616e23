package import ArgumentParser

/// Names one server command for ``ServerCommandEntry``.
package protocol ServerCommandName {
    static var command: ServerCommand { get }
}

/// A server command as `multiauth` lists it: its name and summary in `--help` and in the
/// completion scripts, so one list of commands covers both executables. It never runs:
/// `multiauth` hands these commands to `multiauth-server` before parsing (``ServerCommand``).
package struct ServerCommandEntry<Name: ServerCommandName>: ParsableCommand {
    package static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: Name.command.rawValue, abstract: Name.command.abstract)
    }

    @Argument(parsing: .allUnrecognized) var arguments: [String] = []

    package init() {}

    package func run() throws {
        throw CLIError(message: "\(Name.command.rawValue) runs in \(ServerCommand.executableName), which multiauth starts for it")
    }
}

extension ServerCommand {
    enum Proxy: ServerCommandName { static let command = ServerCommand.proxy }
    enum Gateway: ServerCommandName { static let command = ServerCommand.gateway }
    enum Authz: ServerCommandName { static let command = ServerCommand.authz }
    enum Exec: ServerCommandName { static let command = ServerCommand.exec }
    enum Clients: ServerCommandName { static let command = ServerCommand.clients }
    enum GraphQL: ServerCommandName { static let command = ServerCommand.graphql }
    enum Subscribe: ServerCommandName { static let command = ServerCommand.subscribe }
    enum Events: ServerCommandName { static let command = ServerCommand.events }
    enum ClearCaches: ServerCommandName { static let command = ServerCommand.clearCaches }
    enum RealtimeURL: ServerCommandName { static let command = ServerCommand.realtimeURL }

    /// Every server command's entry, in the order `--help` lists them.
    static let entries: [any ParsableCommand.Type] = [
        ServerCommandEntry<Proxy>.self, ServerCommandEntry<Gateway>.self, ServerCommandEntry<Authz>.self, ServerCommandEntry<Exec>.self, ServerCommandEntry<Clients>.self,
        ServerCommandEntry<GraphQL>.self, ServerCommandEntry<Subscribe>.self, ServerCommandEntry<Events>.self,
        ServerCommandEntry<ClearCaches>.self, ServerCommandEntry<RealtimeURL>.self,
    ]
}
