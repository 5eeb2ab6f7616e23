#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The commands that run in the `multiauth-server` executable: the proxy, the gateway and the
/// AppSync clients, which need SwiftNIO, Hummingbird, AsyncHTTPClient and SQLite.
///
/// `multiauth` hands them over (`execv`, same arguments) before parsing anything. Kept out of
/// `multiauth`'s binary, those modules no longer lengthen the Swift runtime's scans of the
/// protocol-conformance records that every first type lookup makes, which is most of what
/// `sign` and `token` spend starting up.
package enum ServerCommand: String, CaseIterable, Sendable {
    case proxy, gateway, authz, exec, clients, graphql, subscribe, events
    case clearCaches = "clear-caches"
    case realtimeURL = "realtime-url"

    /// The one-line summary both executables' help shows.
    package var abstract: String {
        switch self {
        case .proxy: "Forward every request received to an upstream, authorized in any mode (IAM, API key, user pools, OIDC, Lambda)."
        case .gateway: "Verify every request (SigV4/SigV4a, API keys, JWTs) and forward only verified ones to an upstream."
        case .authz: "Decide for nginx, Caddy, Traefik or Envoy whether a request may pass (SigV4/SigV4a, API keys, JWTs), as the gateway would."
        case .exec: "Run a program with credentials from the default chain: in its environment, or from a local container or IMDSv2 endpoint."
        case .clients: "List the AppSync clients of an awsconfiguration.json: mode, URL, prefix, databases, problems."
        case .graphql: "Run a GraphQL query or mutation through the AppSync client of an entry or auth mode."
        case .subscribe: "Subscribe through the AppSync client of an entry or auth mode; print each data message as one JSON line."
        case .events: "Publish to and subscribe to AppSync Events channels, in any auth mode."
        case .clearCaches: "Empty the query, offline-mutation and subscription caches of the configuration's clients."
        case .realtimeURL: "Print the AppSync realtime (websocket) connection URL for an entry, authorized for its mode."
        }
    }

    /// The name of the executable that runs these commands, installed beside `multiauth`.
    /// The options that print the command tree (completion scripts, the help dump the man
    /// pages are made from): `multiauth-server` answers them with every command's options.
    package static let describesEveryCommand: Set<String> = ["--generate-completion-script", "--experimental-dump-help"]

    package static let executableName = "multiauth-server"

    /// The lean executable that runs `proxy` and `gateway` without what needs all of
    /// Foundation, installed beside `multiauth` when it is installed at all.
    package static let forwardExecutableName = "multiauth-forward"

    /// True when `multiauth-forward` runs `arguments`: `proxy` or `gateway` without `--api`,
    /// `--usage-plans` or a PostgreSQL store (those need `multiauth-server`).
    package static func runsInForward(_ arguments: [String]) -> Bool {
        guard let first = arguments.first, first == ServerCommand.proxy.rawValue || first == ServerCommand.gateway.rawValue else { return false }
        let needsServer = arguments.contains { argument in
            ["--api", "--usage-plans"].contains { argument == $0 || argument.hasPrefix($0 + "=") }
        }
        return !needsServer && !StoreOptions.namePostgres(arguments)
    }

    /// True when `arguments` ask for a command `multiauth-server` runs: a server command, or
    /// `rolesanywhere serve`.
    package static func runsInServer(_ arguments: [String]) -> Bool {
        named(in: arguments) != nil || arguments.prefix(2) == ["rolesanywhere", "serve"]
    }

    /// The server command `arguments` ask for, directly or through `help NAME`.
    package static func named(in arguments: [String]) -> ServerCommand? {
        let name = arguments.first == "help" ? arguments.dropFirst().first : arguments.first
        return name.flatMap(ServerCommand.init(rawValue:))
    }

    /// `multiauth --help`'s paragraph naming these commands (argument-parser rewraps it, so
    /// it is one sentence, not a table).
    static var helpSection: String {
        "The server and AppSync commands \(allCases.map(\.rawValue).joined(separator: ", ")) are run by "
            + "\(executableName), installed beside multiauth; 'multiauth help COMMAND' describes each."
    }

    /// Replaces this process with `multiauth-forward` or `multiauth-server` running
    /// `arguments`; returns only by throwing when that executable cannot be started.
    static func handOver(_ arguments: [String]) throws(CLIError) -> Never {
        let path = try executablePath(for: arguments)
        var argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) }
        argv.append(nil)
        ReleaseVersion.markHandOver()
        execv(path, argv)
        let reason = String(cString: strerror(errno))
        throw CLIError(message: "cannot start \(path) (\(reason)); build it with 'swift build --product \(executableName)' and install it beside multiauth, or name it in MULTIAUTH_SERVER")
    }

    /// `MULTIAUTH_SERVER` when set; else `multiauth-forward` in this executable's folder when
    /// it runs `arguments` and is there; else `multiauth-server` in that folder.
    private static func executablePath(for arguments: [String]) throws(CLIError) -> String {
        if let named = getenv("MULTIAUTH_SERVER"), named.pointee != 0 { return String(cString: named) }
        guard let own = ownExecutablePath(), let slash = own.lastIndex(of: "/") else {
            throw CLIError(message: "cannot find this executable's folder to start \(executableName); name it in MULTIAUTH_SERVER")
        }
        let forward = String(own[...slash]) + forwardExecutableName
        if runsInForward(arguments), access(forward, X_OK) == 0 { return forward }
        return String(own[...slash]) + executableName
    }

    private static func ownExecutablePath() -> String? {
        #if os(Linux)
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        #else
        return CommandLine.arguments.first.flatMap { realpath($0, nil) }.map { pointer in
            defer { free(pointer) }
            return String(cString: pointer)
        }
        #endif
    }
}
