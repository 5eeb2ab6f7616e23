import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import MultiAuthSigV4
import MultiAuthSigningVectors

/// `multiauth sign`: prints a request signed with SigV4 (header or presigned URL).
struct SignCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sign",
        _superCommandName: MultiAuthCommand.directParseParent,
        abstract: "Sign an HTTP request with AWS Signature Version 4 and print it.",
        discussion: """
            The URL is taken as it goes on the wire: its path and query are never decoded and \
            re-encoded before canonicalization. Credentials come from the flags or from \
            AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN.
            """
    )

    enum OutputFormat: String, ExpressibleByArgument, CaseIterable { case http, json }
    enum Algorithm: String, ExpressibleByArgument, CaseIterable { case sigv4, sigv4a }

    @Option(help: "HTTP method.") var method: String = "GET"
    @Option(help: "The absolute wire URL (http or https).") var url: String?
    @Option(name: [.customShort("H"), .customLong("header")], help: "A header 'Name: value' (repeatable).")
    var headers: [String] = []
    @Option(help: "Request body text.") var data: String?
    @Option(help: "Read the body from this file (hashed in chunks, never held in memory).") var dataFile: String?
    @Option(help: "Signing region.", transform: regionArgument) var region: String?
    @Option(help: "sigv4 (AWS4-HMAC-SHA256) or sigv4a (AWS4-ECDSA-P256-SHA256).") var algorithm: Algorithm = .sigv4
    @Option(help: "SigV4a: the regions the signature is valid in, such as 'us-east-1,us-west-2' or '*'.")
    var regionSet: String?
    @Option(help: "Signing service name (execute-api, appsync, s3, ...).") var service: String?
    @Option(help: "Access key id (else AWS_ACCESS_KEY_ID).") var accessKeyId: String?
    @Option(help: "Secret access key (else AWS_SECRET_ACCESS_KEY).") var secretAccessKey: String?
    @Option(help: "Session token (else AWS_SESSION_TOKEN).") var sessionToken: String?
    @Option(help: "Signing time, YYYYMMDDTHHMMSSZ (default: now).") var date: String?
    @Flag(help: "Sign in the query string (presigned URL) instead of an Authorization header.") var presign = false
    @Option(help: "Presigned URL lifetime in seconds, 1...604800 (with --presign).") var expires: Int?
    @Flag(inversion: .prefixedNo, help: "Remove dot segments and empty segments (default: on, off for s3).")
    var normalizePath: Bool?
    @Flag(inversion: .prefixedNo, help: "Percent-encode the wire path again (default: on, off for s3).")
    var doubleEncode: Bool?
    @Flag(inversion: .prefixedNo, help: "Add and sign x-amz-content-sha256 (default: on for s3).")
    var contentSha256Header: Bool?
    @Flag(help: "Sign UNSIGNED-PAYLOAD instead of the body hash.") var unsignedPayload = false
    @Flag(help: "Leave the session token out of the signature and add it afterwards.") var omitSessionToken = false
    @Option(help: "Output: http (the signed request) or json (every stage).") var format: OutputFormat = .http
    @Option(help: "A raw HTTP/1.1 request file (the test suites' request.txt format) instead of --url.")
    var request: String?
    @Option(help: "An aws-c-auth context.json giving credentials, region, service, time and flags.")
    var context: String?

    func validate() throws {
        if expires != nil, !presign { throw ValidationError("--expires needs --presign") }
        try ArgumentChecks.wireText(region, "--region")
        try ArgumentChecks.wireText(service, "--service")
        try ArgumentChecks.wireText(regionSet, "--region-set")
    }

    func run() async throws {
        let plan = try SignPlan(self).resolve()
        let payload = try await resolvePayload(plan.request.payload)
        var request = plan.request
        request.payload = payload
        let result: SigningResult
        do {
            result = plan.presign
                ? try plan.signer.presign(request, expires: plan.expires, date: plan.date)
                : try plan.signer.signHeaders(request, date: plan.date)
        } catch {
            throw CLIError(plan.presign ? "--expires" : "sign", error)
        }
        print(try SignOutput.render(result, format: format), terminator: format == .http ? "" : "\n")
    }

    private func resolvePayload(_ payload: Payload) async throws -> Payload {
        if unsignedPayload { return .unsigned }
        guard let dataFile else { return payload }
        do { return .sha256(try await PayloadHash.sha256(ofFileAt: dataFile)) } catch {
            throw CLIError("--data-file", error)
        }
    }
}
