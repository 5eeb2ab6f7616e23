public import MultiAuthCore

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// `~/.aws/credentials` and `~/.aws/config` (or `AWS_SHARED_CREDENTIALS_FILE` and
/// `AWS_CONFIG_FILE`), parsed into profiles. In the config file a profile's section is
/// `[profile NAME]` except `[default]`; in the credentials file it is `[NAME]`.
public struct SharedConfigFiles: Sendable {
    /// Profile name → key → value, credentials-file keys taking precedence.
    public let profiles: [String: [String: String]]
    /// `[sso-session NAME]` sections of the config file: name → key → value.
    public let ssoSessions: [String: [String: String]]
    /// `[services NAME]` sections: name → `service.key` (`sts.endpoint_url`) → value.
    public let services: [String: [String: String]]
    /// The files that were read.
    public let paths: [String]

    /// Loads the files (missing files are empty).
    /// - Throws: ``CredentialsError/malformedFile(path:line:problem:)`` naming the line.
    public static func load(environment: [String: String] = ProcessInfo.processInfo.environment) throws(CredentialsError) -> SharedConfigFiles {
        let home = environment["HOME"] ?? "."
        let credentialsPath = environment["AWS_SHARED_CREDENTIALS_FILE"] ?? home + "/.aws/credentials"
        let configPath = environment["AWS_CONFIG_FILE"] ?? home + "/.aws/config"
        let config = try sections(path: configPath)
        var merged = profiles(of: config, isConfig: true)
        for (name, values) in profiles(of: try sections(path: credentialsPath), isConfig: false) {
            merged[name, default: [:]].merge(values) { _, credentialsValue in credentialsValue }
        }
        func named(_ kind: String) -> [String: [String: String]] {
            var found: [String: [String: String]] = [:]
            for section in config where section.header.hasPrefix(kind + " ") {
                found[section.header.dropFirst(kind.count + 1).trimmedWhitespace] = section.values
            }
            return found
        }
        return SharedConfigFiles(
            profiles: merged, ssoSessions: named("sso-session"), services: named("services"), paths: [credentialsPath, configPath])
    }

    /// A section's header text (`default`, `profile dev`, `sso-session corp`) and settings.
    typealias Section = (header: String, values: [String: String])

    static func sections(path: String) throws(CredentialsError) -> [Section] {
        switch BoundedFileRead.contents(atPath: path, limit: BoundedFileRead.configLimit) {
        case .success(let data): return try sections(contents: String(decoding: data, as: UTF8.self), path: path)
        case .failure(let failure):
            guard case .tooLarge = failure.kind else { return [] }  // a missing file names no profiles
            throw .malformedFile(path: path, line: 0, problem: failure.description)
        }
    }

    /// Parses file contents into profiles; `path` names the file in errors.
    package static func parse(contents: String, path: String, isConfig: Bool) throws(CredentialsError) -> [String: [String: String]] {
        profiles(of: try sections(contents: contents, path: path), isConfig: isConfig)
    }

    private static func profiles(of sections: [Section], isConfig: Bool) -> [String: [String: String]] {
        var profiles: [String: [String: String]] = [:]
        for (header, values) in sections {
            guard let name = profileName(header, isConfig: isConfig) else { continue }
            profiles[name, default: [:]].merge(values) { _, later in later }
        }
        return profiles
    }

    /// Every section in the order of first appearance; a repeated header adds to the first.
    static func sections(contents: String, path: String) throws(CredentialsError) -> [Section] {
        var sections: [Section] = []
        var indexOfHeader: [String: Int] = [:]
        var section: Int?
        var parentKey: String?  // a key with an empty value, whose indented lines are its sub-settings
        // Lines end in LF, CRLF or CR, as Python's configparser (botocore) reads them.
        for (index, rawLine) in contents.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let line = rawLine.trimmedWhitespace
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            if rawLine.first == " " || rawLine.first == "\t" {
                // A sub-setting (`sts =` then `  endpoint_url = ...`), kept as `sts.endpoint_url`.
                if let current = section, let parentKey, let equals = line.firstIndex(of: "=") {
                    let key = parentKey + "." + line[..<equals].trimmedWhitespace.lowercased()
                    sections[current].values[key] = line[line.index(after: equals)...].trimmedWhitespace
                }
                continue
            }
            if line.hasPrefix("[") {
                guard line.hasSuffix("]") else {
                    throw .malformedFile(path: path, line: index + 1, problem: "section header without ']'")
                }
                let header = String(line.dropFirst().dropLast()).trimmedWhitespace
                if indexOfHeader[header] == nil {
                    indexOfHeader[header] = sections.count
                    sections.append((header, [:]))
                }
                section = indexOfHeader[header]
                parentKey = nil
                continue
            }
            guard let equals = line.firstIndex(of: "=") else {
                throw .malformedFile(path: path, line: index + 1, problem: "expected 'key = value'")
            }
            guard let current = section else {
                throw .malformedFile(path: path, line: index + 1, problem: "setting outside any [section]")
            }
            let key = line[..<equals].trimmedWhitespace.lowercased()
            let value = line[line.index(after: equals)...].trimmedWhitespace
            sections[current].values[key] = value
            parentKey = value.isEmpty ? key : nil
        }
        return sections
    }

    /// `profile NAME` → NAME in the config file; `[default]` stays; other config sections
    /// (`sso-session`, `services`) are not profiles.
    private static func profileName(_ header: String, isConfig: Bool) -> String? {
        guard isConfig else { return header }
        if header == "default" { return header }
        guard header.hasPrefix("profile ") else { return nil }
        return header.dropFirst("profile ".count).trimmedWhitespace
    }
}

extension SharedConfigFiles {
    /// Where `profile` sends calls to `service` (`sts`, `sso-oidc`, ...), in botocore's order:
    /// `AWS_ENDPOINT_URL_<SERVICE ID>`, `AWS_ENDPOINT_URL`, the profile's `services` section
    /// (`sts =` / `  endpoint_url = ...`), the profile's `endpoint_url`, then the regional
    /// endpoint.
    /// - Throws: ``CredentialsError/invalidSetting(source:problem:)`` when `region` is not a
    ///   region name.
    public func endpoint(for service: String, profile: String?, region: String, environment: [String: String]) throws(CredentialsError)
        -> ServiceEndpoint
    {
        let settings = profile.flatMap { profiles[$0] } ?? [:]
        let section = settings["services"].flatMap { services[$0] } ?? [:]
        let key = ServiceEndpoint.serviceID(service).lowercased() + ".endpoint_url"
        do throws(InvalidRegionError) {
            return try .resolve(service: service, region: region, environment: environment, profileEndpoint: section[key] ?? settings["endpoint_url"])
        } catch { throw CredentialsError(error) }
    }

    /// The region configured outside the request, in the AWS SDKs' order: `AWS_REGION`,
    /// `AWS_DEFAULT_REGION`, then the profile's `region` (`profile`, else `AWS_PROFILE`, else
    /// `default`). Nil when none names one.
    /// - Throws: ``CredentialsError/invalidSetting(source:problem:)`` when the first source that
    ///   names one names something that is not a region name.
    public static func configuredRegion(
        profile: String? = nil, environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(CredentialsError) -> String? {
        if let region = try environmentRegion(environment) { return region }
        let name = profileName(profile, environment)
        guard let region = (try? load(environment: environment))?.profiles[name]?["region"].flatMap(nonEmpty) else { return nil }
        return try checkedRegion(region, source: "profile '\(name)' region")
    }
}
