import HTTPTypes
import MultiAuthAPIDefinition
import MultiAuthAPIDefinitionLoader
import MultiAuthCore
import MultiAuthInboundAuthorization
@testable import MultiAuthReverseProxy
import NIOCore
import NIOEmbedded
import Testing

/// An `http_proxy` integration's request as API Gateway documents it: the URI's path filled,
/// the client's query passed on after the URI's own, `requestParameters` applied (a mapped
/// header replaces the client's, even when its source is empty), and the API key dropped.
struct IntegrationTargetTests {
    static func target(_ uri: String, template: String = "/items/{id}", mappings: String = "") throws -> IntegrationTarget {
        let parameters = mappings.isEmpty ? "" : ", requestParameters: {\(mappings)}"
        let yaml = """
            openapi: 3.0.1
            info: {title: i, version: "1"}
            paths:
              \(template):
                get: {security: [], responses: {"200": {description: ok}}, x-amazon-apigateway-integration: {type: http_proxy, httpMethod: ANY, uri: "\(uri)"\(parameters)}}
            """
        let route = try APIDefinition.load(Array(yaml.utf8), name: "i.yaml").routes[0]
        return try IntegrationTarget(route.integration, routeTemplate: route.template, place: "test", tls: try UpstreamTLS(caBundle: nil, verifies: true))
    }

    static func sent(_ target: IntegrationTarget, _ path: String, fields: [(String, String)] = [], parameters: [String: String] = ["id": "7"],
        principal: Principal? = nil, dropKey: Bool = false) throws -> HTTPRequest {
        var head = HTTPRequest(method: .get, scheme: "http", authority: "gw", path: path)
        for (name, value) in fields { head.headerFields.append(HTTPField(name: HTTPField.Name(name)!, value: value)) }
        let forwarder = try UpstreamForwarder(upstream: "http://127.0.0.1:9/")
        return try #require(target.request(
            for: head, from: ClientConnection(EmbeddedChannel()), through: forwarder, parameters: parameters, principal: principal, dropKey: dropKey))
    }

    @Test func theURIsQueryComesFirstThenTheClientsThenMappedValues() throws {
        let target = try Self.target("http://up.example:8080/v1/items/{id}?fixed=1", mappings: "integration.request.querystring.from: method.request.header.x-from")
        let sent = try Self.sent(target, "/items/7?b=2&a=1", fields: [("x-from", "a b&c")])
        #expect(sent.authority == "up.example:8080" && sent.path == "/v1/items/7?fixed=1&b=2&a=1&from=a%20b%26c")
    }

    @Test func aMappedHeaderReplacesTheClientsEvenWhenEmpty() throws {
        let target = try Self.target(
            "http://u/items/{id}",
            mappings: "integration.request.header.x-user: context.authorizer.principalId, integration.request.header.x-const: \"'fixed'\", integration.request.header.x-agent: context.identity.userAgent")
        let spoofed = try Self.sent(target, "/items/7", fields: [("x-user", "admin"), ("x-const", "other"), ("user-agent", "curl/8")])
        #expect(spoofed.headerFields[HTTPField.Name("x-user")!] == nil, "no principal: the client's value is removed, not kept")
        #expect(spoofed.headerFields[HTTPField.Name("x-const")!] == "fixed" && spoofed.headerFields[HTTPField.Name("x-agent")!] == "curl/8")
        let signedIn = try Self.sent(target, "/items/7", fields: [("x-user", "admin")], principal: Principal(mode: .openIDConnect, name: "alice"))
        #expect(signedIn.headerFields[values: HTTPField.Name("x-user")!] == ["alice"])
    }

    @Test func theClientsAddressIsMappedFromItsConnection() throws {
        let target = try Self.target("http://u/items/{id}", mappings: "integration.request.header.x-source: context.identity.sourceIp")
        let channel = EmbeddedChannel()
        try channel.connect(to: SocketAddress(ipAddress: "203.0.113.7", port: 40000)).wait()
        var head = HTTPRequest(method: .get, scheme: "http", authority: "gw", path: "/items/7")
        head.headerFields[HTTPField.Name("x-source")!] = "spoof"
        let forwarder = try UpstreamForwarder(upstream: "http://127.0.0.1:9/")
        let sent = try #require(target.request(
            for: head, from: ClientConnection(channel), through: forwarder, parameters: ["id": "7"], principal: nil, dropKey: false))
        #expect(sent.headerFields[values: HTTPField.Name("x-source")!] == ["203.0.113.7"])
    }

    @Test func theAPIKeyIsDroppedWhenTheGatewayTookIt() throws {
        let target = try Self.target("http://u/items/{id}")
        #expect(try Self.sent(target, "/items/7", fields: [("x-api-key", "k")], dropKey: true).headerFields[HTTPField.Name("x-api-key")!] == nil)
        #expect(try Self.sent(target, "/items/7", fields: [("x-api-key", "k")]).headerFields[HTTPField.Name("x-api-key")!] == "k")
    }

    @Test(arguments: [
        ("/files/{proxy+}", "http://u/base/{proxy}", ["proxy": "a b/c%d/é"], "/base/a%20b/c%25d/%C3%A9"),
        ("/items/{id}", "http://u/items/{id}", ["id": "a/b c"], "/items/a%2Fb%20c"),
        ("/items/{id}", "http://u/items/{id}/x/{id}", ["id": "7"], "/items/7/x/7"),
    ])
    func parametersAreFilledEscaped(template: String, uri: String, values: [String: String], expected: String) throws {
        let target = try Self.target(uri, template: template)
        #expect(target.path(for: HTTPRequest(method: .get, scheme: "http", authority: "gw", path: "/"), from: ClientConnection(EmbeddedChannel()),
            parameters: values, principal: nil) == expected)
    }

    @Test func aURIWithADotSegmentStopsTheStart() {
        #expect(throws: APIDefinitionError.self) { _ = try Self.target("http://u/base/../admin/{id}") }
    }
}
