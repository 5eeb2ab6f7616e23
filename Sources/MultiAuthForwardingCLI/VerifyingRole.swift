package import ArgumentParser
package import Logging
import MultiAuthCLI
package import MultiAuthReverseProxy
package import ServiceLifecycle

/// What sets the gateway and the auth service apart; their verification is the same.
package protocol VerifyingRole: SendableMetatype {
    /// The options only this role has.
    associatedtype Options: ParsableArguments & Sendable
    static var configuration: CommandConfiguration { get }
    /// The command's name, in messages.
    static var name: String { get }
    /// True when verified requests are sent on to an upstream.
    static var forwards: Bool { get }
    /// How an auth service reads the request it decides on (nil: a gateway).
    static func contract(_ options: Options) -> AuthzContract?
    /// Listeners served beside the HTTP one; `gateway` makes a verifier reading `contract`.
    static func companions(
        _ options: Options, server: ServerOptions, logger: Logger, gateway: (AuthzContract) -> VerifyingGateway
    ) throws -> [any Service]
}

extension VerifyingRole {
    /// The upstream an auth service is given, which it never calls.
    static var placeholderUpstream: String { "http://127.0.0.1:9/" }
}

/// No options beyond the shared ones.
struct NoOptions: ParsableArguments {}

/// `multiauth gateway`.
enum GatewayRole: VerifyingRole {
    static let configuration = CommandConfiguration(
        commandName: "gateway",
        abstract: ServerCommand.gateway.abstract,
        discussion: """
            Rejections are answered as API Gateway answers them: 403 (401 for a missing JWT) with \
            x-amzn-ErrorType and a JSON message. Verified requests reach the upstream with \
            X-MultiAuth-Principal (access key id, API key name or JWT sub) and X-MultiAuth-Mode. \
            Signatures are accepted within 5 minutes of the gateway's clock, as API Gateway accepts them. A presigned URL can \
            be replayed until it expires: there is no replay cache. SIGINT or SIGTERM stops \
            accepting and lets requests in flight finish.
            """)
    static let name = "gateway"
    static let forwards = true
    static func contract(_ options: NoOptions) -> AuthzContract? { nil }
    static func companions(_: NoOptions, server: ServerOptions, logger: Logger, gateway: (AuthzContract) -> VerifyingGateway) -> [any Service] { [] }
}
