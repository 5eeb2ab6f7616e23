import MultiAuthCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension SharedConfigFiles {
    /// ``configuredRegion(profile:environment:)``, then the instance's region from EC2 instance
    /// metadata (`latest/meta-data/placement/region`) when nothing names one, unless
    /// `AWS_EC2_METADATA_DISABLED=true`. Waits at most the metadata timeout (1 s by default).
    public static func resolvedRegion(
        profile: String? = nil, environment: [String: String] = ProcessInfo.processInfo.environment,
        metadata: InstanceMetadataClient? = nil
    ) async -> String? {
        if let region = configuredRegion(profile: profile, environment: environment) { return region }
        let name = profile ?? nonEmpty(environment["AWS_PROFILE"]) ?? "default"
        let client: InstanceMetadataClient
        if let metadata {
            client = metadata
        } else {
            let settings = (try? load(environment: environment))?.profiles[name] ?? [:]
            guard let settings = try? InstanceMetadataSettings(environment: environment, profile: settings) else { return nil }
            client = InstanceMetadataClient(settings: settings)
        }
        guard let region = try? await client.text("meta-data/placement/region").trimmedWhitespace, !region.isEmpty,
            WireText.isSafe(region)
        else { return nil }
        return region
    }
}
