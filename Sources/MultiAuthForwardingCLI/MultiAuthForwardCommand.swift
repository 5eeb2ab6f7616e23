package import ArgumentParser
import MultiAuthCLI

/// The commands of `multiauth-forward`: the proxy and the gateway without what needs all of
/// Foundation (API definitions, usage plans, PostgreSQL stores), in an executable a third the
/// size of `multiauth-server`.
///
/// Users run them as `multiauth proxy …`; `multiauth` hands them over to this executable when
/// it is installed beside and the arguments need nothing it leaves out (see `ServerCommand`).
package struct MultiAuthForwardCommand: AsyncParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "multiauth",
        abstract: "The proxy and the gateway of multiauth.",
        version: ReleaseVersion.current,
        subcommands: [ProxyCommand.self, GatewayCommand.self]
    )

    package init() {}

    /// The commands `multiauth-server` runs too; it adds ``GatewayAdditions`` to them.
    package static var sharedCommands: [any ParsableCommand.Type] { configuration.subcommands }

    /// The process entry point: parses the arguments, runs the command and exits with its
    /// code, reporting failures as `multiauth` does.
    package static func runAsProcess() async -> Never {
        CommandProcess.forbidCoreDumps()
        if let mismatch = ReleaseVersion.handOverMismatch(executable: ServerCommand.forwardExecutableName) {
            CommandProcess.terminate(CommandProcess.report(mismatch))
        }
        let arguments = Array(CommandLine.arguments.dropFirst())
        CommandProcess.terminate(await CommandProcess.run(Self.self) { try parseAsRoot(arguments) })
    }
}
