import AsyncHTTPClient
import HTTPTypes
import MultiAuthCore
import MultiAuthHTTP
import MultiAuthNIOBodies
import NIOHTTP1

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A swift-http-types request as AsyncHTTPClient sends it, unchanged.
enum OutgoingRequest {
    /// `request` with `body` (and the body's source, see ``UploadBody/make(_:)``), or
    /// `.invalidURL` when AsyncHTTPClient would send another target.
    static func make(_ request: HTTPRequest, body: OutgoingBody) throws(HTTPTransportError) -> (HTTPClientRequest, ChunkSource?) {
        guard let scheme = request.scheme, let authority = request.authority, let path = request.path else {
            throw .invalidURL(request.authority ?? "(no authority)")
        }
        let url = "\(scheme)://\(authority)\(path)"
        guard sentTarget(of: url) == path else { throw .invalidURL(url) }
        var outgoing = HTTPClientRequest(url: url)
        outgoing.method = HTTPMethod(rawValue: request.method.rawValue)
        outgoing.headers = headers(request.headerFields, authority: authority)
        let upload = try UploadBody.make(body)
        outgoing.body = upload.body
        return (outgoing, upload.source)
    }

    /// The request target AsyncHTTPClient derives from `url` (through Foundation's `URL`,
    /// which percent-encodes what RFC 3986 does not allow and drops an empty query).
    static func sentTarget(of url: String) -> String? {
        guard let parsed = URL(string: url), let components = URLComponents(url: parsed, resolvingAgainstBaseURL: true) else {
            return nil
        }
        let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        return components.percentEncodedQuery.map { path + "?" + $0 } ?? path
    }

    /// The fields in order, after a `Host` equal to the authority that was signed (left to
    /// itself, AsyncHTTPClient drops a default port from it).
    static func headers(_ fields: HTTPFields, authority: String) -> HTTPHeaders {
        var headers = HTTPHeaders()
        if fields[.host] == nil { headers.add(name: "Host", value: authority) }
        for field in fields { headers.add(name: field.name.rawName, value: field.value) }
        return headers
    }
}

extension HTTPField.Name {
    fileprivate static let host = HTTPField.Name("Host")!
}
