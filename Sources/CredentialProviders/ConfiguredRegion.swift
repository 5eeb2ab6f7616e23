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
        profile: String? = nil, environment: [String: String] = ProcessInfo.processInfo.environment
    ) async -> String? {
        if let region = nonEmpty(environment["AWS_REGION"]) ?? nonEmpty(environment["AWS_DEFAULT_REGION"]) { return region }
        let settings = (try? load(environment: environment))?.profiles[profile ?? nonEmpty(environment["AWS_PROFILE"]) ?? "default"] ?? [:]
        if let region = nonEmpty(settings["region"]) { return region }
        guard let metadata = try? InstanceMetadataSettings(environment: environment, profile: settings) else { return nil }
        guard let region = try? await InstanceMetadataClient(settings: metadata).text("meta-data/placement/region").trimmedWhitespace,
            !region.isEmpty, WireText.isSafe(region)
        else { return nil }
        return region
    }
}
