import MultiAuthAWSClient
import MultiAuthCore
import MultiAuthCredentials
import MultiAuthCrypto
import MultiAuthHTTP

/// Store items as SSM Parameter Store `SecureString` parameters. A standard parameter holds
/// 4 KB and an advanced one 8 KB: the tier is chosen by size, and a value larger than that is
/// refused before anything is written.
///
/// SSM has no conditional overwrite; it does create a parameter only if absent. So every
/// write of an item after its first is a new parameter `ITEM.write-N` (text `N:BASE64`),
/// created only if absent: of the writers that read version N-1, exactly one creates it.
/// `ITEM` itself is a checkpoint, overwritten with the newest write's text after the write
/// (plain `BASE64` is version 0, as stores written before this scheme are). A reader takes the
/// checkpoint and follows the `write-N` parameters above it. Each write removes the one eight
/// versions below; should a checkpoint be stale past that (its own `write-N` gone), the newest
/// is found from a listing, then followed as before.
struct ParameterStoreItems: AWSItemService {
    let region: String
    let call: AWSJSONService

    static let standardLimit = 4096
    static let advancedLimit = 8192
    /// How many writes below the newest are kept.
    static let keptWrites: Int64 = 8

    var location: String { "ssm://\(region)/" }

    /// Parameter names with a `/` are fully qualified: they start with one.
    func itemName(_ name: String, suffix: String) -> String { "/" + (suffix.isEmpty ? name : name + "." + suffix) }

    private func writeName(_ name: String, _ version: Int64) -> String { name + ".write-\(version)" }

    func value(_ name: String) async throws(AWSCallError) -> (bytes: [UInt8], version: String)? {
        guard let checkpoint = try await parameter(name) else { return nil }
        var newest = try Self.parse(checkpoint, name)
        var listed = false
        while true {
            let names = (newest.version...(newest.version + 9)).map { writeName(name, $0) }
            let found = try await parameters(names)
            var next = newest
            while let text = found[writeName(name, next.version + 1)] { next = try Self.parse(text, name) }
            if next.version == newest.version + 9 {
                newest = next
                continue
            }
            if next.version == newest.version, newest.version > 0, found[writeName(name, newest.version)] == nil, !listed {
                // The checkpoint's own write is gone: a later write removed it, so the
                // checkpoint is stale. Start again from the newest write listed.
                listed = true
                guard let latest = try await newestListedWrite(name), latest > newest.version else { return (next.bytes, String(next.version)) }
                guard let text = try await parameters([writeName(name, latest)])[writeName(name, latest)] else { continue }
                newest = try Self.parse(text, name)
                continue
            }
            return (next.bytes, String(next.version))
        }
    }

    func version(_ name: String) async throws(AWSCallError) -> String? { try await value(name)?.version }

    func create(_ name: String, _ bytes: [UInt8]) async throws(AWSCallError) -> String? {
        do {
            try await write(name, Base64.encode(bytes), overwrite: false)
            return "0"
        } catch {
            if error.refusalCode == "ParameterAlreadyExists" { return nil }
            throw error
        }
    }

    func swap(_ name: String, _ bytes: [UInt8], expecting version: String) async throws(AWSCallError) -> String? {
        guard let read = Int64(version) else { return nil }
        let next = read + 1
        let text = "\(next):" + Base64.encode(bytes)
        do { try await write(writeName(name, next), text, overwrite: false) } catch {
            // Taken: by another writer, or by this call's own first try when a retried call
            // failed only in its answer (the text then is ours: a fresh nonce makes each unique).
            guard error.refusalCode == "ParameterAlreadyExists" else { throw error }
            guard try await parameters([writeName(name, next)])[writeName(name, next)] == text else { return nil }
        }
        // The write has happened; what follows only keeps reads short and SSM tidy.
        try? await write(name, text, overwrite: true)
        if next > Self.keptWrites {
            _ = try? await call.send("DeleteParameter", ["Name": .string(writeName(name, next - Self.keptWrites))], as: AWSJSONService.Nothing.self)
        }
        return String(next)
    }

    /// `N:BASE64` or plain `BASE64` (version 0).
    private static func parse(_ text: String, _ name: String) throws(AWSCallError) -> (version: Int64, bytes: [UInt8]) {
        var version: Int64 = 0
        var encoded = Substring(text)
        if let colon = text.firstIndex(of: ":") {
            guard let number = Int64(text[..<colon]), number > 0 else { throw .malformedAnswer("the parameter \(name) is not MultiAuth's (was it edited by hand?)") }
            version = number
            encoded = text[text.index(after: colon)...]
        }
        guard let bytes = try? Base64.decode(String(encoded)) else {
            throw .malformedAnswer("the parameter \(name) is not base64 (was it edited by hand?)")
        }
        return (version, bytes)
    }

    private func parameter(_ name: String) async throws(AWSCallError) -> String? {
        struct Answer: Decodable {
            struct Parameter: Decodable { let Value: String }
            let Parameter: Parameter
        }
        do {
            return try await call.send("GetParameter", ["Name": .string(name), "WithDecryption": .bool(true)], as: Answer.self).Parameter.Value
        } catch {
            if error.refusalCode == "ParameterNotFound" { return nil }
            throw error
        }
    }

    /// The values of those of `names` (at most 10) that exist.
    private func parameters(_ names: [String]) async throws(AWSCallError) -> [String: String] {
        struct Answer: Decodable {
            struct Parameter: Decodable { let Name: String, Value: String }
            let Parameters: [Parameter]
        }
        let answer = try await call.send(
            "GetParameters", ["Names": .array(names.map(JSONValue.string)), "WithDecryption": .bool(true)], as: Answer.self)
        return Dictionary(answer.Parameters.map { ($0.Name, $0.Value) }) { first, _ in first }
    }

    /// The highest N of the `name.write-N` parameters a listing shows, or nil when it shows none.
    private func newestListedWrite(_ name: String) async throws(AWSCallError) -> Int64? {
        struct Answer: Decodable {
            struct Parameter: Decodable { let Name: String }
            let Parameters: [Parameter]
            let NextToken: String?
        }
        let prefix = writeName(name, 0).dropLast()
        var newest: Int64?
        var token: String?
        for _ in 0..<100 {
            var fields: [String: JSONValue] = [
                "ParameterFilters": .array([.object(["Key": .string("Name"), "Option": .string("BeginsWith"), "Values": .array([.string(String(prefix))])])]),
                "MaxResults": .number(50),
            ]
            if let token { fields["NextToken"] = .string(token) }
            let answer = try await call.send("DescribeParameters", fields, as: Answer.self)
            for parameter in answer.Parameters {
                if let number = Int64(parameter.Name.dropFirst(prefix.count)) { newest = max(newest ?? number, number) }
            }
            guard let next = answer.NextToken else { break }
            token = next
        }
        return newest
    }

    private func write(_ name: String, _ text: String, overwrite: Bool) async throws(AWSCallError) {
        guard text.utf8.count <= Self.advancedLimit else {
            throw .invalidSetting(
                "the store is \(text.utf8.count) characters as base64, more than an SSM parameter holds (\(Self.advancedLimit)); keep it in Secrets Manager or PostgreSQL")
        }
        _ = try await call.send(
            "PutParameter",
            [
                "Name": .string(name), "Value": .string(text), "Type": .string("SecureString"), "Overwrite": .bool(overwrite),
                "Tier": .string(text.utf8.count <= Self.standardLimit ? "Standard" : "Advanced"),
                "Description": .string("MultiAuth credential store (encrypted)"),
            ],
            as: AWSJSONService.Nothing.self)
    }
}
