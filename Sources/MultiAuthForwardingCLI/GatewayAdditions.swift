package import MultiAuthAPIDefinition
import MultiAuthCLI
package import MultiAuthReverseProxy
package import MultiAuthStore
package import Synchronization

/// What `multiauth-server` adds to the forwarding commands it shares with `multiauth-forward`:
/// reading API definitions and usage plans (OpenAPIKit and Yams), and quotas counted in a
/// PostgreSQL store (postgres-nio). Those link all of Foundation and its internationalisation
/// data, which `multiauth-forward` leaves out to stay small; `multiauth` hands a command that
/// needs them to `multiauth-server`.
package struct GatewayAdditions: Sendable {
    /// The definition in a file's bytes, the file named `name` in errors.
    package typealias ReadDefinition = @Sendable (_ bytes: [UInt8], _ name: String) throws(APIDefinitionError) -> APIDefinition
    /// The usage plans in a file's bytes, their keys checked against the gateway's key names.
    package typealias ReadUsagePlans = @Sendable (_ bytes: [UInt8], _ name: String, _ knownKeys: Set<String>) throws(APIDefinitionError) -> UsagePlans

    let readDefinition: ReadDefinition
    let readUsagePlans: ReadUsagePlans
    let sharedUsageCount: @Sendable (any StoreBackend) -> UsageLimits.SharedCount?

    /// The additions, each as its module provides it.
    package init(
        readDefinition: @escaping ReadDefinition, readUsagePlans: @escaping ReadUsagePlans,
        sharedUsageCount: @escaping @Sendable (any StoreBackend) -> UsageLimits.SharedCount?
    ) {
        self.readDefinition = readDefinition
        self.readUsagePlans = readUsagePlans
        self.sharedUsageCount = sharedUsageCount
    }

    /// The additions the running executable installed at start; none in `multiauth-forward`.
    package static let installed = Mutex<GatewayAdditions?>(nil)

    /// The installed additions, or the error naming `flag` as what needs them.
    static func required(by flag: String) throws(CLIError) -> GatewayAdditions {
        guard let additions = installed.withLock({ $0 }) else {
            throw CLIError(flag, "multiauth-forward reads no API definitions or usage plans; 'multiauth gateway' hands \(flag) to multiauth-server")
        }
        return additions
    }
}
