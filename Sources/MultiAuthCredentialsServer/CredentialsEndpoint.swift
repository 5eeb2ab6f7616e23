import HTTPTypes
import Hummingbird
import Logging
import MultiAuthCore
import MultiAuthCredentials
import MultiAuthSigV4
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
    /// A web identity token of the credentials' identity (STS GetWebIdentityToken).
    case webIdentityToken(audiences: [String], algorithm: WebIdentityTokenProvider.SigningAlgorithm, durationSeconds: Int)
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

/// A request's context: Hummingbird's, and the connection's two ends.
struct CredentialsRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    let peer: SocketAddress?
    let local: SocketAddress?

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        peer = source.channel.remoteAddress
        local = source.channel.localAddress
    }
}

/// Turns an endpoint's answers into responses, fetching credentials for each request that
/// asks for them. Bodies holding credentials are never logged.
///
/// Before the endpoint sees a request: its `Host` must be one a client of this machine uses
/// (an IP address or `localhost`; a name would be DNS rebinding, a web page reaching the
/// endpoint under its own name), and with `user`, the client's socket must belong to that
/// user (another local user gets 403).
struct CredentialsResponder: HTTPResponder {
    typealias Context = CredentialsRequestContext
    let endpoint: any CredentialsEndpoint
    let credentials: any CredentialsProvider
    let clock: TimeSource
    let logger: Logger
    let user: UInt32?
    /// Where web identity tokens come from; nil: they are not served.
    let webIdentityTokens: WebIdentityTokens?

    /// The refusal for a request from the wrong place, or nil.
    func refusal(_ request: Request, context: CredentialsRequestContext) -> Response? {
        guard HostField.isAddressOrLocalhost(request.head.authority) else {
            logger.warning("credentials endpoint refused a request for another host name", metadata: ["host": "\(Redaction.quoted(request.head.authority ?? "", limit: 80))"])
            return Self.response(.forbidden, "this endpoint answers requests to 127.0.0.1 or localhost only\n", contentType: "text/plain")
        }
        if let user {
            let owner = context.peer.flatMap { peer in context.local.flatMap { LocalPeer.owner(peer: peer, local: $0) } }
            guard owner == user else {
                logger.warning("credentials endpoint refused another user's request", metadata: ["uid": "\(owner.map(String.init) ?? "unknown")"])
                return Self.response(.forbidden, "this endpoint serves the user that started it only\n", contentType: "text/plain")
            }
        }
        return nil
    }

    /// How long a client is told long-term keys (which have no expiry) last: it asks again then.
    static let longTermKeysLifetime: Double = 3600

    func respond(to request: Request, context: CredentialsRequestContext) async throws -> Response {
        if let refusal = refusal(request, context: context) { return refusal }
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
        case .webIdentityToken(let audiences, let algorithm, let duration):
            guard let webIdentityTokens else {
                return Self.response(.notFound, #"{"message":"web identity tokens are not served here (no region)"}"#, contentType: "application/json")
            }
            do throws(CredentialsError) {
                let token = try await webIdentityTokens.token(audiences: audiences, algorithm: algorithm, durationSeconds: duration)
                let document = JSONValue.object(["Token": .string(token.jwt), "Expiration": .string(ISOTime.text(token.expiration.timeIntervalSince1970))])
                return Self.response(.ok, document.description, contentType: "application/json")
            } catch {
                logger.warning("credentials endpoint has no web identity token", metadata: ["reason": "\(error)"])
                let message = JSONValue.object(["message": .string("no web identity token: \(error.code)")])
                return Self.response(.badGateway, message.description, contentType: "application/json")
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
