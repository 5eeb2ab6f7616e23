import Foundation
import IntegrationSupport
import Testing

/// The completion scripts and the help dump the man pages are made from cover every command
/// with its options, the ones `multiauth` hands to `multiauth-server` included (issue 51).
@Suite(.timeLimit(.minutes(2))) struct CompletionTests {
    @Test(arguments: ["bash", "zsh", "fish"]) func completionsOfferTheServerCommandsFlags(shell: String) async throws {
        let run = try await CLI.run(["--generate-completion-script", shell], limit: 60)
        #expect(run.status == 0)
        for flag in ["iam-credentials", "upstream-ca-bundle", "region", "kms-key-id"] {
            #expect(run.stdout.contains(flag), "\(shell) completion lacks \(flag)")
        }
    }

    @Test func theHelpDumpHoldsEveryCommandWithItsOptions() async throws {
        let run = try await CLI.run(["--experimental-dump-help"], limit: 60)
        #expect(run.status == 0)
        let dump = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any]
        let root = try #require(dump?["command"] as? [String: Any])
        let commands = try #require(root["subcommands"] as? [[String: Any]])
        let names = Set(commands.compactMap { $0["commandName"] as? String })
        #expect(names.isSuperset(of: ["sign", "request", "store", "login", "proxy", "gateway", "exec", "graphql", "events"]))
        let gateway = try #require(commands.first { $0["commandName"] as? String == "gateway" })
        let options = (gateway["arguments"] as? [[String: Any]] ?? []).compactMap { ($0["preferredName"] as? [String: Any])?["name"] as? String }
        #expect(options.contains("iam-credentials") && options.contains("tls-key"))
    }
}
