import HTTPTypes
package import MultiAuthAPIDefinition
import OpenAPIKit30
import Yams

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension APIDefinition {
    /// The definition in `bytes` (JSON or YAML), named `name` in errors.
    /// - Throws: ``APIDefinitionError`` naming the place: a document OpenAPIKit refuses (a
    ///   `$ref` cycle, a missing component), an extension value that is not honoured (a Lambda
    ///   ARN, a non-proxy integration, an unknown auth type), a route conflict, or a file over
    ///   ``maxBytes``.
    package static func load(_ bytes: [UInt8], name: String) throws(APIDefinitionError) -> APIDefinition {
        guard bytes.count <= maxBytes else { throw APIDefinitionError(.tooLarge(bytes: bytes.count, limit: maxBytes)) }
        let resolved: ResolvedDocument
        do {
            let document = try decode(bytes)
            resolved = try document.locallyDereferenced().resolved()
        } catch let error as APIDefinitionError {
            throw error
        } catch {
            throw APIDefinitionError(.unreadable("\(name): \(String(describing: error).prefix(400))"))
        }
        return try build(resolved)
    }

    private static func decode(_ bytes: [UInt8]) throws -> OpenAPI.Document {
        let first = bytes.first { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }
        if first == UInt8(ascii: "{") { return try JSONDecoder().decode(OpenAPI.Document.self, from: Data(bytes)) }
        return try YAMLDecoder().decode(OpenAPI.Document.self, from: Data(bytes))
    }

    private static func build(_ document: ResolvedDocument) throws(APIDefinitionError) -> APIDefinition {
        var schemes: [String: APISecurityScheme] = [:]
        for (name, scheme) in document.underlyingDocument.underlyingDocument.components.securitySchemes {
            schemes[name.rawValue] = try APIExtensions.scheme(scheme, place: "components.securitySchemes.\(name.rawValue)")
        }
        var routes: [APIRoute] = []
        for route in document.routes {
            for endpoint in route.endpoints {
                let place = "paths.\(route.path.rawValue).\(endpoint.method.rawValue.lowercased())"
                routes.append(try APIExtensions.route(
                    method: HTTPRequest.Method(endpoint.method.rawValue.uppercased()), template: "/" + route.path.components.joined(separator: "/"),
                    security: endpoint.security.map { requirement in
                        requirement.schemes.values.map { SecurityRequirement(scheme: $0.name, scopes: $0.requiredScopes) }.sorted { $0.scheme < $1.scheme }
                    },
                    integration: endpoint.endpointVendorExtensions[APIExtensions.integrationKey]?.value, schemes: schemes, place: place))
            }
            if let any = route.vendorExtensions["x-amazon-apigateway-any-method"] {
                let place = "paths.\(route.path.rawValue).x-amazon-apigateway-any-method"
                routes.append(try APIExtensions.anyMethodRoute(
                    any.value, template: "/" + route.path.components.joined(separator: "/"), inherited: document.security, schemes: schemes, place: place))
            }
        }
        let keySource = try apiKeySource(document.underlyingDocument.underlyingDocument.vendorExtensions["x-amazon-apigateway-api-key-source"]?.value)
        if keySource == .authorizer { try checkKeysComeFromAuthorizers(routes, schemes: schemes) }
        var cors: CORSConfiguration?
        if let value = document.underlyingDocument.underlyingDocument.vendorExtensions["x-amazon-apigateway-cors"] { cors = try APIExtensions.cors(value.value) }
        return try APIDefinition(
            routes: routes, schemes: schemes, cors: cors, basePath: basePath(document.underlyingDocument.underlyingDocument.servers), apiKeySource: keySource)
    }

    /// `x-amazon-apigateway-api-key-source`: `HEADER` (the default) or `AUTHORIZER`.
    private static func apiKeySource(_ value: Any?) throws(APIDefinitionError) -> APIKeySource {
        guard let value else { return .header }
        switch (value as? String)?.uppercased() {
        case "HEADER": return .header
        case "AUTHORIZER": return .authorizer
        default: throw .refused("x-amazon-apigateway-api-key-source", "\(String(describing: value).prefix(40)) is neither HEADER nor AUTHORIZER")
        }
    }

    /// With keys from authorizers, each requirement that names an API key must name the
    /// request authorizer that supplies it.
    private static func checkKeysComeFromAuthorizers(_ routes: [APIRoute], schemes: [String: APISecurityScheme]) throws(APIDefinitionError) {
        for route in routes {
            for requirement in route.security where requirement.contains(where: { schemes[$0.scheme] == .apiKey }) {
                guard requirement.contains(where: { if case .requestAuthorizer = schemes[$0.scheme] { true } else { false } }) else {
                    throw .refused(route.name, "its API key would come from an authorizer (x-amazon-apigateway-api-key-source: AUTHORIZER), and it names none")
                }
            }
        }
    }

    /// The path of the first server's URL, without a trailing slash (`/prod`, or empty).
    private static func basePath(_ servers: [OpenAPI.Server]) -> String {
        guard let url = servers.first?.urlTemplate.absoluteString else { return "" }
        let afterScheme = url.split(separator: "://", maxSplits: 1).last.map(String.init) ?? url
        guard let slash = afterScheme.firstIndex(of: "/") else { return url.hasPrefix("/") ? url : "" }
        var path = String(afterScheme[slash...])
        while path.hasSuffix("/") { path.removeLast() }
        return path
    }
}
