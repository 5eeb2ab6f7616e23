#if canImport(FoundationEssentials)
import MultiAuthCore
import FoundationEssentials
#else
import Foundation
#endif

/// `~/.aws/credentials` and `~/.aws/config` (or `AWS_SHARED_CREDENTIALS_FILE` and
/// `AWS_CONFIG_FILE`), parsed into profiles. In the config file a profile's section is
/// `[profile NAME]` except `[default]`; in the credentials file it is `[NAME]`.
public struct SharedConfigFiles: Sendable {
    /// Profile name → key → value, credentials-file keys taking precedence.
    public let profiles: [String: [String: String]]
    /// The files that were read.
    public let paths: [String]

    /// Loads the files (missing files are empty).
    /// - Throws: ``CredentialsError/malformedFile(path:line:problem:)`` naming the line.
    public static func load(environment: [String: String] = ProcessInfo.processInfo.environment) throws(CredentialsError) -> SharedConfigFiles {
        let home = environment["HOME"] ?? "."
        let credentialsPath = environment["AWS_SHARED_CREDENTIALS_FILE"] ?? home + "/.aws/credentials"
        let configPath = environment["AWS_CONFIG_FILE"] ?? home + "/.aws/config"
        var profiles = try parse(path: configPath, isConfig: true)
        for (name, values) in try parse(path: credentialsPath, isConfig: false) {
            profiles[name, default: [:]].merge(values) { _, credentialsValue in credentialsValue }
        }
        return SharedConfigFiles(profiles: profiles, paths: [credentialsPath, configPath])
    }

    static func parse(path: String, isConfig: Bool) throws(CredentialsError) -> [String: [String: String]] {
        guard let data = FileManager.default.contents(atPath: path) else { return [:] }
        return try parse(contents: String(decoding: data, as: UTF8.self), path: path, isConfig: isConfig)
    }

    /// Parses file contents; `path` names the file in errors.
    package static func parse(contents: String, path: String, isConfig: Bool) throws(CredentialsError) -> [String: [String: String]] {
        var profiles: [String: [String: String]] = [:]
        var section: String?
        var inAnySection = false
        // Lines end in LF, CRLF or CR, as Python's configparser (botocore) reads them.
        for (index, rawLine) in contents.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let line = rawLine.trimmedWhitespace
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            if rawLine.first == " " || rawLine.first == "\t" { continue }  // a nested sub-setting (e.g. s3 =)
            if line.hasPrefix("[") {
                guard line.hasSuffix("]") else {
                    throw .malformedFile(path: path, line: index + 1, problem: "section header without ']'")
                }
                section = sectionName(String(line.dropFirst().dropLast()).trimmedWhitespace, isConfig: isConfig)
                inAnySection = true
                if let section { profiles[section, default: [:]] = profiles[section] ?? [:] }
                continue
            }
            guard let equals = line.firstIndex(of: "=") else {
                throw .malformedFile(path: path, line: index + 1, problem: "expected 'key = value'")
            }
            guard inAnySection else {
                throw .malformedFile(path: path, line: index + 1, problem: "setting outside any [section]")
            }
            guard let current = section else { continue }  // a section that is not a profile
            let key = line[..<equals].trimmedWhitespace.lowercased()
            let value = line[line.index(after: equals)...].trimmedWhitespace
            profiles[current, default: [:]][key] = value
        }
        return profiles
    }

    /// `profile NAME` → NAME in the config file; `[default]` stays; other config sections
    /// (`sso-session`, `services`) are not profiles.
    private static func sectionName(_ header: String, isConfig: Bool) -> String? {
        guard isConfig else { return header }
        if header == "default" { return header }
        guard header.hasPrefix("profile ") else { return nil }
        return header.dropFirst("profile ".count).trimmedWhitespace
    }
}

extension SharedConfigFiles {
    /// The region configured outside the request, in the AWS SDKs' order: `AWS_REGION`,
    /// `AWS_DEFAULT_REGION`, then the profile's `region` (`profile`, else `AWS_PROFILE`, else
    /// `default`). Nil when none names one.
    public static func configuredRegion(profile: String? = nil, environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        if let region = nonEmpty(environment["AWS_REGION"]) ?? nonEmpty(environment["AWS_DEFAULT_REGION"]) { return region }
        let name = profile ?? nonEmpty(environment["AWS_PROFILE"]) ?? "default"
        return (try? load(environment: environment))?.profiles[name]?["region"].flatMap(nonEmpty)
    }
}
