import MultiAuthCore
public import MultiAuthHTTP

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

extension SharedConfigFiles {
    /// ``configuredRegion(profile:environment:)``, then the instance's region from EC2 instance
    /// metadata (`latest/meta-data/placement/region`) when nothing names one, unless
    /// `AWS_EC2_METADATA_DISABLED=true`, asked through `http`. Waits at most the metadata
    /// timeout (1 s by default).
    /// - Throws: ``CredentialsError/invalidSetting(source:problem:)`` when a source names
    ///   something that is not a region name (`RegionName`), instance metadata included.
    public static func resolvedRegion(
        profile: String? = nil, environment: [String: String] = ProcessInfo.processInfo.environment, http: any HTTPSender
    ) async throws(CredentialsError) -> String? {
        if let region = try configuredRegion(profile: profile, environment: environment) { return region }
        let settings = (try? load(environment: environment))?.profiles[profileName(profile, environment)] ?? [:]
        guard let metadata = try? InstanceMetadataSettings(environment: environment, profile: settings) else { return nil }
        guard let answer = try? await InstanceMetadataClient(settings: metadata, http: http).text("meta-data/placement/region").trimmedWhitespace,
            !answer.isEmpty
        else { return nil }
        return try checkedRegion(answer, source: "instance metadata placement/region")
    }

    /// The region `AWS_REGION`, else `AWS_DEFAULT_REGION` names, checked; nil when neither does.
    static func environmentRegion(_ environment: [String: String]) throws(CredentialsError) -> String? {
        for variable in ["AWS_REGION", "AWS_DEFAULT_REGION"] {
            if let region = nonEmpty(environment[variable]) { return try checkedRegion(region, source: variable) }
        }
        return nil
    }

    static func profileName(_ profile: String?, _ environment: [String: String]) -> String {
        profile ?? nonEmpty(environment["AWS_PROFILE"]) ?? "default"
    }
}

/// `region` when it is a region name (`RegionName`); `source` names where it came from.
func checkedRegion(_ region: String, source: String) throws(CredentialsError) -> String {
    do throws(InvalidRegionError) { return try RegionName.validated(region, source: source) } catch { throw CredentialsError(error) }
}

extension CredentialsError {
    /// A region that is not one, as ``invalidSetting(source:problem:)``.
    init(_ invalid: InvalidRegionError) {
        self = .invalidSetting(source: invalid.source, problem: invalid.problem)
    }
}
