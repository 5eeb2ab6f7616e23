import MultiAuthCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import MultiAuthSigV4

/// Finds and loads every case under a folder, in either official layout.
package enum VectorLoader {
    /// botocore-suite quirk: this case's `.sreq` carries the signature of `get-vanilla`;
    /// its `.authz` is right, so its signed request is compared without the signature.
    static let staleSignedRequests: Set<String> = ["get-vanilla-with-session-token"]

    /// Loads every case below `directory`, sorted by name.
    ///
    /// botocore-layout files name none of the suite's common parameters (key pair, region,
    /// service); they come from `suiteContext`, or else from a `context.json` in the case's
    /// folder or one above it, up to `directory` (`scripts/vectors` writes one).
    /// - Throws: ``VectorError`` when the folder is unreadable or holds no case at all.
    package static func loadCases(in directory: String, suiteContext: String? = nil) throws(VectorError) -> [VectorCase] {
        let root = URL(fileURLWithPath: directory).standardizedFileURL
        guard isDirectory(root) else { throw .unreadable(path: directory, reason: "no such folder") }
        var cases: [VectorCase] = []
        for folder in caseFolders(below: root) {
            let name = relativeName(folder, root: root)
            cases.append(try loadCase(at: folder, name: name, root: root, suiteContext: suiteContext))
        }
        guard !cases.isEmpty else {
            throw .malformed(path: directory, reason: "no signing cases found (neither request.txt nor NAME.req)")
        }
        return cases.sorted { $0.name < $1.name }
    }

    /// Every folder at or below `root` that holds a case, depth first.
    static func caseFolders(below root: URL) -> [URL] {
        var found: [URL] = []
        var pending = [root]
        while let folder = pending.popLast() {
            if exists(folder, "request.txt") || exists(folder, folder.lastPathComponent + ".req") { found.append(folder) }
            let children = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
            pending += children.map { folder.appendingPathComponent($0) }.filter(isDirectory)
        }
        return found
    }

    static func isDirectory(_ url: URL) -> Bool {
        (try? FileManager.default.contentsOfDirectory(atPath: url.path)) != nil
    }

    static func relativeName(_ folder: URL, root: URL) -> String {
        let path = folder.standardizedFileURL.path
        guard path.count > root.path.count else { return folder.lastPathComponent }
        return String(path.dropFirst(root.path.count + 1))
    }

    static func loadCase(at folder: URL, name: String, root: URL, suiteContext: String?) throws(VectorError) -> VectorCase {
        if exists(folder, "request.txt") { return try loadAWSCAuthCase(folder, name: name) }
        let contextPath = suiteContext ?? nearestContext(from: folder, root: root)
        guard let contextPath else {
            throw .malformed(
                path: folder.path,
                reason: "a botocore-layout case needs the suite's common parameters: a context.json in the suite folder "
                    + "(scripts/vectors writes one) or --context FILE")
        }
        return try loadBotocoreCase(folder, name: name, context: try SigningContext.load(path: contextPath))
    }

    /// The closest `context.json` at or above `folder`, not above `root`.
    static func nearestContext(from folder: URL, root: URL) -> String? {
        var current = folder.standardizedFileURL
        while true {
            if exists(current, "context.json") { return current.appendingPathComponent("context.json").path }
            if current.path == root.path || current.path == "/" { return nil }
            current.deleteLastPathComponent()
        }
    }

    // MARK: aws-c-auth layout

    static let awsCAuthFiles: [(VectorCheck, String)] = [
        (.headerCanonicalRequest, "header-canonical-request.txt"), (.headerStringToSign, "header-string-to-sign.txt"),
        (.headerSignature, "header-signature.txt"), (.headerSignedRequest, "header-signed-request.txt"),
        (.queryCanonicalRequest, "query-canonical-request.txt"), (.queryStringToSign, "query-string-to-sign.txt"),
        (.querySignature, "query-signature.txt"), (.querySignedRequest, "query-signed-request.txt"),
    ]

    static func loadAWSCAuthCase(_ folder: URL, name: String) throws(VectorError) -> VectorCase {
        var expected: [VectorCheck: String] = [:]
        for (check, file) in awsCAuthFiles where exists(folder, file) {
            expected[check] = try read(folder, file)
        }
        if expected.isEmpty { return .skipped(name, .awsCAuth, reason: "the suite gives no expected outputs") }
        let context = try SigningContext.load(path: folder.appendingPathComponent("context.json").path)
        let text = try parseRequest(folder, "request.txt")
        do throws(SigningError) {
            var request = try text.signableRequest()
            request.payload = context.payload(body: text.body)
            let publicKey = try loadPublicKey(folder)
            let signer = publicKey == nil
                ? SigV4Signer(
                    credentials: context.awsCredentials, region: context.region, service: context.service,
                    options: context.options)
                : try SigV4Signer(
                    credentials: context.awsCredentials, regionSet: context.region, service: context.service,
                    options: context.options)
            var vector = VectorCase(
                name: name, layout: .awsCAuth, skipReason: nil, request: request, signer: signer,
                date: try context.requiredSigningDate(), expires: context.expirationInSeconds ?? 3600,
                expected: expected, signatureIsStaleInSignedRequest: false)
            vector.publicKey = publicKey
            return vector
        } catch {
            throw .malformed(path: folder.path, reason: error.description)
        }
    }

    /// SigV4a cases carry `public-key.json`; SigV4 cases do not.
    static func loadPublicKey(_ folder: URL) throws(SigningError) -> VectorCase.PublicKey? {
        guard exists(folder, "public-key.json"),
            let data = FileManager.default.contents(atPath: folder.appendingPathComponent("public-key.json").path)
        else { return nil }
        do { return try JSONDecoding.decode(VectorCase.PublicKey.self, from: data, what: "public-key.json") } catch {
            throw .malformedRequest("\(error.description) ({\"X\": hex, \"Y\": hex})")
        }
    }

    // MARK: botocore layout

    static func loadBotocoreCase(_ folder: URL, name: String, context: SigningContext) throws(VectorError) -> VectorCase {
        let base = folder.lastPathComponent
        let expected: [VectorCheck: String] = [
            .headerCanonicalRequest: try read(folder, base + ".creq"),
            .headerStringToSign: try read(folder, base + ".sts"),
            .headerAuthorization: try read(folder, base + ".authz"),
            .headerSignedRequest: try read(folder, base + ".sreq"),
        ]
        let text = try parseRequest(folder, base + ".req")
        do throws(SigningError) {
            let request = try text.signableRequest()
            let (token, omitted) = try botocoreSessionToken(expected)
            var options = SigningOptions.defaults(forService: context.service)
            options.omitsSessionToken = omitted
            var credentials = context.awsCredentials
            credentials.sessionToken = token
            let signer = SigV4Signer(
                credentials: credentials, region: context.region, service: context.service, options: options)
            guard let dateValue = text.headers.first(named: "x-amz-date") else {
                throw .malformedRequest("\(base).req has no X-Amz-Date header")
            }
            return VectorCase(
                name: name, layout: .botocore, skipReason: nil, request: request, signer: signer,
                date: try SigningDate(parsing: dateValue.trimmingHTTPWhitespace()), expires: 0,
                expected: expected, signatureIsStaleInSignedRequest: staleSignedRequests.contains(base))
        } catch {
            throw .malformed(path: folder.path, reason: error.description)
        }
    }

    /// botocore-suite quirk: the session token is not in any context file. A token in the
    /// `.creq` is signed; a token only in the `.sreq` was added after signing.
    static func botocoreSessionToken(_ expected: [VectorCheck: String]) throws(SigningError) -> (String?, Bool) {
        let prefix = "x-amz-security-token:"
        if let line = expected[.headerCanonicalRequest]?.split(separator: "\n").first(where: { $0.hasPrefix(prefix) }) {
            return (String(line.dropFirst(prefix.count)), false)
        }
        let signed = try HTTPRequestText(parsing: Array((expected[.headerSignedRequest] ?? "").utf8))
        if let token = signed.headers.first(named: "x-amz-security-token") {
            return (token.trimmingHTTPWhitespace(), true)
        }
        return (nil, false)
    }

    // MARK: files

    static func exists(_ folder: URL, _ file: String) -> Bool {
        FileManager.default.fileExists(atPath: folder.appendingPathComponent(file).path)
    }

    static func read(_ folder: URL, _ file: String) throws(VectorError) -> String {
        let path = folder.appendingPathComponent(file).path
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .unreadable(path: path, reason: "missing or unreadable")
        }
        return String(decoding: data, as: UTF8.self)
    }

    static func parseRequest(_ folder: URL, _ file: String) throws(VectorError) -> HTTPRequestText {
        let path = folder.appendingPathComponent(file).path
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .unreadable(path: path, reason: "missing or unreadable")
        }
        do { return try HTTPRequestText(parsing: Array(data)) } catch {
            throw .malformed(path: path, reason: error.description)
        }
    }
}
