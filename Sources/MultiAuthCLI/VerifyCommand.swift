import ArgumentParser
import MultiAuthCore
import MultiAuthSigV4

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `multiauth verify`: checks a received request's SigV4 signature, as a server would.
struct VerifyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Verify the SigV4 signature of a raw HTTP request (header or presigned form).")

    @Option(help: "The received request in the test suites' request.txt format.") var request: String
    @Option(help: "The secret access key the signer should have used, or @FILE to read it from a file (else AWS_SECRET_ACCESS_KEY).")
    var secret: String?
    @Option(help: "Also require this access key id.") var accessKeyId: String?
    @Option(help: "The expected region of the credential scope.", transform: regionArgument) var region: String
    @Option(help: "The expected service of the credential scope.") var service: String
    @Option(help: "The time of receipt, YYYYMMDDTHHMMSSZ (default: now).") var now: String?
    @Flag(inversion: .prefixedNo, help: "Normalize the path before verifying (default: on, off for s3).")
    var normalizePath: Bool?

    func run() async throws {
        let data: [UInt8]
        switch BoundedFileRead.contents(atPath: request, limit: BoundedFileRead.requestLimit) {
        case .success(let bytes): data = bytes
        case .failure(let failure): throw CLIError("--request", "'\(request)' \(failure)")
        }
        let received: SignableRequest
        do { received = try HTTPRequestText(parsing: Array(data)).signableRequest() } catch { throw CLIError("--request", error) }
        let given = try secret.map { try CommandLineSecret.value($0, flag: "--secret", alternative: "AWS_SECRET_ACCESS_KEY") }
        guard let secret = given ?? ProcessInfo.processInfo.environment["AWS_SECRET_ACCESS_KEY"] else {
            throw CLIError("--secret", "required (or set AWS_SECRET_ACCESS_KEY)")
        }
        let receivedAt: SigningDate
        do { receivedAt = try now.map { (text) throws(SigningError) in try SigningDate(parsing: text) } ?? SigningDate.now() } catch {
            throw CLIError("--now", error)
        }
        let expectedKey = accessKeyId
        var options = SigningOptions.defaults(forService: service)
        if let normalizePath { options.normalizesPath = normalizePath }
        let verifier = SigV4Verifier(region: region, service: service, options: options) { id in
            expectedKey == nil || expectedKey == id ? VerifierCredential(secretAccessKey: secret) : nil
        }
        switch await verifier.verify(received, now: receivedAt) {
        case .success(let id): print("valid: signed by \(id)")
        case .failure(let failure): throw CLIError(message: "invalid: \(failure)", exitCode: 1)
        }
    }
}
