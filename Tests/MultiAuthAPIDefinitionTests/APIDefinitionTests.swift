import HTTPTypes
import MultiAuthAPIDefinition
import MultiAuthAPIDefinitionLoader
import MultiAuthCore
import Testing

/// Definitions written by hand from API Gateway's documentation of its OpenAPI extensions:
/// what is served, in which order routes match, and what is refused with its place.
struct APIDefinitionTests {
    static func definition(_ paths: String, schemes: String = "", root: String = "") throws -> APIDefinition {
        let yaml = """
            openapi: 3.0.1
            info: {title: test, version: "1"}
            \(root)
            paths:
            \(paths)
            components:
              securitySchemes:
                sigv4: {type: apiKey, name: Authorization, in: header, x-amazon-apigateway-authtype: awsSigv4}
                api_key: {type: apiKey, name: x-api-key, in: header}
            \(schemes)
            """
        return try APIDefinition.load(Array(yaml.utf8), name: "test.yaml")
    }

    static let responses = "responses: {\"200\": {description: ok}}"

    static func proxy(_ uri: String = "http://127.0.0.1:9/x") -> String {
        "\(responses), x-amazon-apigateway-integration: {type: http_proxy, httpMethod: ANY, uri: \"\(uri)\"}"
    }

    @Test func literalsWinOverParametersWhichWinOverGreedyAndMethodsOverANY() throws {
        let api = try Self.definition("""
              /pets/{id}:
                get: {\(Self.proxy("http://u/pets/{id}"))}
              /pets/mine:
                get: {\(Self.proxy())}
              /{proxy+}:
                x-amazon-apigateway-any-method: {security: [], \(Self.proxy("http://u/{proxy}"))}
                get: {\(Self.proxy())}
            """)
        #expect(api.route(.get, "/pets/mine")?.route.name == "GET /pets/mine")
        let pet = try #require(api.route(.get, "/pets/caf%C3%A9"))
        #expect(pet.route.name == "GET /pets/{id}" && pet.parameters == ["id": "café"])
        #expect(api.route(.post, "/pets/7")?.route.name == "ANY /{proxy+}")
        #expect(api.route(.get, "/pets/7/toys")?.route.name == "GET /{proxy+}")
        #expect(api.route(.delete, "/a/b/c")?.parameters == ["proxy": "a/b/c"])
        #expect(api.route(.get, "/") == nil, "a greedy parameter needs a segment")
        #expect(api.route(.get, "//pets///mine/")?.route.name == "GET /pets/mine", "empty segments are skipped")
        #expect(api.route(.get, "/pets/mine#toys")?.route.name == "GET /pets/mine", "a fragment is not part of the path")
        #expect(api.route(.get, "/pets/mine?toys=/a%2F")?.route.name == "GET /pets/mine", "nor is a query")
        #expect(api.route(.get, "/a//b/")?.parameters == ["proxy": "a/b"])
    }

    /// Many literal siblings, some a prefix of another: each path reaches its own route, a
    /// segment that sorts between two or past either end reaches none, and bytes match as
    /// bytes (a decomposed `é` is not the precomposed one a route names).
    @Test func eachOfManyLiteralSiblingsIsFoundByItsExactBytes() throws {
        let names = ["a", "ab", "abc", "b", "ba", "z", "zz", "café", "A", "0", "m-n", "m_n"] + (0..<40).map { "r\($0)" }
        let api = try Self.definition(names.map { "  /\($0)/x:\n    get: {\(Self.proxy())}" }.joined(separator: "\n"))
        for name in names {
            let path = "/" + (name.utf8.allSatisfy { $0 < 0x80 } ? name : "caf%C3%A9") + "/x"
            #expect(api.route(.get, path[...])?.route.name == "GET /\(name)/x", "\(path)")
        }
        for missing in ["/aa/x", "/abcd/x", "/", "/B/x", "/r40/x", "/zzz/x", "/%00/x", "/r/x", "/cafe%CC%81/x", "/m.n/x", "/a/y"] {
            #expect(api.route(.get, missing[...]) == nil, "\(missing)")
        }
    }

    /// Two spellings of one character are two routes (YAML readers take them for one key, so
    /// the definition is made here directly): each path reaches the one whose bytes it has.
    @Test func precomposedAndDecomposedLiteralsAreTwoRoutes() throws {
        let routes = ["/caf\u{E9}", "/cafe\u{301}"].map { template in
            APIRoute(method: .get, template: template, security: [], integration: HTTPProxyIntegration(uri: "http://u\(template)", requestParameters: []))
        }
        let api = try APIDefinition(routes: routes, schemes: [:], cors: nil, basePath: "", apiKeySource: .header)
        // Compared as bytes: Swift's String equality would call the two spellings equal.
        #expect(api.route(.get, "/caf%C3%A9").map { Array($0.route.template.utf8) } == Array("/caf\u{E9}".utf8))
        #expect(api.route(.get, "/cafe%CC%81").map { Array($0.route.template.utf8) } == Array("/cafe\u{301}".utf8))
    }

    /// A path is read as an upstream that decodes reads it: `%2F` separates like `/`, an
    /// encoded literal is the literal, and a single parameter is one decoded segment.
    @Test func anEncodedSlashSeparatesAndEscapesAreDecodedBeforeMatching() throws {
        let api = try Self.definition("""
              /items/{id}:
                get: {\(Self.proxy())}
              /items/{id}/secret:
                get: {\(Self.proxy())}
              /open/{proxy+}:
                get: {\(Self.proxy())}
            """)
        #expect(api.route(.get, "/items/7%2Fsecret")?.route.name == "GET /items/{id}/secret")
        #expect(api.route(.get, "/%69tems/7")?.parameters == ["id": "7"])
        #expect(api.route(.get, "/open/a%2Fb//c")?.parameters == ["proxy": "a/b/c"])
        #expect(api.route(.get, "/open/%252F")?.parameters == ["proxy": "%2F"], "decoded once, as the upstream decodes")
    }

    @Test func securityIsPerOperationWithTheDocumentsAsDefault() throws {
        let api = try Self.definition("""
              /open:
                get: {security: [], \(Self.proxy())}
              /either:
                get: {security: [{sigv4: []}, {api_key: []}], \(Self.proxy())}
              /both:
                get: {security: [{sigv4: [], api_key: []}], \(Self.proxy())}
              /default:
                get: {\(Self.proxy())}
            """, root: "security: [{api_key: []}]")
        #expect(api.route(.get, "/open")?.route.security == [])
        #expect(api.route(.get, "/either")?.route.security.map { $0.map(\.scheme) } == [["sigv4"], ["api_key"]])
        #expect(api.route(.get, "/both")?.route.security.map { $0.map(\.scheme) } == [["api_key", "sigv4"]])
        #expect(api.route(.get, "/default")?.route.security.map { $0.map(\.scheme) } == [["api_key"]])
        #expect(api.schemes["sigv4"] == .sigv4 && api.schemes["api_key"] == .apiKey)
    }

    @Test func aBasePathPrefixesEveryRoute() throws {
        let api = try Self.definition("  /items:\n    get: {\(Self.proxy())}", root: "servers: [{url: \"https://api.example.com/prod/\"}]")
        #expect(api.basePath == "/prod" && api.route(.get, "/prod/items") != nil && api.route(.get, "/items") == nil)
    }

    @Test func mappingsAndCORSAreRead() throws {
        let api = try Self.definition("""
              /me:
                get:
                  responses: {"200": {description: ok}}
                  x-amazon-apigateway-integration:
                    type: http_proxy
                    uri: http://u/me
                    requestParameters:
                      integration.request.header.x-user: context.authorizer.claims.email
                      integration.request.querystring.src: context.identity.sourceIp
                      integration.request.header.x-fixed: "'v1'"
            """, root: "x-amazon-apigateway-cors: {allowOrigins: [\"https://app.example\"], allowMethods: [GET], allowHeaders: [Authorization], maxAge: 600}")
        let mappings = try #require(api.route(.get, "/me")?.route.integration.requestParameters)
        #expect(mappings.map(\.target) == [.header("x-fixed"), .header("x-user"), .querystring("src")])
        let cors = try #require(api.cors)
        #expect(cors.allowOrigins == ["https://app.example"] && cors.allowMethods == ["GET"] && cors.allowHeaders == ["authorization"])
        #expect(cors.exposeHeaders.isEmpty && cors.maxAge == 600 && !cors.allowCredentials)
    }

    /// Each refused value names its place: a Lambda integration and authorizer, VTL, an unknown
    /// auth type, an unknown scheme, a route conflict, two names at one position, a $ref cycle.
    @Test(arguments: [
        ("  /a:\n    get: {\(responses), x-amazon-apigateway-integration: {type: aws_proxy, uri: \"arn:aws:lambda:us-east-1:1:function:f\"}}", "", "paths./a.get: integration type aws_proxy"),
        ("  /a:\n    get: {\(responses), x-amazon-apigateway-integration: {type: http, uri: \"http://u\", requestTemplates: {}}}", "", "VTL mapping templates"),
        ("  /a:\n    get: {\(responses)}", "", "no x-amazon-apigateway-integration"),
        ("  /a:\n    get: {security: [{nope: []}], \(proxy())}", "", "parsing `nope` in Document.paths"),
        ("  /a:\n    get: {\(proxy())}", "    odd: {type: apiKey, name: X, in: header, x-amazon-apigateway-authtype: weird}", "components.securitySchemes.odd"),
        ("  /a:\n    get: {\(proxy())}",
         "    lam: {type: apiKey, name: A, in: header, x-amazon-apigateway-authtype: custom, x-amazon-apigateway-authorizer: {type: request, authorizerUri: \"arn:aws:apigateway:us-east-1:lambda:path/f\"}}",
         "Lambda functions are not called"),
        ("  /a/{x}:\n    get: {\(proxy())}\n  /a/{y}:\n    get: {\(proxy())}", "", "{y} sits where another route has {x}"),
        ("  /a/{x}:\n    get: {\(proxy())}\n  /a/{x}/:\n    get: {\(proxy())}", "", "would answer the same requests"),
    ])
    func refusedValuesAreNamed(paths: String, schemes: String, expected: String) {
        #expect { try Self.definition(paths, schemes: schemes) } throws: { "\($0)".contains(expected) }
    }

    /// A JWT issuer over plain http is taken only on a loopback address or `localhost`; a name
    /// that merely starts with 127 is not one.
    @Test(arguments: [
        ("http://127.0.0.1:9/issuer", true), ("http://[::1]:9", true), ("http://localhost:9", true), ("https://issuer.example", true),
        ("http://127.evil.example/", false), ("http://127.0.0.1.evil.example:9", false), ("http://10.0.0.1", false),
    ])
    func plainHTTPIssuersOnlyOnLoopback(issuer: String, accepted: Bool) {
        let scheme = "    jwt: {type: oauth2, flows: {}, x-amazon-apigateway-authorizer: {type: jwt, jwtConfiguration: {issuer: \"\(issuer)\", audience: [a]}}}"
        let loaded = Result { try Self.definition("  /a:\n    get: {security: [{jwt: []}], \(Self.proxy())}", schemes: scheme) }
        if accepted {
            #expect((try? loaded.get()) != nil, "\(loaded)")
        } else {
            #expect(throws: APIDefinitionError.self) { try loaded.get() }
        }
    }

    /// Keys from an authorizer need the authorizer beside every key requirement; a source
    /// that is neither HEADER nor AUTHORIZER is refused.
    @Test func keysFromAnAuthorizerNeedTheAuthorizer() throws {
        let lambda = "    lam: {type: apiKey, name: A, in: header, x-amazon-apigateway-authorizer: {type: request, authorizerUri: \"http://127.0.0.1:9/\"}}"
        let root = "x-amazon-apigateway-api-key-source: AUTHORIZER"
        let served = try Self.definition("  /a:\n    get: {security: [{lam: [], api_key: []}], \(Self.proxy())}", schemes: lambda, root: root)
        #expect(served.apiKeySource == .authorizer)
        #expect(try Self.definition("  /a:\n    get: {\(Self.proxy())}").apiKeySource == .header)
        #expect { try Self.definition("  /a:\n    get: {security: [{api_key: []}], \(Self.proxy())}", schemes: lambda, root: root) } throws: {
            "\($0)".contains("GET /a: its API key would come from an authorizer")
        }
        #expect { try Self.definition("  /a:\n    get: {\(Self.proxy())}", root: "x-amazon-apigateway-api-key-source: QUERY") } throws: {
            "\($0)".contains("x-amazon-apigateway-api-key-source: QUERY is neither HEADER nor AUTHORIZER")
        }
    }

    @Test func aReferenceCycleAndAHugeFileAreRefused() {
        let cycle = """
            openapi: 3.0.1
            info: {title: t, version: "1"}
            paths:
              /a:
                get:
                  x-amazon-apigateway-integration: {type: http_proxy, uri: "http://u"}
                  responses: {"200": {description: ok, content: {application/json: {schema: {$ref: "#/components/schemas/A"}}}}}
            components:
              schemas:
                A: {type: object, properties: {b: {$ref: "#/components/schemas/B"}}}
                B: {type: object, properties: {a: {$ref: "#/components/schemas/A"}}}
            """
        #expect { try APIDefinition.load(Array(cycle.utf8), name: "cycle.yaml") } throws: { "\($0)".contains("cycle") }
        #expect { try APIDefinition.load([UInt8](repeating: 0x20, count: 50 << 20), name: "huge.yaml") } throws: {
            ($0 as? APIDefinitionError)?.code == "APIDefinition.tooLarge"
        }
    }
}
