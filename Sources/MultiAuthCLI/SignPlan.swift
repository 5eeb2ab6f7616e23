import MultiAuthCore
import MultiAuthCredentials
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import MultiAuthSigV4
import MultiAuthSigningVectors

/// Turns `multiauth sign` arguments into a request, a signer and a time, checking each
/// argument and naming it in any error.
struct SignPlan {
    let command: SignCommand

    init(_ command: SignCommand) { self.command = command }

    struct Resolved {
        let request: SignableRequest
        let signer: SigV4Signer
        let date: SigningDate
        let presign: Bool
        let expires: Int
    }

    func resolve() throws -> Resolved {
        let context = try loadContext()
        let request = try buildRequest(context: context)
        let date = try signingDate(context: context)
        let expires = command.expires ?? context?.expirationInSeconds ?? 3600
        if command.presign, !(1...SigV4Signer.maximumExpiry).contains(expires) {
            throw CLIError("--expires", SigningError.expiresOutOfRange(expires))
        }
        let service = try required(command.service ?? context?.service, "--service")
        let signer = try makeSigner(service: service, context: context)
        return Resolved(request: request, signer: signer, date: date, presign: command.presign, expires: expires)
    }

    private func makeSigner(service: String, context: SigningContext?) throws -> SigV4Signer {
        let options = options(service: service, context: context)
        guard command.algorithm == .sigv4a else {
            if command.regionSet != nil { throw CLIError("--region-set", "only with --algorithm sigv4a") }
            let region = try required(command.region ?? context?.region, "--region")
            return SigV4Signer(
                credentials: try credentials(context: context), region: region, service: service, options: options)
        }
        let regionSet = try required(command.regionSet ?? command.region ?? context?.region, "--region-set")
        do {
            return try SigV4Signer(
                credentials: try credentials(context: context), regionSet: regionSet, service: service, options: options)
        } catch let error as SigningError {
            throw CLIError("--region-set", error)
        }
    }

    private func loadContext() throws -> SigningContext? {
        guard let path = command.context else { return nil }
        do { return try SigningContext.load(path: path) } catch { throw CLIError("--context", error) }
    }

    private func buildRequest(context: SigningContext?) throws -> SignableRequest {
        switch (command.url, command.request) {
        case (nil, nil): throw CLIError(message: "give --url URL or --request FILE")
        case (.some, .some): throw CLIError(message: "--url and --request are exclusive: give one")
        case (let url?, nil): return try requestFromURL(url)
        case (nil, let file?): return try requestFromFile(file, context: context)
        }
    }

    private func requestFromURL(_ url: String) throws -> SignableRequest {
        let headers = try HeaderArguments.list(command.headers)
        if command.data != nil, command.dataFile != nil { throw CLIError(message: "--data and --data-file are exclusive") }
        let payload: Payload = command.data.map { .bytes(Array($0.utf8)) } ?? .empty
        do {
            return try SignableRequest(method: command.method, url: url, headers: headers, payload: payload)
        } catch {
            throw CLIError("--url", error)
        }
    }

    private func requestFromFile(_ file: String, context: SigningContext?) throws -> SignableRequest {
        let data: [UInt8]
        switch BoundedFileRead.contents(atPath: file, limit: BoundedFileRead.requestLimit) {
        case .success(let bytes): data = bytes
        case .failure(let failure): throw CLIError("--request", "'\(file)' \(failure)")
        }
        do {
            let text = try HTTPRequestText(parsing: Array(data))
            var request = try text.signableRequest()
            if let context { request.payload = context.payload(body: text.body) }
            return request
        } catch {
            throw CLIError("--request", error)
        }
    }

    /// The flags, else the context file, else the environment (the library's reader).
    private func credentials(context: SigningContext?) throws -> AWSCredentials {
        let fromContext = context?.awsCredentials
        let fromEnvironment = try? EnvironmentCredentialsProvider().read().credentials
        guard let keyId = nonEmpty(command.accessKeyId ?? fromContext?.accessKeyId ?? fromEnvironment?.accessKeyId),
            let secret = nonEmpty(command.secretAccessKey ?? fromContext?.secretAccessKey ?? fromEnvironment?.secretAccessKey)
        else {
            throw CLIError(
                "--access-key-id/--secret-access-key",
                "missing credentials: give both flags or set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY")
        }
        let token = nonEmpty(command.sessionToken ?? fromContext?.sessionToken ?? fromEnvironment?.sessionToken)
        return AWSCredentials(accessKeyId: keyId, secretAccessKey: secret, sessionToken: token)
    }

    private func options(service: String, context: SigningContext?) -> SigningOptions {
        var options = context?.options ?? .defaults(forService: service)
        if let value = command.normalizePath { options.normalizesPath = value }
        if let value = command.doubleEncode { options.doubleEncodesPath = value }
        if let value = command.contentSha256Header { options.signsContentSHA256Header = value }
        if command.omitSessionToken { options.omitsSessionToken = true }
        if command.unsignedPayload { options.presignsUnsignedPayload = true }
        return options
    }

    private func signingDate(context: SigningContext?) throws -> SigningDate {
        if let text = command.date {
            do { return try SigningDate(parsing: text) } catch { throw CLIError("--date", error) }
        }
        do { return try context?.signingDate() ?? SigningDate(Date()) } catch { throw CLIError("--context", error) }
    }

    private func required(_ value: String?, _ flag: String) throws -> String {
        guard let value = nonEmpty(value) else { throw CLIError(flag, "required (or give --context FILE)") }
        return value
    }

    private func nonEmpty(_ value: String?) -> String? {
        guard let value, !value.isEmpty else { return nil }
        return value
    }
}
