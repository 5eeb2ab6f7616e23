import HTTPTypes
import MultiAuthAPIDefinition
import MultiAuthCore
import MultiAuthHTTP
import MultiAuthInboundAuthorization
import MultiAuthSigV4

/// An `http_proxy` integration as requests are sent to it: the upstream its URI names, its
/// path with the route's parameters filled in, the client's query string passed on, and the
/// `requestParameters` mappings applied. A mapped header replaces whatever the client sent
/// under that name, even when the mapping's source is empty, so it cannot be spoofed.
/// A class: a request's plan holds its route's target without copying its strings.
final class IntegrationTarget: Sendable {
    let upstream: Forwarding.Upstream
    let scheme: String
    let authority: String
    /// The URI's path, with `{name}` and `{name+}` placeholders.
    let pathTemplate: String
    let query: String?
    let mappings: [ParameterMapping]
    /// The route's greedy parameter (`{proxy+}`), whose slashes are kept wherever it goes.
    let greedy: String?
    /// Whether the path has placeholders, whether a mapping fills one, and whether a mapping
    /// reads the query: work a request is spared when not.
    let fills: Bool
    let mapsPath: Bool
    /// A path parameter is mapped from what only the authorizer's answer gives.
    let pathReadsPrincipal: Bool
    let readsQuery: Bool

    init(_ integration: HTTPProxyIntegration, routeTemplate: String, place: String, tls: UpstreamTLS) throws(APIDefinitionError) {
        greedy = routeTemplate.split(separator: "/").last.flatMap { $0.hasPrefix("{") && $0.hasSuffix("+}") ? String($0.dropFirst().dropLast(2)) : nil }
        let uri = integration.uri
        guard let schemeEnd = uri.firstRange(of: "://") else { throw APIDefinitionError(.refused(place: place, problem: "uri \(uri.prefix(80)) is not absolute")) }
        let rest = uri[schemeEnd.upperBound...]
        let authority = String(rest.prefix { $0 != "/" && $0 != "?" })
        let afterAuthority = rest.dropFirst(authority.count)
        let pathPart = afterAuthority.prefix { $0 != "?" }
        scheme = String(uri[..<schemeEnd.lowerBound]).lowercased()
        self.authority = authority
        pathTemplate = pathPart.isEmpty ? "/" : String(pathPart)
        query = afterAuthority.count > pathPart.count ? String(afterAuthority.dropFirst(pathPart.count + 1)) : nil
        do { upstream = Forwarding.Upstream(try WireURL("\(scheme)://\(authority)/"), tls: tls) } catch {
            throw APIDefinitionError(.refused(place: place, problem: "uri \(uri.prefix(80)) has no usable host: \(error.reason)"))
        }
        for mapping in integration.requestParameters {
            guard let name = mapping.source.dropping("context.identity."), !Self.identityNames.contains(name) else { continue }
            throw APIDefinitionError(.refused(place: place, problem: "requestParameters source \(mapping.source) is not served (served: sourceIp, userAgent, accessKey, clientCert.*)"))
        }
        if RequestPath.hasDotSegment(pathTemplate) { throw APIDefinitionError(.refused(place: place, problem: "uri \(uri.prefix(80)) has a . or .. segment")) }
        mappings = integration.requestParameters
        fills = pathTemplate.contains("{")
        mapsPath = mappings.contains { if case .path = $0.target { true } else { false } }
        pathReadsPrincipal = mappings.contains { mapping in
            guard case .path = mapping.target else { return false }
            return mapping.source.hasPrefix("context.authorizer.") || mapping.source == "context.identity.accessKey"
        }
        readsQuery = mappings.contains { $0.source.hasPrefix("method.request.querystring.") }
    }

    /// The client's request `head` as `forwarder` sends it to this integration; nil when its
    /// path would hold a `.` or `..` segment (``path(for:from:parameters:principal:)``).
    /// `filled` is that path when the caller has it already and no principal changes it
    /// (``pathReadsPrincipal``).
    func request(
        for head: HTTPRequest, from client: ClientConnection, through forwarder: UpstreamForwarder, parameters: [String: String], principal: Principal?, dropKey: Bool,
        filled: String? = nil
    ) -> HTTPRequest? {
        guard var target = filled ?? path(for: head, from: client, parameters: parameters, principal: principal) else { return nil }
        var queryPairs: [(String, String)] = []
        var headers: [(HTTPField.Name, String?)] = []
        let receivedQuery = readsQuery ? Self.query(of: head) : [:]
        for mapping in mappings {
            switch mapping.target {
            case .header(let name):
                guard let field = HTTPField.Name(name) else { continue }
                let value = Self.value(of: mapping.source, head: head, client: client, query: receivedQuery, parameters: parameters, principal: principal)
                headers.append((field, value.flatMap { WireText.isSafe($0) ? $0 : nil }))
            case .querystring(let name):
                let value = Self.value(of: mapping.source, head: head, client: client, query: receivedQuery, parameters: parameters, principal: principal)
                if let value { queryPairs.append((name, value)) }
            case .path: continue
            }
        }
        let clientQuery = Self.queryPart(of: head).map(String.init)
        if query != nil || clientQuery != nil || !queryPairs.isEmpty {
            let queries = [query, clientQuery].compactMap { $0 } + queryPairs.map { "\(FormURLEncoding.escape($0.0))=\(FormURLEncoding.escape($0.1))" }
            target += "?" + queries.joined(separator: "&")
        }
        var request = forwarder.upstreamRequest(for: head, principal: principal, target: (scheme, authority, target), dropKey: dropKey)
        for (field, value) in headers { request.headerFields[field] = value }
        return request
    }

    /// The upstream path for `head` (without the query): the template with the route's
    /// parameters and the mapped path parameters filled in. Nil when a value, however it got
    /// there (a greedy or single parameter, a header, a query parameter, the authorizer's
    /// context), makes a `.` or `..` segment as ``RequestPath`` reads one: no such path
    /// reaches an upstream.
    func path(for head: HTTPRequest, from client: ClientConnection, parameters: [String: String], principal: Principal?) -> String? {
        guard fills else { return pathTemplate }
        var values = parameters
        if mapsPath {
            let receivedQuery = readsQuery ? Self.query(of: head) : [:]
            for mapping in mappings {
                guard case .path(let name) = mapping.target else { continue }
                values[name] = Self.value(of: mapping.source, head: head, client: client, query: receivedQuery, parameters: parameters, principal: principal) ?? ""
            }
        }
        let path = Self.fill(pathTemplate, with: values, greedy: greedy)
        return RequestPath.hasDotSegment(path) ? nil : path
    }

    /// The template's `{name}` (one segment, encoded) and `{name+}` or the route's greedy
    /// parameter (slashes kept) filled in.
    static func fill(_ template: String, with values: [String: String], greedy greedyName: String? = nil) -> String {
        var out = ""
        var rest = template[...]
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            out += rest[..<open]
            var name = rest[rest.index(after: open)..<close]
            var greedy = name.hasSuffix("+")
            if greedy { name = name.dropLast() }
            if String(name) == greedyName { greedy = true }
            let value = values[String(name)] ?? ""
            out += greedy ? value.split(separator: "/", omittingEmptySubsequences: false).map { FormURLEncoding.escape(String($0)) }.joined(separator: "/")
                : FormURLEncoding.escape(value)
            rest = rest[rest.index(after: close)...]
        }
        return out + rest
    }

    private static func value(
        of source: String, head: HTTPRequest, client: ClientConnection, query: [String: String], parameters: [String: String], principal: Principal?
    ) -> String? {
        if source.hasPrefix("'"), source.hasSuffix("'"), source.count >= 2 { return String(source.dropFirst().dropLast()) }
        if let name = source.dropping("method.request.header.") { return HTTPField.Name(name).flatMap { head.headerFields[$0] } }
        if let name = source.dropping("method.request.querystring.") { return query[name] }
        if let name = source.dropping("method.request.path.") { return parameters[name] }
        if source == "context.authorizer.principalId" { return principal?.name }
        if let name = source.dropping("context.authorizer.claims.") { return principal?.claims[name] }
        if let name = source.dropping("context.authorizer.") { return principal?.claims[name] }
        switch source.dropping("context.identity.") {
        case "userAgent": return head.headerFields[.userAgent]
        case "accessKey": return principal?.mode == .awsIAM ? principal?.name : nil
        case let name?: return client.identity(name)
        case nil: return nil
        }
    }

    /// The `context.identity` names a mapping may read.
    static let identityNames = ClientConnection.identityNames.union(["userAgent", "accessKey"])

    /// What follows the first `?` of the request's target, when something does.
    static func queryPart(of head: HTTPRequest) -> Substring? {
        guard let path = head.path, let mark = path.utf8.firstIndex(of: UInt8(ascii: "?")) else { return nil }
        let query = path[path.utf8.index(after: mark)...]
        return query.isEmpty ? nil : query
    }

    /// The request's query parameters, decoded (the first of a repeated name).
    static func query(of head: HTTPRequest) -> [String: String] {
        guard let query = queryPart(of: head) else { return [:] }
        var found: [String: String] = [:]
        for (name, value) in FormURLEncoding.decode(query) where found[name] == nil { found[name] = value }
        return found
    }
}

extension StringProtocol {
    /// The rest after `prefix`, when it starts with it and has more.
    func dropping(_ prefix: String) -> String? {
        hasPrefix(prefix) && count > prefix.count ? String(dropFirst(prefix.count)) : nil
    }
}
