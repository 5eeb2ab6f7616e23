import CredentialProviders
import Hummingbird
import HTTPTypes
import Logging
import MultiAuthCore
import NIOCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What an emulated endpoint answers: a fixed answer, or the current credentials in its format.
enum EndpointAnswer: Sendable {
    case text(HTTPResponse.Status, String, headers: HTTPFields = [:])
    case credentials(format: CredentialsFormat)
}

/// The JSON a client expects the credentials in.
enum CredentialsFormat: Sendable {
    /// `AccessKeyId`, `SecretAccessKey`, `Token`, `Expiration` (the container endpoint).
    case container
    /// The same with `Code`, `LastUpdated` and `Type` (instance metadata).
    case instanceMetadata
}

/// One emulated endpoint's routing and checks.
protocol CredentialsEndpoint: Sendable {
    func answer(_ request: HTTPRequest) -> EndpointAnswer
}

/// Turns an endpoint's answers into responses, fetching credentials for each request that
/// asks for them. Bodies holding credentials are never logged.
struct CredentialsResponder: HTTPResponder {
    typealias Context = BasicRequestContext
    let endpoint: any CredentialsEndpoint
    let credentials: any CredentialsProvider
    let clock: TimeSource
    let logger: Logger

    /// How long a client is told long-term keys (which have no expiry) last: it asks again then.
    static let longTermKeysLifetime: Double = 3600

    func respond(to request: Request, context: BasicRequestContext) async throws -> Response {
        switch endpoint.answer(request.head) {
        case .text(let status, let text, let headers):
            if status.code >= 400 { logger.debug("credentials endpoint refused a request", metadata: ["status": "\(status.code)"]) }
            return Self.response(status, text, contentType: "text/plain", headers: headers)
        case .credentials(let format):
            do {
                let current = try await credentials.credentials()
                return Self.response(.ok, try document(current, format: format), contentType: "application/json")
            } catch {
                logger.warning("credentials endpoint has no credentials", metadata: ["reason": "\(error)"])
                return Self.response(.internalServerError, #"{"message":"no credentials"}"#, contentType: "application/json")
            }
        }
    }

    private func document(_ value: ExpiringCredentials, format: CredentialsFormat) throws -> String {
        let expiration = value.expiration ?? Date(timeIntervalSince1970: clock.now() + Self.longTermKeysLifetime)
        var fields: [String: String] = [
            "AccessKeyId": value.credentials.accessKeyId, "SecretAccessKey": value.credentials.secretAccessKey,
            "Token": value.credentials.sessionToken ?? "", "Expiration": ISOTime.text(expiration.timeIntervalSince1970),
        ]
        if case .instanceMetadata = format {
            fields["Code"] = "Success"
            fields["Type"] = "AWS-HMAC"
            fields["LastUpdated"] = ISOTime.text(clock.now())
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try encoder.encode(fields), as: UTF8.self)
    }

    static func response(_ status: HTTPResponse.Status, _ text: String, contentType: String, headers: HTTPFields = [:]) -> Response {
        var fields = headers
        fields[.contentType] = contentType
        fields[.cacheControl] = "no-store"
        return Response(status: status, headers: fields, body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}
