package import HTTPTypes
package import MultiAuthInboundAuthorization
import MultiAuthCore
import MultiAuthSigV4

/// How `multiauth authz` learns the request it decides on from the proxy that asks, and what
/// it may assume of a body it did not see.
///
/// The proxy is named (``Proxy``), never guessed from the fields: a client can send any field
/// to a proxy that copies its headers, so a field of another proxy's contract is the
/// client's, and is not read. The contracts:
/// - **nginx `auth_request`** (and ingress-nginx's `auth-url`): the subrequest carries the
///   client's headers; the documented config adds `X-Original-Method` and `X-Original-URI`
///   (`$request_method`, `$request_uri`), and `X-Original-Host` when the subrequest's `Host`
///   is not the client's.
/// - **Caddy `forward_auth`, Traefik ForwardAuth**: the client's headers, with
///   `X-Forwarded-Method`, `X-Forwarded-Uri`, `X-Forwarded-Host` and `X-Forwarded-Proto`.
/// - **Envoy `ext_authz` over HTTP**: the request is the client's (method, the path after the
///   filter's `path_prefix`, the headers the filter allows).
///
/// The contract's own fields are taken off the original before it is verified.
package struct AuthzContract: Sendable {
    /// The proxies whose contracts are read.
    package enum Proxy: String, Sendable, CaseIterable {
        case nginx, caddy, traefik, envoy
    }

    /// The proxy that asks.
    package var proxy: Proxy
    /// The prefix Envoy's `path_prefix` puts before the client's path ("" for none).
    package var pathPrefix: String
    /// Whether a signed `x-amz-content-sha256` is taken as the body's hash when the body was
    /// not sent (nginx and Caddy never send it).
    package var trustsSignedPayloadHash: Bool

    /// A contract; see the type's description.
    package init(proxy: Proxy, pathPrefix: String = "", trustsSignedPayloadHash: Bool = false) {
        self.proxy = proxy
        self.pathPrefix = pathPrefix
        self.trustsSignedPayloadHash = trustsSignedPayloadHash
    }

    static let originalMethod = HTTPField.Name("X-Original-Method")!
    static let originalURI = HTTPField.Name("X-Original-URI")!
    static let originalHost = HTTPField.Name("X-Original-Host")!
    static let forwardedMethod = HTTPField.Name("X-Forwarded-Method")!
    static let forwardedURI = HTTPField.Name("X-Forwarded-Uri")!
    static let forwardedHost = HTTPField.Name("X-Forwarded-Host")!
    static let forwardedProto = HTTPField.Name("X-Forwarded-Proto")!
    static let forwardedFor = HTTPField.Name("X-Forwarded-For")!
    /// Envoy's mark on a body cut at `max_request_bytes`.
    static let envoyPartialBody = HTTPField.Name("x-envoy-auth-partial-body")!
    /// What the contracts add, never part of what a client signed.
    static let contractFields: Set<HTTPField.Name> = [
        originalMethod, originalURI, originalHost, forwardedMethod, forwardedURI, forwardedHost, forwardedProto, forwardedFor, envoyPartialBody,
    ]

    /// The client's request that `asked` (the proxy's request to this service) is about, or
    /// why it cannot be read (answered 400: the proxy is not set up as the docs show).
    package func original(of asked: HTTPRequest) -> Result<HTTPRequest, InboundRejection> {
        let fields = asked.headerFields
        var method = asked.method
        var target = asked.path ?? "/"
        var authority = asked.authority
        var scheme = asked.scheme
        switch proxy {
        case .nginx:
            guard let uri = fields[Self.originalURI] else { return .failure(Self.misconfigured("no X-Original-URI")) }
            target = uri
            if let name = fields[Self.originalMethod] {
                guard let parsed = HTTPRequest.Method(name) else { return .failure(Self.misconfigured("X-Original-Method is not a method")) }
                method = parsed
            }
            authority = fields[Self.originalHost] ?? authority
        case .caddy, .traefik:
            guard let uri = fields[Self.forwardedURI], let name = fields[Self.forwardedMethod] else {
                return .failure(Self.misconfigured("no X-Forwarded-Method and X-Forwarded-Uri"))
            }
            guard let parsed = HTTPRequest.Method(name) else { return .failure(Self.misconfigured("X-Forwarded-Method is not a method")) }
            method = parsed
            target = uri
            authority = fields[Self.forwardedHost] ?? authority
            scheme = fields[Self.forwardedProto] ?? scheme
        case .envoy:
            // A signature over a body cut short cannot be checked; other modes never read it.
            guard fields[Self.envoyPartialBody] != "true" || !InboundAuthorizer.isSigned(asked) else {
                return .failure(
                    InboundRejection(
                        status: .forbidden, errorType: "InvalidSignatureException", message: "The request body could not be checked.",
                        reason: "Envoy sent part of the body (x-envoy-auth-partial-body: raise max_request_bytes)"))
            }
            guard target.hasPrefix(pathPrefix) else { return .failure(Self.misconfigured("the path does not start with the path prefix")) }
            target = String(target.dropFirst(pathPrefix.count))
            if !target.hasPrefix("/") { target = "/" + target }
        }
        guard target.hasPrefix("/") else { return .failure(Self.misconfigured("the original URI is not a path")) }
        var original = HTTPRequest(method: method, scheme: scheme, authority: authority, path: target)
        for field in fields where !Self.contractFields.contains(field.name) && field.name.canonicalName != "host" {
            original.headerFields.append(field)
        }
        return .success(original)
    }

    /// The body hash to verify `original` with when the proxy did not send the body: nil for
    /// what needs none (no signature, `UNSIGNED-PAYLOAD`, a body-less request), the signed
    /// `x-amz-content-sha256` when trusted, else a refusal that says why. A signature over a
    /// body announced by `Content-Length` but not hashed in `x-amz-content-sha256` (botocore's
    /// default for `execute-api`) cannot be checked either way.
    package func bodySHA256(unseen original: HTTPRequest) -> Result<String?, InboundRejection> {
        guard InboundAuthorizer.isSigned(original) else { return .success(nil) }
        guard let claimed = original.headerFields[.amzContentSHA256] else {
            let announced = original.headerFields[.contentLength].flatMap { Int($0) } ?? 0
            return announced > 0 ? .failure(Self.unseenBody("the signature covers the body, which the proxy did not send")) : .success(nil)
        }
        guard claimed.utf8.count == 64, claimed.lowercased() != PayloadHash.emptySHA256 else { return .success(nil) }
        guard trustsSignedPayloadHash else {
            return .failure(Self.unseenBody("the signature covers a payload hash and the proxy did not send the body (see --trust-signed-payload-hash)"))
        }
        return .success(claimed.lowercased())
    }

    private static func unseenBody(_ reason: String) -> InboundRejection {
        InboundRejection(
            status: .forbidden, errorType: "InvalidSignatureException", message: "The request signature covers a payload this service cannot check.",
            reason: reason)
    }

    private static func misconfigured(_ problem: String) -> InboundRejection {
        InboundRejection(status: .badRequest, errorType: "BadRequestException", message: "Bad Request", reason: "the auth request: \(problem)")
    }
}
