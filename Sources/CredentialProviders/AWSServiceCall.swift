import HTTPTransport
import HTTPTypes
import MultiAuthCore
import SigV4

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One call to an AWS API: build, optionally SigV4-sign, send, and turn errors into
/// ``CredentialsError`` values that name the service.
package struct AWSServiceCall {
    package let service: String
    let region: String
    let endpoint: ServiceEndpoint
    let http: any HTTPSender

    /// A call to `service` in `region` at `endpoint` through `http`.
    package init(service: String, region: String, endpoint: ServiceEndpoint, http: any HTTPSender) {
        self.service = service
        self.region = region
        self.endpoint = endpoint
        self.http = http
    }

    /// POSTs `body` with `headers`, signed with `credentials` when given.
    package func post(
        body: [UInt8], headers: [(String, String)], signWith credentials: AWSCredentials?
    ) async throws(CredentialsError) -> ReceivedResponse {
        var request: HTTPRequest
        do {
            request = try HTTPRequest(method: .post, wireURL: endpoint.url, headerFields: HTTPFields(checking: headers))
            if let credentials {
                let signer = SigV4Signer(credentials: credentials, region: region, service: service)
                request = try signer.signHeaders(request, payload: .bytes(body), date: SigningDate.now()).signedRequest()
            }
        } catch {
            throw .transport(service: service, problem: "\(error)")
        }
        do { return try await http.send(request, body: .bytes(body)) } catch { throw .transport(service: service, problem: error.description) }
    }
}
